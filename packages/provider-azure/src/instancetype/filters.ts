/**
 * Which VM sizes become instance types (upstream `Azure/karpenter-provider-azure`'s SKU
 * exclusions). Two stages, each returning the reasons a size is dropped (empty = kept), so callers
 * can explain:
 * 1. {@link skuExclusionReasons}: sizes the provider never offers.
 * 2. {@link nodeClassExclusionReasons}: sizes a given AKSNodeClass cannot use.
 */
import type { AzureSku } from '../catalog/sku.js';
import { gpuSkuInfo } from '../catalog/gpu-registry.js';
import type { AKSNodeClass } from '../nodeclass/types.js';

/** Sizes AKS refuses to run as nodes. */
export const AKS_RESTRICTED_SIZES: ReadonlySet<string> = new Set([
  'Standard_A0',
  'Standard_A1',
  'Standard_A1_v2',
  'Standard_B1s',
  'Standard_B1ms',
  'Standard_F1',
  'Standard_F1s',
  'Basic_A0',
  'Basic_A1',
  'Basic_A2',
  'Basic_A3',
  'Basic_A4',
]);

/** Sizes the Karpenter provider refuses in addition to AKS's list. */
export const KARPENTER_RESTRICTED_SIZES: ReadonlySet<string> = new Set([
  'Standard_E64i_v3',
  'Standard_E64is_v3',
]);

/** Why a size is never offered. */
export type SkuExclusionReason =
  | 'unparseableName'
  | 'aksRestrictedSize'
  | 'karpenterRestrictedSize'
  | 'lessThan2vCPU'
  | 'lessThan3.5GiB'
  | 'constrainedCPU'
  | 'confidential'
  | 'gpuNotInRegistry';

/** Why a size is not offered for a particular AKSNodeClass. */
export type NodeClassExclusionReason =
  | 'gpuNotSupportedByImageFamily'
  | 'gpuDriverNotInstallable'
  | 'encryptionAtHostUnsupported'
  | 'trustedLaunchUnsupported'
  | 'localDNSNeeds4vCPU'
  | 'artifactStreamingNoArm64';

/**
 * Provider-wide exclusions, upstream's rules: names the size parser rejects, AKS- and
 * Karpenter-restricted sizes, fewer than 2 vCPUs, less than 3.5 GiB, constrained-vCPU sizes
 * (`M8-2ms`), confidential DC and EC sizes, and GPU sizes missing from the GPU registry.
 */
export function skuExclusionReasons(sku: AzureSku): SkuExclusionReason[] {
  const reasons: SkuExclusionReason[] = [];
  if (sku.sizeName === undefined) reasons.push('unparseableName');
  if (AKS_RESTRICTED_SIZES.has(sku.name)) reasons.push('aksRestrictedSize');
  if (KARPENTER_RESTRICTED_SIZES.has(sku.name)) reasons.push('karpenterRestrictedSize');
  if (sku.vCPUs < 2) reasons.push('lessThan2vCPU');
  if (sku.memoryGiB < 3.5) reasons.push('lessThan3.5GiB');
  if (sku.sizeName?.constrainedCPUs !== undefined) reasons.push('constrainedCPU');
  const size = sku.name.replace(/^Standard_/, '');
  if (size.startsWith('DC') || size.startsWith('EC')) reasons.push('confidential');
  if (sku.gpuCount > 0 && gpuSkuInfo(sku.name) === undefined) reasons.push('gpuNotInRegistry');
  return reasons;
}

/** True when the Kubernetes version (`1.31`, `v1.32.4`) is at least major.minor. */
function versionAtLeast(version: string, major: number, minor: number): boolean {
  const m = /^v?(\d+)\.(\d+)/.exec(version);
  if (!m) return true;
  const [maj, min] = [Number(m[1]), Number(m[2])];
  return maj > major || (maj === major && min >= minor);
}

/** The GPU registry OS key of an image family: `ubuntu`, `azurelinux3` (k8s >= 1.32) or `azurelinux`. */
export function gpuOSKey(imageFamily: string, kubernetesVersion: string | undefined): string {
  if (imageFamily === 'AzureLinux') {
    return kubernetesVersion === undefined || versionAtLeast(kubernetesVersion, 1, 32)
      ? 'azurelinux3'
      : 'azurelinux';
  }
  return 'ubuntu';
}

/** Local DNS state a NodeClass resolves to: Required -> Enabled; Preferred -> `status.localDNSState` (else Disabled). */
export function localDNSEnabled(nodeClass: AKSNodeClass): boolean {
  const mode = nodeClass.spec.localDNS?.mode;
  if (mode === 'Required') return true;
  if (mode === 'Preferred') return nodeClass.status?.localDNSState === 'Enabled';
  return false;
}

/**
 * NodeClass exclusions, upstream's rules: GPU sizes need a driver for the image family's OS and,
 * with `gpu.mode: Driver` (default), a driver AKS can install (NVIDIA); `security.encryptionAtHost`
 * needs `EncryptionAtHostSupported`; trusted launch (vTPM or secure boot) needs a trusted-launch
 * capable Gen2 size; enabled local DNS needs >= 4 vCPUs; artifact streaming drops arm64.
 */
export function nodeClassExclusionReasons(
  sku: AzureSku,
  nodeClass: AKSNodeClass,
  kubernetesVersion?: string,
): NodeClassExclusionReason[] {
  const reasons: NodeClassExclusionReason[] = [];
  const spec = nodeClass.spec;
  const gpu = gpuSkuInfo(sku.name);
  if (gpu !== undefined) {
    const os = gpuOSKey(
      spec.imageFamily ?? 'Ubuntu',
      kubernetesVersion ?? nodeClass.status?.kubernetesVersion,
    );
    if (!gpu.os.includes(os)) reasons.push('gpuNotSupportedByImageFamily');
    if ((spec.gpu?.mode ?? 'Driver') === 'Driver' && !gpu.driverInstallSupported)
      reasons.push('gpuDriverNotInstallable');
  }
  if (spec.security?.encryptionAtHost === true && !sku.encryptionAtHostSupported) {
    reasons.push('encryptionAtHostUnsupported');
  }
  const tl = spec.security?.trustedLaunch;
  if (
    (tl?.vtpm === true || tl?.secureBoot === true) &&
    !(sku.trustedLaunchCapable && sku.hyperVGenerations.includes('V2'))
  ) {
    reasons.push('trustedLaunchUnsupported');
  }
  if (localDNSEnabled(nodeClass) && sku.vCPUs < 4) reasons.push('localDNSNeeds4vCPU');
  if (spec.artifactStreaming?.enabled === true && sku.arch === 'arm64')
    reasons.push('artifactStreamingNoArm64');
  return reasons;
}
