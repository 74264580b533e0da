/**
 * `karpenter.azure.com` AKSNodeClass (v1beta1, storage; v1alpha2 has the same fields): the Azure
 * specifics of the nodes a NodePool launches. Field meanings, defaults and validation rules follow
 * upstream `Azure/karpenter-provider-azure`'s AKSNodeClass v1beta1; the CRD in crds/ carries the
 * same rules as OpenAPI + CEL.
 */

/** API group of AKSNodeClass. */
export const AKSNodeClassGroup = 'karpenter.azure.com';
/** Kind. */
export const AKSNodeClassKind = 'AKSNodeClass';
/** Storage version. */
export const AKSNodeClassV1Beta1 = 'karpenter.azure.com/v1beta1';
/** Deprecated served version. */
export const AKSNodeClassV1Alpha2 = 'karpenter.azure.com/v1alpha2';

/** `spec.imageFamily`: `Ubuntu` resolves by Kubernetes version (>=1.34: 24.04, else 22.04). */
export type ImageFamily = 'Ubuntu' | 'Ubuntu2204' | 'Ubuntu2404' | 'AzureLinux';

/** `spec.kubelet`: the kubelet settings users may change (kube-reserved and eviction are not among them). */
export interface AKSKubeletConfiguration {
  /** `none` (default) or `static`. */
  cpuManagerPolicy?: 'none' | 'static';
  /** Default true. */
  cpuCFSQuota?: boolean;
  /** Duration string, default `100ms`. */
  cpuCFSQuotaPeriod?: string;
  /** Percent 0..100; must exceed the low threshold when both are set. */
  imageGCHighThresholdPercent?: number;
  /** Percent 0..100. */
  imageGCLowThresholdPercent?: number;
  /** Default `none`. */
  topologyManagerPolicy?: 'restricted' | 'best-effort' | 'none' | 'single-numa-node';
  allowedUnsafeSysctls?: string[];
  /** Quantity, default `50Mi`. */
  containerLogMaxSize?: string;
  /** >= 2, default 5. */
  containerLogMaxFiles?: number;
  /** Max PIDs per pod (-1: unlimited). */
  podPidsLimit?: number;
  failSwapOn?: boolean;
}

/** The kernel settings of `spec.linuxOSConfig.sysctls` (ranges in the CRD). */
export interface AKSSysctls {
  fsAioMaxNr?: number;
  fsFileMax?: number;
  fsInotifyMaxUserWatches?: number;
  fsNrOpen?: number;
  kernelThreadsMax?: number;
  netCoreNetdevMaxBacklog?: number;
  netCoreOptmemMax?: number;
  netCoreRmemDefault?: number;
  netCoreRmemMax?: number;
  netCoreSomaxconn?: number;
  netCoreWmemDefault?: number;
  netCoreWmemMax?: number;
  /** `"first last"` port range. */
  netIPv4IPLocalPortRange?: string;
  netIPv4NeighDefaultGcThresh1?: number;
  netIPv4NeighDefaultGcThresh2?: number;
  netIPv4NeighDefaultGcThresh3?: number;
  netIPv4TCPFinTimeout?: number;
  netIPv4TCPKeepaliveProbes?: number;
  netIPv4TCPKeepaliveTime?: number;
  netIPv4TCPMaxSynBacklog?: number;
  netIPv4TCPMaxTwBuckets?: number;
  netIPv4TCPTwReuse?: boolean;
  netIPv4TCPKeepaliveIntvl?: number;
  netNetfilterNfConntrackBuckets?: number;
  netNetfilterNfConntrackMax?: number;
  vmMaxMapCount?: number;
  vmSwappiness?: number;
  vmVfsCachePressure?: number;
}

/** `spec.linuxOSConfig`. */
export interface AKSLinuxOSConfig {
  /** Quantity; needs `kubelet.failSwapOn: false`. */
  swapFileSize?: string;
  transparentHugePageEnabled?: 'always' | 'madvise' | 'never';
  transparentHugePageDefrag?: 'always' | 'defer' | 'defer+madvise' | 'madvise' | 'never';
  sysctls?: AKSSysctls;
}

/** One DNS zone override of `spec.localDNS`. */
export interface LocalDNSZoneOverride {
  /** `.` or a domain such as `cluster.local`. */
  zone: string;
  queryLogging: 'Error' | 'Log';
  protocol: 'PreferUDP' | 'ForceTCP';
  forwardDestination: 'ClusterCoreDNS' | 'VnetDNS';
  forwardPolicy: 'Sequential' | 'RoundRobin' | 'Random';
  /** >= 0. */
  maxConcurrent: number;
  /** Duration like `1h30m`. */
  cacheDuration: string;
  /** Duration like `1h`. */
  serveStaleDuration: string;
  serveStale: 'Verify' | 'Immediate' | 'Disable';
}

/** `spec.localDNS`: per-node CoreDNS cache. */
export interface LocalDNS {
  mode?: 'Preferred' | 'Required' | 'Disabled';
  vnetDNSOverrides?: LocalDNSZoneOverride[];
  kubeDNSOverrides?: LocalDNSZoneOverride[];
}

/** `spec` of an AKSNodeClass. */
export interface AKSNodeClassSpec {
  /** Subnet ARM ID for node NICs; defaults to the operator's `--vnet-subnet-id`. */
  vnetSubnetID?: string;
  /** OS disk size in GB (decimal), 30..2048, default 128; also the node's ephemeral-storage. */
  osDiskSizeGB?: number;
  /** Default `Ubuntu`. */
  imageFamily?: ImageFamily;
  fipsMode?: 'FIPS' | 'Disabled';
  /** Azure tags on VM, NIC and extensions (not part of the drift hash). */
  tags?: Record<string, string>;
  kubelet?: AKSKubeletConfiguration;
  /** 10..250; default by network plugin (see `defaultMaxPods`). */
  maxPods?: number;
  security?: {
    encryptionAtHost?: boolean;
    trustedLaunch?: { vtpm?: boolean; secureBoot?: boolean };
  };
  localDNS?: LocalDNS;
  gpu?: { mode?: 'Driver' | 'None' };
  artifactStreaming?: { enabled?: boolean };
  linuxOSConfig?: AKSLinuxOSConfig;
}

/** A condition of `status.conditions` (metav1.Condition shape). */
export interface AKSNodeClassCondition {
  type: string;
  status: 'True' | 'False' | 'Unknown';
  reason?: string;
  message?: string;
  lastTransitionTime?: string;
  observedGeneration?: number;
}

/** `status` of an AKSNodeClass. */
export interface AKSNodeClassStatus {
  /** Node images by priority, each selecting instance types by arch and Hyper-V generation. */
  images?: { id: string; requirements: { key: string; operator: string; values?: string[] }[] }[];
  /** From the API server, without `v`. */
  kubernetesVersion?: string;
  localDNSState?: 'Enabled' | 'Disabled';
  conditions?: AKSNodeClassCondition[];
}

/** An AKSNodeClass object. */
export interface AKSNodeClass {
  apiVersion: typeof AKSNodeClassV1Beta1 | typeof AKSNodeClassV1Alpha2;
  kind: typeof AKSNodeClassKind;
  metadata: {
    name: string;
    generation?: number;
    annotations?: Record<string, string>;
    labels?: Record<string, string>;
  };
  spec: AKSNodeClassSpec;
  status?: AKSNodeClassStatus;
}
