/**
 * The AKSNodeClass `SubnetsReady` check (upstream `Azure/karpenter-provider-azure`'s subnet check):
 * the effective subnet (`spec.vnetSubnetID`, else the operator's `--vnet-subnet-id`) must be a
 * subnet ARM ID; a custom one (set and not the cluster subnet) must sit in the cluster subnet's
 * VNet, and that VNet must not be the one AKS manages; and the subnet must exist (an ARM GET).
 */
import type { Subnets } from '@azure/arm-network';
import { armErrorText, isNotFound } from '../launch/arm-errors.js';
import {
  isAKSManagedSubnet,
  parseSubnetID,
  sameVirtualNetwork,
  type SubnetID,
} from './subnet-id.js';
import type { AKSNodeClassSpec } from './types.js';

/** Why `SubnetsReady` is False (upstream's reasons). */
export type SubnetNotReadyReason = 'SubnetIDInvalid' | 'SubnetNotFound' | 'SubnetUnknownError';

/** Outcome of {@link checkSubnetReadiness}. */
export type SubnetReadiness =
  | {
      readonly ready: true;
      /** The effective subnet ARM ID. */
      readonly subnetID: string;
    }
  | {
      readonly ready: false;
      readonly reason: SubnetNotReadyReason;
      /** Names the subnet ID and what is wrong (for `SubnetUnknownError`, ARM's code and message). */
      readonly message: string;
    };

/** What {@link checkSubnetReadiness} needs. */
export interface SubnetReadinessOptions {
  /** Subnets operations of a subscription (`ArmClients.subnets`); only `get` is called. */
  subnets(subscriptionId: string): Pick<Subnets, 'get'>;
  /** The cluster subnet ARM ID (`--vnet-subnet-id`, `VNET_SUBNET_ID`). */
  readonly clusterSubnetID: string;
  /** `AZURE_NODE_RESOURCE_GROUP` (where the AKS-managed VNet lives). */
  readonly nodeResourceGroup: string;
}

/**
 * Decides `SubnetsReady` for a spec. Rules in order, the first broken one decides:
 * `SubnetIDInvalid` when the effective subnet is not a subnet ARM ID, or when a custom subnet is
 * given while the cluster subnet is in the AKS-managed VNet (custom subnets need a cluster on its
 * own VNet) or sits in another VNet than the cluster subnet (subscription, resource group or VNet
 * name differ); then a GET of the subnet: 404 gives `SubnetNotFound`, any other failure
 * `SubnetUnknownError` with ARM's code and message (the caller retries on its next pass). Never
 * raises.
 */
export async function checkSubnetReadiness(
  options: SubnetReadinessOptions,
  spec: Pick<AKSNodeClassSpec, 'vnetSubnetID'>,
): Promise<SubnetReadiness> {
  const custom =
    spec.vnetSubnetID !== undefined &&
    spec.vnetSubnetID.toLowerCase() !== options.clusterSubnetID.toLowerCase();
  const id = spec.vnetSubnetID ?? options.clusterSubnetID;
  const source = spec.vnetSubnetID !== undefined ? 'spec.vnetSubnetID' : '--vnet-subnet-id';
  const subnet = parseSubnetID(id);
  if (!subnet)
    return invalid(
      `${source} ${JSON.stringify(id)} is not a subnet ARM ID (/subscriptions/<id>/resourceGroups/<rg>/providers/Microsoft.Network/virtualNetworks/<vnet>/subnets/<subnet>)`,
    );
  if (custom) {
    const cluster = parseSubnetID(options.clusterSubnetID);
    if (!cluster)
      return invalid(
        `the cluster subnet --vnet-subnet-id ${JSON.stringify(options.clusterSubnetID)} is not a subnet ARM ID, so custom subnet ${id} cannot be checked against its VNet`,
      );
    if (isAKSManagedSubnet(cluster, options.nodeResourceGroup))
      return invalid(
        `custom subnet ${id} is not allowed: the cluster subnet ${options.clusterSubnetID} is in the AKS-managed VNet ${cluster.virtualNetwork}; custom subnets need a cluster on its own VNet`,
      );
    if (!sameVirtualNetwork(subnet, cluster))
      return invalid(
        `custom subnet ${id} does not match the cluster VNet ${vnetID(cluster)}: a custom subnet must sit in the same VNet as the cluster subnet`,
      );
  }
  try {
    await options
      .subnets(subnet.subscriptionID)
      .get(subnet.resourceGroup, subnet.virtualNetwork, subnet.subnet);
    return { ready: true, subnetID: id };
  } catch (err) {
    if (isNotFound(err))
      return { ready: false, reason: 'SubnetNotFound', message: `subnet ${id} not found` };
    const detail = armErrorText(err);
    return {
      ready: false,
      reason: 'SubnetUnknownError',
      message: `getting subnet ${id}: ${detail}`,
    };
  }
}

function invalid(message: string): SubnetReadiness {
  return { ready: false, reason: 'SubnetIDInvalid', message };
}

function vnetID(s: SubnetID): string {
  return `/subscriptions/${s.subscriptionID}/resourceGroups/${s.resourceGroup}/providers/Microsoft.Network/virtualNetworks/${s.virtualNetwork}`;
}
