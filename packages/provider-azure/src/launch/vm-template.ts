/**
 * The ARM bodies of a launch (upstream `Azure/karpenter-provider-azure`'s `aksscriptless` path):
 * the NIC, then the VM.
 */
import type { VirtualMachine } from '@azure/arm-compute';
import type { NetworkInterface } from '@azure/arm-network';
import type { AzureSku } from '../catalog/sku.js';
import type { AzureCapacityType } from '../instancetype/options.js';
import { imageReference } from './images.js';
import { osDisk } from './storage-profile.js';

/** Inputs of {@link networkInterfaceBody}. */
export interface NicInputs {
  readonly name: string;
  readonly location: string;
  /** Subnet ARM ID (NodeClass `vnetSubnetID`, else the operator's `VNET_SUBNET_ID`). */
  readonly subnetID: string;
  readonly acceleratedNetworking: boolean;
  readonly tags: Readonly<Record<string, string>>;
  /** Network security group ID to attach (BYO subnets), when any. */
  readonly networkSecurityGroupID?: string;
}

/**
 * The NIC: one primary dynamic IPv4 configuration named after the NIC, IP forwarding off. IPv4
 * only, matching the bootstrap's `NODE_IP_FAMILY=ipv4` (IPv6 clusters are refused, ip-family.ts).
 */
export function networkInterfaceBody(inputs: NicInputs): NetworkInterface {
  return {
    location: inputs.location,
    tags: { ...inputs.tags },
    enableAcceleratedNetworking: inputs.acceleratedNetworking,
    enableIPForwarding: false,
    ...(inputs.networkSecurityGroupID
      ? { networkSecurityGroup: { id: inputs.networkSecurityGroupID } }
      : {}),
    ipConfigurations: [
      {
        name: inputs.name,
        primary: true,
        privateIPAllocationMethod: 'Dynamic',
        privateIPAddressVersion: 'IPv4',
        subnet: { id: inputs.subnetID },
      },
    ],
  };
}

/** Inputs of {@link virtualMachineBody}. */
export interface VmInputs {
  readonly name: string;
  readonly location: string;
  readonly sku: AzureSku;
  /** ARM zone number (`'1'`), or undefined for a regional VM. */
  readonly zone: string | undefined;
  readonly capacityType: AzureCapacityType;
  readonly nicID: string;
  readonly imageID: string;
  readonly osDiskSizeGB: number;
  readonly customData: string;
  readonly adminUsername: string;
  readonly sshPublicKey: string;
  /** User-assigned identity ARM IDs (`NODE_IDENTITIES`). */
  readonly identities: readonly string[];
  readonly tags: Readonly<Record<string, string>>;
  readonly encryptionAtHost?: boolean;
  readonly trustedLaunch?: { readonly vtpm: boolean; readonly secureBoot: boolean };
  readonly ultraSSD?: boolean;
  /**
   * `NODE_OSDISK_DISKENCRYPTIONSET_ID`: the disk encryption set named on the OS disk, managed or
   * ephemeral (see storage-profile.ts).
   */
  readonly diskEncryptionSetID?: string;
}

/**
 * The VM: size, zone, image, OS disk (ephemeral when it fits; the disk encryption set when one is
 * configured), NIC (deleted with the VM), Linux profile with SSH key only and the bootstrap custom
 * data, user-assigned identities, tags; spot VMs get priority Spot, eviction policy Delete and max
 * price -1 (pay up to on-demand).
 */
export function virtualMachineBody(inputs: VmInputs): VirtualMachine {
  const spot = inputs.capacityType === 'spot';
  const security =
    inputs.encryptionAtHost || inputs.trustedLaunch
      ? {
          securityProfile: {
            ...(inputs.encryptionAtHost ? { encryptionAtHost: true } : {}),
            ...(inputs.trustedLaunch
              ? {
                  securityType: 'TrustedLaunch' as const,
                  uefiSettings: {
                    vTpmEnabled: inputs.trustedLaunch.vtpm,
                    secureBootEnabled: inputs.trustedLaunch.secureBoot,
                  },
                }
              : {}),
          },
        }
      : {};
  return {
    location: inputs.location,
    tags: { ...inputs.tags },
    ...(inputs.zone !== undefined ? { zones: [inputs.zone] } : {}),
    ...(inputs.identities.length > 0
      ? {
          identity: {
            type: 'UserAssigned' as const,
            userAssignedIdentities: Object.fromEntries(inputs.identities.map((id) => [id, {}])),
          },
        }
      : {}),
    hardwareProfile: { vmSize: inputs.sku.name },
    storageProfile: {
      imageReference: imageReference(inputs.imageID),
      osDisk: osDisk(inputs.name, inputs.sku, inputs.osDiskSizeGB, inputs.diskEncryptionSetID),
    },
    osProfile: {
      computerName: inputs.name,
      adminUsername: inputs.adminUsername,
      customData: inputs.customData,
      linuxConfiguration: {
        disablePasswordAuthentication: true,
        ssh: {
          publicKeys: [
            {
              path: `/home/${inputs.adminUsername}/.ssh/authorized_keys`,
              keyData: inputs.sshPublicKey,
            },
          ],
        },
      },
    },
    networkProfile: {
      networkInterfaces: [{ id: inputs.nicID, primary: true, deleteOption: 'Delete' }],
    },
    ...(spot
      ? {
          priority: 'Spot' as const,
          evictionPolicy: 'Delete' as const,
          billingProfile: { maxPrice: -1 },
        }
      : { priority: 'Regular' as const }),
    ...security,
    ...(inputs.ultraSSD ? { additionalCapabilities: { ultraSSDEnabled: true } } : {}),
  };
}
