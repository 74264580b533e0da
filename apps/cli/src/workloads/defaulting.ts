/**
 * The defaulting the API server applies to a pod before the scheduler (and Karpenter) sees it,
 * limited to what changes scheduling.
 */
import type { Container, Pod, ResourceRequirements } from '@karpenter-ts/api';

/**
 * For every resource a container (or the pod-level `spec.resources`) limits but does not
 * request, sets the request to the limit: the API server's defaulting for core/v1 pods
 * (`SetDefaults_Pod`), which is why a container with only limits is scheduled by its limits.
 * Containers with neither keep no requests (they count as zero, but the pod still takes one
 * `pods` slot). A null quantity becomes `"0"`, as the apiserver decodes it. Also defaults `metadata.namespace` to `namespace`. Mutates and returns `pod`.
 */
export function applyPodDefaults(pod: Pod, namespace: string): Pod {
  pod.metadata = { ...pod.metadata, namespace: pod.metadata?.namespace ?? namespace };
  const spec = pod.spec;
  if (!spec) return pod;
  for (const container of [...(spec.initContainers ?? []), ...(spec.containers ?? [])])
    defaultContainer(container);
  if (spec.resources) defaultRequestsFromLimits(spec.resources);
  zeroNulls(spec.overhead);
  spec.restartPolicy ??= 'Always';
  spec.schedulerName ??= 'default-scheduler';
  return pod;
}

function defaultContainer(container: Container): void {
  if (container.resources) defaultRequestsFromLimits(container.resources);
}

function defaultRequestsFromLimits(resources: ResourceRequirements): void {
  zeroNulls(resources.requests);
  zeroNulls(resources.limits);
  const limits = resources.limits;
  if (!limits) return;
  const requests = { ...(resources.requests ?? {}) };
  let changed = false;
  for (const [name, value] of Object.entries(limits)) {
    if (requests[name] === undefined) {
      requests[name] = value;
      changed = true;
    }
  }
  if (changed || resources.requests) resources.requests = requests;
}

/**
 * A null quantity (`cpu: null`) is zero to the apiserver (resource.Quantity decodes JSON null as
 * zero and keeps the key), so a null request stays zero instead of defaulting from its limit.
 */
function zeroNulls(list: Record<string, string> | undefined): void {
  if (!list) return;
  for (const [name, value] of Object.entries(list)) if (value === null) list[name] = '0';
}
