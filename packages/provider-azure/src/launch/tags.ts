/**
 * Azure tags on launched VMs and NICs (as upstream `Azure/karpenter-provider-azure`). ARM tag keys
 * may not hold `/`, so label-style keys are written with `_` (`karpenter.sh/nodepool` ->
 * `karpenter.sh_nodepool`). Precedence: the provider's own tags win over `spec.tags` of the
 * AKSNodeClass, which win over the operator's additional tags (upstream's order).
 */

/** Tag keys the provider writes and reads. */
export const LaunchTags = {
  /** The cluster name (operator option `CLUSTER_NAME`); `list` and GC select on it. */
  Cluster: 'karpenter.azure.com_cluster',
  /** The NodePool the node claim belongs to. */
  NodePool: 'karpenter.sh_nodepool',
  /**
   * The node claim name. Upstream derives it from the VM name only; we also tag it so the NIC
   * created before the VM already names its owner (GC of a NIC left by a crash).
   */
  NodeClaim: 'karpenter.sh_nodeclaim',
  /** AKS's billing tag on Linux nodes. */
  Billing: 'compute.aks.billing',
} as const;

/** Inputs of {@link launchTags}. */
export interface LaunchTagInputs {
  readonly clusterName: string;
  readonly nodePool: string;
  readonly nodeClaim: string;
  /** `spec.tags` of the AKSNodeClass. */
  readonly nodeClassTags?: Readonly<Record<string, string>>;
  /** Operator option `ADDITIONAL_TAGS`. */
  readonly additionalTags?: Readonly<Record<string, string>>;
}

/** ARM-safe tag key: `/` becomes `_`. */
export function armTagKey(key: string): string {
  return key.replaceAll('/', '_');
}

/** The tags of a launch's NIC and VM. */
export function launchTags(inputs: LaunchTagInputs): Record<string, string> {
  const tags: Record<string, string> = {};
  for (const [k, v] of Object.entries(inputs.additionalTags ?? {})) tags[armTagKey(k)] = v;
  for (const [k, v] of Object.entries(inputs.nodeClassTags ?? {})) tags[armTagKey(k)] = v;
  tags[LaunchTags.Cluster] = inputs.clusterName;
  tags[LaunchTags.Billing] = 'linux';
  tags[LaunchTags.NodePool] = inputs.nodePool;
  tags[LaunchTags.NodeClaim] = inputs.nodeClaim;
  return tags;
}

/** Whether a resource's tags put it in this cluster's Karpenter fleet (cluster tag and a nodepool tag). */
export function isClusterResource(
  tags: Readonly<Record<string, string>> | undefined,
  clusterName: string,
): boolean {
  return tags?.[LaunchTags.Cluster] === clusterName && tags[LaunchTags.NodePool] !== undefined;
}
