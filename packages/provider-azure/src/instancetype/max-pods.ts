/**
 * Pods per node (as upstream `Azure/karpenter-provider-azure`): the AKSNodeClass `maxPods`
 * when set, else the AKS default for the cluster's network plugin.
 */

/** `NETWORK_PLUGIN`: `azure` (Azure CNI) or `none` (bring your own CNI). kubenet is not supported. */
export type NetworkPlugin = 'azure' | 'none';
/** `NETWORK_PLUGIN_MODE`: `overlay` or `''` (Azure CNI node subnet). */
export type NetworkPluginMode = 'overlay' | '';

/**
 * Default max pods: Azure CNI overlay 250, Azure CNI node subnet 30, plugin `none` 250, anything
 * else 110 (the kubelet default).
 */
export function defaultMaxPods(networkPlugin: string, networkPluginMode: string): number {
  if (networkPlugin === 'azure') return networkPluginMode === 'overlay' ? 250 : 30;
  if (networkPlugin === 'none') return 250;
  return 110;
}

/** Effective max pods: `maxPodsOverride` (the NodeClass `spec.maxPods`) or the network default. */
export function maxPods(
  networkPlugin: string,
  networkPluginMode: string,
  maxPodsOverride?: number,
): number {
  return maxPodsOverride ?? defaultMaxPods(networkPlugin, networkPluginMode);
}
