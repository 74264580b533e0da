/**
 * A VM as a NodeClaim (for `get` and `list`): name from the VM name, labels from the size, zone,
 * priority and tags, provider ID, image ID, capacity and allocatable when the size is in the
 * catalog, and the creation time.
 */
import type { VirtualMachine } from '@azure/arm-compute';
import type { NodeClaim } from '@karpenter-ts/api';
import { formatResourceList } from '@karpenter-ts/scheduling';
import { AzureLabels } from '../labels.js';
import { REGIONAL_ZONE, zoneLabel } from '../catalog/zones.js';
import type { AzureInstanceType } from '../instancetype/instance-type.js';
import { nodeClaimNameForVm, providerIDForVm } from '../launch/naming.js';
import { LaunchTags } from '../launch/tags.js';

/** The VM's image ID (community gallery, shared gallery or ID form). */
export function vmImageID(vm: VirtualMachine): string | undefined {
  const ref = vm.storageProfile?.imageReference;
  return ref?.communityGalleryImageId ?? ref?.sharedGalleryImageId ?? ref?.id;
}

/** The zone label of a VM (`eastus-1`), or `0` for a regional VM. */
export function vmZone(vm: VirtualMachine, region: string): string {
  const z = vm.zones?.[0];
  return z ? zoneLabel(region, z) : REGIONAL_ZONE;
}

/** Inputs of {@link nodeClaimFromVm}. */
export interface VmToNodeClaimInputs {
  readonly subscriptionId: string;
  readonly resourceGroup: string;
  readonly region: string;
  /** The VM's size as an instance type, when the catalog has it. */
  readonly instanceType?: AzureInstanceType;
}

/** The NodeClaim view of a VM. */
export function nodeClaimFromVm(vm: VirtualMachine, inputs: VmToNodeClaimInputs): NodeClaim {
  const vmName = vm.name ?? '';
  const zone = vmZone(vm, inputs.region);
  const spot = vm.priority === 'Spot' || vm.priority === 'Low';
  const tags = vm.tags ?? {};
  const labels: Record<string, string> = {
    'node.kubernetes.io/instance-type': vm.hardwareProfile?.vmSize ?? '',
    'topology.kubernetes.io/region': inputs.region,
    'topology.kubernetes.io/zone': zone,
    'karpenter.sh/capacity-type': spot ? 'spot' : 'on-demand',
    [AzureLabels.PlacementScope]: zone === REGIONAL_ZONE ? 'regional' : 'zonal',
  };
  const nodePool = tags[LaunchTags.NodePool];
  if (nodePool !== undefined) labels['karpenter.sh/nodepool'] = nodePool;
  const imageID = vmImageID(vm);
  const it = inputs.instanceType;
  return {
    apiVersion: 'karpenter.sh/v1',
    kind: 'NodeClaim',
    metadata: {
      name: tags[LaunchTags.NodeClaim] ?? nodeClaimNameForVm(vmName) ?? vmName,
      labels,
      ...(vm.timeCreated ? { creationTimestamp: vm.timeCreated } : {}),
    },
    spec: {
      requirements: [],
      nodeClassRef: { group: 'karpenter.azure.com', kind: 'AKSNodeClass', name: '' },
    },
    status: {
      providerID: providerIDForVm(inputs.subscriptionId, inputs.resourceGroup, vmName),
      ...(imageID ? { imageID } : {}),
      ...(it
        ? {
            capacity: formatResourceList(it.capacity),
            allocatable: formatResourceList(it.allocatable()),
          }
        : {}),
    },
  };
}
