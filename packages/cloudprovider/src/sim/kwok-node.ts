/**
 * The Node object a kwok-like cloud registers for a launched NodeClaim: what a kubelet started
 * with `--register-with-taints` would send on boot, so the real kube-scheduler can bind pods to
 * it (upstream's KWOK provider creates the Node itself, then the kwok controller keeps it alive).
 */
import type { Node, NodeClaim, Taint } from '@karpenter-ts/api';

/** The taint every node launched for Karpenter registers with (`karpenter.sh/unregistered:NoExecute`). */
export const KwokUnregisteredTaint: Taint = {
  key: 'karpenter.sh/unregistered',
  effect: 'NoExecute',
};

/** Annotation marking Nodes a kwok-like cloud created (the key upstream's kwok tooling uses). */
export const KwokNodeAnnotation = 'kwok.x-k8s.io/node';

/** Kubelet version the fake nodes report in `status.nodeInfo`. */
export const KwokKubeletVersion = 'v1.36.3-kwok';

/**
 * Builds the Node for a launched NodeClaim (one with `status.providerID`). Shape:
 * - `metadata.name` = the NodeClaim name (one machine, one node, as upstream KWOK);
 * - labels: the NodeClaim's labels (the cloud resolved instance type, zone, capacity type, arch,
 *   os) plus `kubernetes.io/hostname` = the node name;
 * - taints: `karpenter.sh/unregistered:NoExecute`, then `spec.taints` and `spec.startupTaints`;
 * - `spec.providerID`, `status.capacity` / `status.allocatable` copied from the NodeClaim
 *   (quantity strings), `Ready=True` and the three pressure conditions `False`, heartbeats at
 *   `now` (milliseconds since the epoch).
 * Raises TypeError when the NodeClaim has no name or no provider ID (it was never launched).
 */
export function kwokNodeFor(nodeClaim: NodeClaim, now: number): Node {
  const name = nodeClaim.metadata.name ?? '';
  const providerID = nodeClaim.status?.providerID ?? '';
  if (name === '') throw new TypeError('kwok node: node claim has no metadata.name');
  if (providerID === '')
    throw new TypeError(`kwok node: node claim ${name} has no status.providerID (not launched)`);
  const at = new Date(now);
  const condition = (type: string, status: 'True' | 'False', reason: string, message: string) => ({
    type,
    status,
    reason,
    message,
    lastHeartbeatTime: at,
    lastTransitionTime: at,
  });
  const labels = nodeClaim.metadata.labels ?? {};
  return {
    apiVersion: 'v1',
    kind: 'Node',
    metadata: {
      name,
      labels: { ...labels, 'kubernetes.io/hostname': name },
      annotations: { [KwokNodeAnnotation]: 'fake' },
    },
    spec: {
      providerID,
      taints: [
        { ...KwokUnregisteredTaint },
        ...(nodeClaim.spec.taints ?? []).map((t) => ({ ...t })),
        ...(nodeClaim.spec.startupTaints ?? []).map((t) => ({ ...t })),
      ],
    },
    status: {
      capacity: { ...(nodeClaim.status?.capacity ?? {}) } as Record<string, string>,
      allocatable: { ...(nodeClaim.status?.allocatable ?? {}) } as Record<string, string>,
      conditions: [
        condition('MemoryPressure', 'False', 'KubeletHasSufficientMemory', 'kwok node'),
        condition('DiskPressure', 'False', 'KubeletHasNoDiskPressure', 'kwok node'),
        condition('PIDPressure', 'False', 'KubeletHasSufficientPID', 'kwok node'),
        condition('Ready', 'True', 'KubeletReady', 'kwok node is posting ready status'),
      ],
      nodeInfo: {
        architecture: labels['kubernetes.io/arch'] ?? 'amd64',
        operatingSystem: labels['kubernetes.io/os'] ?? 'linux',
        kubeletVersion: KwokKubeletVersion,
        kubeProxyVersion: '',
        containerRuntimeVersion: 'kwok://fake',
        kernelVersion: '',
        osImage: 'kwok',
        machineID: '',
        systemUUID: '',
        bootID: '',
      },
      phase: 'Running',
    },
  };
}
