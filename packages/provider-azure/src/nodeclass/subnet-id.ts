/**
 * Subnet ARM IDs: parsing, same-VNet comparison and recognising the VNet AKS manages itself
 * (upstream `Azure/karpenter-provider-azure`'s `vnetSubnetID` rules).
 */

/** The parts of a subnet ARM ID, as written in it. */
export interface SubnetID {
  readonly subscriptionID: string;
  readonly resourceGroup: string;
  readonly virtualNetwork: string;
  readonly subnet: string;
}

const SUBNET_ID =
  /^\/subscriptions\/([^/]+)\/resourceGroups\/([^/]+)\/providers\/Microsoft\.Network\/virtualNetworks\/([^/]+)\/subnets\/([^/]+)$/i;

/**
 * The parts of `/subscriptions/<s>/resourceGroups/<rg>/providers/Microsoft.Network/virtualNetworks/<vnet>/subnets/<name>`
 * (segment names case-insensitive, as ARM's and the CRD's pattern), or undefined when `id` is
 * not of that form.
 */
export function parseSubnetID(id: string): SubnetID | undefined {
  const m = SUBNET_ID.exec(id);
  if (!m) return undefined;
  const [, subscriptionID, resourceGroup, virtualNetwork, subnet] = m as unknown as [
    string,
    string,
    string,
    string,
    string,
  ];
  return { subscriptionID, resourceGroup, virtualNetwork, subnet };
}

/** Whether two subnets sit in the same VNet: same subscription, resource group and VNet name (ARM names are case-insensitive). */
export function sameVirtualNetwork(a: SubnetID, b: SubnetID): boolean {
  const eq = (x: string, y: string) => x.toLowerCase() === y.toLowerCase();
  return (
    eq(a.subscriptionID, b.subscriptionID) &&
    eq(a.resourceGroup, b.resourceGroup) &&
    eq(a.virtualNetwork, b.virtualNetwork)
  );
}

const MANAGED_VNET = /^aks-vnet-\d{8}$/i;

/**
 * Whether `subnet` is the subnet of the VNet AKS creates for a cluster without its own network:
 * VNet `aks-vnet-<8 digits>` in the node resource group, subnet `aks-subnet` (upstream's test).
 */
export function isAKSManagedSubnet(subnet: SubnetID, nodeResourceGroup: string): boolean {
  return (
    MANAGED_VNET.test(subnet.virtualNetwork) &&
    subnet.resourceGroup.toLowerCase() === nodeResourceGroup.toLowerCase() &&
    subnet.subnet.toLowerCase() === 'aks-subnet'
  );
}
