/**
 * A stand-in for the DaemonSet controller and the pod garbage collector, for tests and the
 * simulator: every DaemonSet gets one pod on each Node that is not being deleted and that its
 * pod template fits by node selector, required node affinity and tolerations (of `NoSchedule`
 * and `NoExecute` taints, ignoring the taints the node lifecycle and Karpenter put on nodes
 * that are still starting: `node.kubernetes.io/not-ready` and `karpenter.sh/unregistered`, which
 * DaemonSet pods tolerate in a cluster). The pod is created bound (`spec.nodeName`, phase
 * `Running`), as the DaemonSet controller pins its pods to their node. Resources are not
 * checked: a node's allocatable is sized with its DaemonSets' overhead. Pods bound to a Node
 * that no longer exists are deleted, as kube-controller-manager's pod GC does.
 */
import type { DaemonSet, Node, Pod } from '@karpenter-ts/api';
import { Taints } from '@karpenter-ts/api';
import { Requirements, toleratesAll } from '@karpenter-ts/scheduling';
import type { MemoryKubeClient } from '../kube/memory-client.js';
import { isActive, isDaemonSetPod } from '../pods.js';

/** Taints a DaemonSet pod is placed despite (it tolerates them in a real cluster). */
const STARTUP_TAINT_KEYS: ReadonlySet<string> = new Set([
  Taints.Unregistered.key,
  'node.kubernetes.io/not-ready',
]);

/** See the module comment. */
export class SimDaemonSets {
  /** The Nodes, DaemonSets and DaemonSet pods the last pass saw (resource versions). */
  #seen = '';

  constructor(private readonly client: MemoryKubeClient) {
    // A DaemonSet pod deleted must be replaced: the next pass looks at the pods again. (A pod
    // can only be bound to a Node that exists, and a Node going away changes what a pass sees.)
    client.watch('Pod', (event) => {
      if (event.type === 'DELETED' && isDaemonSetPod(event.object)) this.#seen = '';
    });
  }

  /**
   * One pass: creates the missing DaemonSet pods and deletes pods of vanished Nodes. A pass
   * that would see the same Nodes, DaemonSets and pods as the last one does nothing.
   */
  async reconcile(): Promise<{ created: number; deleted: number }> {
    let created = 0;
    let deleted = 0;
    const daemonSets = this.client.view('DaemonSet');
    const nodes = this.client.view('Node');
    const seen = [...daemonSets, ...nodes]
      .map((o) => `${o.metadata?.name}@${o.metadata?.resourceVersion}`)
      .join(',');
    if (seen === this.#seen) return { created, deleted };
    const pods = this.client.view('Pod');
    const nodeNames = new Set(nodes.map((n) => n.metadata?.name ?? ''));
    const placed = new Set<string>();
    for (const pod of pods) {
      const nodeName = pod.spec?.nodeName;
      if (!nodeName) continue;
      if (!nodeNames.has(nodeName)) {
        await this.client.delete('Pod', {
          namespace: pod.metadata?.namespace ?? 'default',
          name: pod.metadata?.name ?? '',
        });
        deleted++;
        continue;
      }
      if (!isDaemonSetPod(pod) || !isActive(pod)) continue;
      const owner = (pod.metadata?.ownerReferences ?? []).find((o) => o.kind === 'DaemonSet');
      placed.add(`${pod.metadata?.namespace ?? 'default'}/${owner?.name}/${nodeName}`);
    }
    for (const node of nodes) {
      if (node.metadata?.deletionTimestamp !== undefined) continue;
      const nodeName = node.metadata?.name ?? '';
      for (const ds of daemonSets) {
        const namespace = ds.metadata?.namespace ?? 'default';
        const name = ds.metadata?.name ?? '';
        if (placed.has(`${namespace}/${name}/${nodeName}`)) continue;
        if (!fitsNode(ds, node)) continue;
        await this.client.create('Pod', daemonPod(ds, nodeName));
        created++;
      }
    }
    this.#seen = created + deleted === 0 ? seen : '';
    return { created, deleted };
  }
}

/** Whether the DaemonSet's pod template selects and tolerates the node (see the module comment). */
export function fitsNode(ds: DaemonSet, node: Node): boolean {
  const spec = ds.spec?.template?.spec;
  const labels = node.metadata?.labels ?? {};
  for (const [k, v] of Object.entries(spec?.nodeSelector ?? {})) if (labels[k] !== v) return false;
  const terms =
    spec?.affinity?.nodeAffinity?.requiredDuringSchedulingIgnoredDuringExecution?.nodeSelectorTerms;
  if (terms !== undefined && terms.length > 0) {
    const nodeRequirements = Requirements.fromLabels(labels);
    const matches = terms.some((t) =>
      nodeRequirements.isCompatible(
        Requirements.fromNodeSelectorRequirements(t.matchExpressions ?? []),
      ),
    );
    if (!matches) return false;
  }
  const hard = (node.spec?.taints ?? []).filter(
    (t) => t.effect !== 'PreferNoSchedule' && !STARTUP_TAINT_KEYS.has(t.key),
  );
  return toleratesAll(spec?.tolerations, hard) === undefined;
}

function daemonPod(ds: DaemonSet, nodeName: string): Pod {
  const template = ds.spec?.template;
  const name = ds.metadata?.name ?? '';
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      ...(template?.metadata?.labels ? { labels: { ...template.metadata.labels } } : {}),
      ...(template?.metadata?.annotations
        ? { annotations: { ...template.metadata.annotations } }
        : {}),
      generateName: `${name}-`,
      namespace: ds.metadata?.namespace ?? 'default',
      ownerReferences: [
        {
          apiVersion: 'apps/v1',
          kind: 'DaemonSet',
          name,
          uid: ds.metadata?.uid ?? `ds-${name}`,
          controller: true,
        },
      ],
    },
    spec: { ...structuredClone(template?.spec ?? { containers: [] }), nodeName },
    status: { phase: 'Running', conditions: [{ type: 'PodScheduled', status: 'True' }] },
  };
}
