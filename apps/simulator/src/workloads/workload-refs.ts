/**
 * How a scenario names workloads: `namespace/name`, a bare `name` when only one namespace has a
 * workload of that name, or `"*"` for every scalable workload.
 */

/** The keys (`namespace/name`) a reference means, or why it means none. */
export function resolveWorkloadRef(
  ref: string,
  keys: readonly string[],
): { keys: string[] } | { error: string } {
  if (ref === '*') return { keys: [...keys] };
  if (ref.includes('/')) {
    return keys.includes(ref)
      ? { keys: [ref] }
      : { error: `no Deployment, ReplicaSet or StatefulSet ${ref} in the manifests${known(keys)}` };
  }
  const matches = keys.filter((k) => k.slice(k.indexOf('/') + 1) === ref);
  if (matches.length === 1) return { keys: matches };
  if (matches.length === 0)
    return {
      error: `no Deployment, ReplicaSet or StatefulSet named ${ref} in the manifests${known(keys)}`,
    };
  return { error: `${ref} is in several namespaces (${matches.join(', ')}): write namespace/name` };
}

function known(keys: readonly string[]): string {
  if (keys.length === 0) return ' (they have none)';
  const shown = keys.slice(0, 8).join(', ');
  return ` (they have ${shown}${keys.length > 8 ? `, and ${keys.length - 8} more` : ''})`;
}
