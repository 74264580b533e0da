/**
 * The VM's OS disk (reference azure-provider.md 5.3): an ephemeral OS disk when the NodeClass's
 * `osDiskSizeGB` fits the size's largest ephemeral placement (NVMe, else cache, else resource
 * disk; `sku-storage-ephemeralos-maxsize`), otherwise a managed disk. Either way the disk is named
 * like the VM, created from the image, and deleted with the VM.
 */
import type { OSDisk } from '@azure/arm-compute';
import type { AzureSku } from '../catalog/sku.js';

/** Whether `osDiskSizeGB` (decimal GB) goes on an ephemeral OS disk for `sku`. */
export function usesEphemeralOSDisk(sku: AzureSku, osDiskSizeGB: number): boolean {
  return sku.ephemeralOSPlacement !== undefined && osDiskSizeGB <= sku.ephemeralOSMaxSizeGB;
}

/**
 * The `storageProfile.osDisk` of the VM.
 * @param diskEncryptionSetID operator option `NODE_OSDISK_DISKENCRYPTIONSET_ID` (managed disks only).
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
  if (usesEphemeralOSDisk(sku, osDiskSizeGB)) {
    return {
      ...base,
      caching: 'ReadOnly',
      diffDiskSettings: { option: 'Local', placement: sku.ephemeralOSPlacement },
    };
  }
  return {
    ...base,
    caching: 'ReadWrite',
    managedDisk: {
      storageAccountType: sku.premiumIO ? 'Premium_LRS' : 'StandardSSD_LRS',
      ...(diskEncryptionSetID ? { diskEncryptionSet: { id: diskEncryptionSetID } } : {}),
    },
  };
}
