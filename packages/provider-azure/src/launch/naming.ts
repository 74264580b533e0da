/**
 * Names and provider IDs of launched machines (as upstream `Azure/karpenter-provider-azure`): the
 * VM, its NIC and its OS disk are all named `aks-<node claim name>`; the provider ID is the VM's
 * ARM ID under the `azure://` scheme, with the resource group lower-cased as upstream writes it.
 */

/** Prefix of every VM, NIC and OS disk name. */
export const AKS_NAME_PREFIX = 'aks-';

/** `aks-<node claim name>`: the VM, NIC and OS disk name for a node claim. */
export function vmNameForNodeClaim(nodeClaimName: string): string {
  return `${AKS_NAME_PREFIX}${nodeClaimName}`;
}

/** The node claim name of a VM/NIC named `aks-<name>`, or undefined for other names. */
export function nodeClaimNameForVm(vmName: string): string | undefined {
  return vmName.startsWith(AKS_NAME_PREFIX) && vmName.length > AKS_NAME_PREFIX.length
    ? vmName.slice(AKS_NAME_PREFIX.length)
    : undefined;
}

/** `azure:///subscriptions/<sub>/resourceGroups/<rg lower>/providers/Microsoft.Compute/virtualMachines/<vm>`. */
export function providerIDForVm(
  subscriptionId: string,
  resourceGroup: string,
  vmName: string,
): string {
  return `azure:///subscriptions/${subscriptionId}/resourceGroups/${resourceGroup.toLowerCase()}/providers/Microsoft.Compute/virtualMachines/${vmName}`;
}

/** The parts of an Azure VM provider ID. */
export interface ParsedProviderID {
  readonly subscriptionId: string;
  readonly resourceGroup: string;
  readonly vmName: string;
}

const PROVIDER_ID =
  /^azure:\/\/\/subscriptions\/([^/]+)\/resourceGroups\/([^/]+)\/providers\/Microsoft\.Compute\/virtualMachines\/([^/]+)$/i;

/** Parses an Azure VM provider ID; undefined when it is not one (e.g. a VMSS instance or another cloud). */
export function parseProviderID(providerID: string): ParsedProviderID | undefined {
  const m = PROVIDER_ID.exec(providerID);
  if (!m) return undefined;
  return { subscriptionId: m[1] as string, resourceGroup: m[2] as string, vmName: m[3] as string };
}

/** The name of the OS disk ARM creates for a VM (we name it like the VM). */
export function osDiskNameForVm(vmName: string): string {
  return vmName;
}
