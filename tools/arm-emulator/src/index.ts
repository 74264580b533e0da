export { startArmEmulator } from './server.js';
export type { ArmEmulator, ArmEmulatorOptions } from './server.js';
export type { BootedVirtualMachine, VmBootHook } from './context.js';
export { Faults, capacityMessage, quotaMessage } from './faults.js';
export type { ActiveFault, CapacityErrorCode, Fault, FaultEffect, FaultMatch } from './faults.js';
export { EmulatorState } from './state.js';
export type { ArmOperation, ArmResource, QuotaLimits, RequestRecord } from './state.js';
export {
  capability,
  ephemeralOSDiskLimitGB,
  locationRestriction,
  sellableZones,
  zoneRestriction,
} from './resource-skus.js';
export type {
  ResourceSku,
  ResourceSkuCapability,
  ResourceSkuRestriction,
} from './resource-skus.js';
export { shippedResourceSkus } from './shipped-skus.js';
export { SkuCatalog } from './sku-catalog.js';
export { retailItems } from './retail-prices.js';
export type { PriceTable, RetailPriceItem } from './retail-prices.js';
export { ArmError } from './arm-error.js';
export { CommunityGalleries, SeedImageVersions } from './community-galleries.js';
export type { CommunityGalleryImageVersionSpec } from './community-galleries.js';
export { SUBNET_TYPE, Subnets } from './subnets.js';
export type { ArmSubnet, SubnetSpec } from './subnets.js';
export {
  DISK_ENCRYPTION_SET_TYPE,
  DiskEncryptionSets,
  isDiskEncryptionSetID,
} from './disk-encryption-sets.js';
export type {
  ArmDiskEncryptionSet,
  DiskEncryptionSetSpec,
  DiskEncryptionType,
} from './disk-encryption-sets.js';
