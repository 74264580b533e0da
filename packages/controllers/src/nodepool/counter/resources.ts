/**
 * What the NodePool counter counts and how it prints it (upstream `nodepool/counter` over
 * `state.Cluster`'s per-pool resources).
 */
import { addResources, formatQuantity, type ResourceList } from '@karpenter-ts/scheduling';
import type { Cluster } from '../../state/cluster.js';

/** Resources `status.resources` always lists, zero when the pool has no nodes (upstream's base). */
export const BaseNodePoolResources: readonly string[] = [
  'cpu',
  'memory',
  'pods',
  'ephemeral-storage',
  'nodes',
];

/**
 * The resources of NodePool `nodePoolName` as cluster state sees them: the summed capacity
 * (canonical integers: cpu millicores, memory and storage bytes, others counts) of its launched
 * NodeClaims and their Nodes, plus `nodes` = how many. A machine counts by its NodeClaim's
 * capacity until its Node is initialized, then by the Node's (`StateNode.capacity`).
 * Not counted, as upstream: NodeClaims not launched yet (no provider ID), nodes marked for
 * deletion, and nodes whose NodeClaim or Node is being deleted. Also not counted: a Node
 * carrying the `karpenter.sh/nodepool` label without a NodeClaim (upstream counts it), so this
 * equals the usage the provisioner's limits see (`Cluster.nodePoolUsage`) minus the unlaunched
 * NodeClaims that usage reserves one node for.
 */
export function nodePoolResources(cluster: Cluster, nodePoolName: string): ResourceList {
  let total: ResourceList = {};
  for (const n of cluster.nodes()) {
    if (!n.managed() || n.deleting() || n.markedForDeletion) continue;
    if (n.nodePoolName() !== nodePoolName) continue;
    total = addResources(total, n.capacity(), { nodes: 1 });
  }
  return total;
}

/**
 * Prints a pool's resources for `status.resources` as Kubernetes prints quantities
 * (`Quantity.String()`, canonical form), after seeding {@link BaseNodePoolResources} with zero:
 * cpu from millicores in decimal SI ("16", "600m", "1k" for 1000 cores); memory,
 * ephemeral-storage and hugepages-* in binary SI ("64Gi", "32786440Ki"; under 1024 bytes
 * decimal); everything else in decimal SI ("220", "2"). Upstream keeps the suffix family of
 * the capacities it sums; kubelets and providers report these in the families used here.
 */
export function formatNodePoolResources(resources: ResourceList): Record<string, string> {
  const out: Record<string, string> = {};
  for (const name of BaseNodePoolResources) out[name] = '0';
  for (const [name, value] of Object.entries(resources)) {
    const units = BigInt(value);
    out[name] =
      name === 'cpu'
        ? formatQuantity({ nanos: units * 1_000_000n, format: 'DecimalSI' })
        : formatQuantity({
            nanos: units * 1_000_000_000n,
            format: isByteResource(name) ? 'BinarySI' : 'DecimalSI',
          });
  }
  return out;
}

/** Resources measured in bytes, which Kubernetes reports with binary suffixes. */
function isByteResource(name: string): boolean {
  return name === 'memory' || name === 'ephemeral-storage' || name.startsWith('hugepages-');
}
