/**
 * The VM's OS disk (as upstream `Azure/karpenter-provider-azure`): an ephemeral OS disk when the
 * NodeClass's `osDiskSizeGB` fits the size's largest ephemeral placement (NVMe, else cache, else
 * resource disk; `sku-storage-ephemeralos-maxsize`), otherwise a managed disk. Either way the disk
 * is named like the VM, created from the image, and deleted with the VM.
 *
 * The operator's disk encryption set (`NODE_OSDISK_DISKENCRYPTIONSET_ID`) goes on the OS disk as
 * `managedDisk.diskEncryptionSet.id` whichever kind it is, as upstream does (reference 5.2 "DES id
 * if configured"): a managed disk is then encrypted at rest with the set's customer-managed key;
 * an ephemeral disk stays ephemeral (no fallback to a managed disk) and carries the set for Azure
 * to apply, which for a disk on the host's local storage goes through encryption at host
 * (`spec.security.encryptionAtHost`).
 */
import type { OSDisk } from '@azure/arm-compute';
import type { AzureSku } from '../catalog/sku.js';

/** Whether `osDiskSizeGB` (decimal GB) goes on an ephemeral OS disk for `sku`. */
export function usesEphemeralOSDisk(sku: AzureSku, osDiskSizeGB: number): boolean {
  return sku.ephemeralOSPlacement !== undefined && osDiskSizeGB <= sku.ephemeralOSMaxSizeGB;
}

/**
 * The `storageProfile.osDisk` of the VM: ephemeral (caching ReadOnly, `diffDiskSettings` Local at
 * the size's placement) when {@link usesEphemeralOSDisk}, else managed (caching ReadWrite,
 * Premium_LRS on premium-capable sizes, else StandardSSD_LRS).
 * @param osDiskSizeGB the NodeClass's `osDiskSizeGB`, decimal GB.
 * @param diskEncryptionSetID operator option `NODE_OSDISK_DISKENCRYPTIONSET_ID` (a
 *   `Microsoft.Compute/diskEncryptionSets` ARM ID), put on either kind of disk; none when undefined.
 */
export function osDisk(
  vmName: string,
  sku: AzureSku,
  osDiskSizeGB: number,
  diskEncryptionSetID?: string,
): OSDisk {
  const base: OSDisk = {
    name: vmName,
    createOption: 'FromImage',
    deleteOption: 'Delete',
    diskSizeGB: osDiskSizeGB,
    osType: 'Linux',
  };
  const encryption = diskEncryptionSetID ? { diskEncryptionSet: { id: diskEncryptionSetID } } : {};
  if (usesEphemeralOSDisk(sku, osDiskSizeGB)) {
    return {
      ...base,
      caching: 'ReadOnly',
      diffDiskSettings: { option: 'Local', placement: sku.ephemeralOSPlacement },
      // No storage account type: the disk lives on the host, not in Azure Storage.
      ...(diskEncryptionSetID ? { managedDisk: encryption } : {}),
    };
  }
  return {
    ...base,
    caching: 'ReadWrite',
    managedDisk: {
      storageAccountType: sku.premiumIO ? 'Premium_LRS' : 'StandardSSD_LRS',
      ...encryption,
    },
  };
}
