/**
 * Finding the pod `explain --pod NAME` talks about.
 */
import type { Pod } from '@karpenter-ts/api';
import { CliError } from '../errors.js';
import type { ExpandedWorkloads } from '../workloads/expand.js';

/**
 * The pending pod named `query`: an exact pod name (`frontend-7d9f…-x2k4q`), `namespace/name`,
 * or a workload name (`frontend`, `shop/frontend`) meaning that workload's first pod. Raises
 * CliError when nothing matches or a bare name matches workloads in several namespaces.
 */
export function findPod(workloads: ExpandedWorkloads, query: string): Pod {
  const slash = query.indexOf('/');
  const namespace = slash < 0 ? undefined : query.slice(0, slash);
  const name = slash < 0 ? query : query.slice(slash + 1);
  const inNamespace = (ns: string | undefined) => namespace === undefined || ns === namespace;

  const byPodName = workloads.pending.filter(
    (p) => p.metadata?.name === name && inNamespace(p.metadata?.namespace),
  );
  if (byPodName.length === 1) return byPodName[0]!;
  const matches = workloads.workloads.filter(
    (w) => w.name === name && inNamespace(w.namespace) && w.pods > 0,
  );
  const namespaces = [...new Set(matches.map((w) => w.namespace))];
  if (namespaces.length > 1 || byPodName.length > 1) {
    throw new CliError(
      `--pod: ${JSON.stringify(query)} is ambiguous; use NAMESPACE/NAME (one of ${namespaces.map((ns) => `${ns}/${name}`).join(', ')})`,
    );
  }
  const workload = matches[0];
  if (workload) {
    const pod = workloads.pending.find((p) => workloads.origin.get(p) === workload.source);
    if (pod) return pod;
  }
  const known = workloads.workloads.filter((w) => w.pods > 0).map((w) => w.name);
  const sample = known.slice(0, 8).join(', ') + (known.length > 8 ? ', …' : '');
  throw new CliError(
    `--pod: no pending pod or workload named ${JSON.stringify(query)}${known.length > 0 ? ` (workloads: ${sample})` : ''}`,
  );
}

/**
 * The DaemonSet pod `query` names, if any: the DaemonSet's name (`logging`, `kube-system/logging`)
 * or its template pod's name. DaemonSet pods are not pending: they are daemonset overhead.
 */
export function findDaemonSetPod(workloads: ExpandedWorkloads, query: string): Pod | undefined {
  const slash = query.indexOf('/');
  const namespace = slash < 0 ? undefined : query.slice(0, slash);
  const name = slash < 0 ? query : query.slice(slash + 1);
  return workloads.daemonSetPods.find((p) => {
    if (namespace !== undefined && p.metadata?.namespace !== namespace) return false;
    const owner = p.metadata?.ownerReferences?.find((o) => o.kind === 'DaemonSet')?.name;
    return p.metadata?.name === name || owner === name;
  });
}
