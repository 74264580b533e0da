/**
 * A node group's template node: what a new node of the group would look like to the scheduler
 * (CA builds one from the ASG's launch template or the AKS node pool): the instance type's
 * allocatable and single-valued labels, the NodePool template's labels and taints, a zone of the
 * group's capacity type, and the DaemonSet pods that would land on it (they use its resources).
 */
import type { DaemonSet, Node, Pod } from '@karpenter-ts/api';
import { fitsNode } from '@karpenter-ts/controllers';
import type { ExistingNodeInput } from '@karpenter-ts/scheduling';
import { NODE_GROUP_LABEL } from './defaults.js';
import type { NodeGroup } from './node-groups.js';

/** The labels every node of `group` carries (before the cloud picks its zone). */
export function groupLabels(group: NodeGroup): Record<string, string> {
  const labels: Record<string, string> = {};
  for (const r of group.instanceType.requirements.values()) {
    const first = r.complement ? undefined : r.valuesList()[0];
    if (first !== undefined && r.len() === 1) labels[r.key] = first;
  }
  const zone = group.instanceType.offerings.find(
    (o) => o.capacityType === group.capacityType,
  )?.zone;
  return {
    ...labels,
    ...(group.nodePool.spec.template.metadata?.labels ?? {}),
    'node.kubernetes.io/instance-type': group.instanceType.name,
    'karpenter.sh/capacity-type': group.capacityType,
    'karpenter.sh/nodepool': group.nodePool.metadata.name ?? '',
    ...(zone !== undefined ? { 'topology.kubernetes.io/zone': zone } : {}),
    [NODE_GROUP_LABEL]: group.name,
  };
}

/** `count` template nodes of `group` named `<prefix>-<i>`, each with its DaemonSet pods. */
export function templateNodes(
  group: NodeGroup,
  daemonSets: readonly DaemonSet[],
  count: number,
  prefix: string,
): ExistingNodeInput[] {
  const labels = groupLabels(group);
  const taints = group.nodePool.spec.template.spec.taints ?? [];
  const probe: Node = { apiVersion: 'v1', kind: 'Node', metadata: { labels }, spec: { taints } };
  const daemonPods: Pod[] = daemonSets
    .filter((ds) => fitsNode(ds, probe))
    .map((ds) => ({
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: {
        name: `${ds.metadata?.name ?? ''}-template`,
        namespace: ds.metadata?.namespace ?? 'default',
        labels: ds.spec?.template?.metadata?.labels ?? {},
        ownerReferences: [
          { apiVersion: 'apps/v1', kind: 'DaemonSet', name: ds.metadata?.name ?? '', uid: 'ds' },
        ],
      },
      spec: structuredClone(ds.spec?.template?.spec ?? { containers: [] }),
    }));
  const nodes: ExistingNodeInput[] = [];
  for (let i = 0; i < count; i++) {
    const name = `${prefix}-${i}`;
    nodes.push({
      name,
      labels: { ...labels, 'kubernetes.io/hostname': name },
      taints: taints.filter((t) => t.effect !== 'PreferNoSchedule'),
      allocatable: group.instanceType.allocatable(),
      pods: daemonPods,
    });
  }
  return nodes;
}
