/**
 * `karpenter.k8s.aws/v1` EC2NodeClass: the AWS-specific half of a NodePool's node template
 * (subnets, security groups, AMIs, instance profile, kubelet settings, block devices).
 * Cluster-scoped; status subresource; short names `ec2nc`, `ec2ncs`. Field meanings, defaults
 * and rules follow upstream v1.14.1; the CRD in
 * crds/karpenter.k8s.aws_ec2nodeclasses.yaml is the single source of the schema and CEL rules.
 */
import type { ObjectMeta } from '@karpenter-ts/api';

/** API group of EC2NodeClass. */
export const AwsGroup = 'karpenter.k8s.aws';
/** `apiVersion` of EC2NodeClass. */
export const AwsV1 = 'karpenter.k8s.aws/v1';
/** Kind name. */
export const EC2NodeClassKind = 'EC2NodeClass';
/**
 * The finalizer the status controller puts on every EC2NodeClass (upstream's name): deletion
 * waits for the NodeClass's NodeClaims, then removes its launch templates and managed instance
 * profile.
 */
export const EC2NodeClassTerminationFinalizer = 'karpenter.k8s.aws/termination';

/** AMI families (`spec.amiFamily`). */
export type AMIFamily =
  'AL2' | 'AL2023' | 'Bottlerocket' | 'Custom' | 'Windows2019' | 'Windows2022' | 'Windows2025';

/** Every {@link AMIFamily}. */
export const AMIFamilies: readonly AMIFamily[] = [
  'AL2',
  'AL2023',
  'Bottlerocket',
  'Custom',
  'Windows2019',
  'Windows2022',
  'Windows2025',
];

/** Selects subnets: by `id` alone, or by `tags` (all must match; value `*` matches any value). */
export interface SubnetSelectorTerm {
  /** At most 20 entries; no empty keys or values. */
  tags?: Record<string, string>;
  /** `subnet-…`; cannot be combined with `tags`. */
  id?: string;
}

/** Selects security groups by `id` alone, `name` alone (the EC2 group name), or `tags`. */
export interface SecurityGroupSelectorTerm {
  tags?: Record<string, string>;
  /** `sg-…`; cannot be combined with other fields. */
  id?: string;
  /** EC2 security group name (not the Name tag); cannot be combined with other fields. */
  name?: string;
}

/** Selects capacity reservations (ODCRs, capacity blocks). */
export interface CapacityReservationSelectorTerm {
  tags?: Record<string, string>;
  /** `cr-…`; cannot be combined with other fields. */
  id?: string;
  /** 12-digit AWS account ID owning the reservation. */
  ownerID?: string;
  instanceMatchCriteria?: 'open' | 'targeted';
}

/** Selects a placement group by exactly one of `name` or `id`. */
export interface PlacementGroupSelector {
  name?: string;
  /** `pg-…`. */
  id?: string;
}

/**
 * Selects AMIs. A term holds one of: `alias` (`family@version`, alone and the only term), `id`
 * (`ami-…`, not with alias/tags/name/owner), `name` (+ optional `owner`, default owners `self`
 * and `amazon`), `tags`, or `ssmParameter`.
 */
export interface AMISelectorTerm {
  /** `al2|al2023|bottlerocket|windows2019|windows2022|windows2025@<version>`; Windows only `@latest`. Max 30 characters. */
  alias?: string;
  tags?: Record<string, string>;
  id?: string;
  name?: string;
  owner?: string;
  ssmParameter?: string;
}

/**
 * Kubelet settings Karpenter uses for scheduling math and passes to bootstrap (the typed struct
 * of upstream v1.14.1). Quantities are strings (`"100m"`, `"1Gi"`); eviction values are
 * quantities or percentages (`"5%"`).
 */
export interface KubeletConfiguration {
  clusterDNS?: string[];
  /** Overrides the ENI-limited pod density. ≥ 0. */
  maxPods?: number;
  /** Caps pods at podsPerCore × vCPUs (ignored by Bottlerocket). ≥ 0. */
  podsPerCore?: number;
  /** Keys cpu, memory, ephemeral-storage, pid; non-negative quantities. */
  systemReserved?: Record<string, string>;
  /** Keys cpu, memory, ephemeral-storage, pid; non-negative quantities. Replace the defaults key by key. */
  kubeReserved?: Record<string, string>;
  /** Keys memory.available, nodefs.available, nodefs.inodesFree, imagefs.available, imagefs.inodesFree, pid.available. */
  evictionHard?: Record<string, string>;
  /** Same keys; each needs an `evictionSoftGracePeriod` entry. */
  evictionSoft?: Record<string, string>;
  /** Go durations (`"1m30s"`); each needs an `evictionSoft` entry. */
  evictionSoftGracePeriod?: Record<string, string>;
  /** Seconds. */
  evictionMaxPodGracePeriod?: number;
  /** 0–100; must exceed imageGCLowThresholdPercent. */
  imageGCHighThresholdPercent?: number;
  /** 0–100. */
  imageGCLowThresholdPercent?: number;
  cpuCFSQuota?: boolean;
}

/** EBS settings of one block device. Needs `snapshotID` or `volumeSize`. */
export interface BlockDevice {
  deleteOnTermination?: boolean;
  encrypted?: boolean;
  iops?: number;
  kmsKeyID?: string;
  snapshotID?: string;
  /** MiB/s (gp3). */
  throughput?: number;
  /** MiB/s, 100–300; requires `snapshotID`. */
  volumeInitializationRate?: number;
  /** Quantity up to 59000Gi / 64000G / 58Ti / 64T, e.g. `"100Gi"`. */
  volumeSize?: string;
  volumeType?: 'standard' | 'io1' | 'io2' | 'gp2' | 'sc1' | 'st1' | 'gp3';
}

/** One block device mapping; at most one may be the `rootVolume`. */
export interface BlockDeviceMapping {
  deviceName?: string;
  ebs?: BlockDevice;
  /** This volume holds kubelet and containerd state (sizes ephemeral storage). */
  rootVolume?: boolean;
}

/** One network interface of the launch template. */
export interface NetworkInterface {
  networkCardIndex: number;
  deviceIndex: number;
  interfaceType: 'interface' | 'efa-only';
}

/** Instance metadata service settings. */
export interface MetadataOptions {
  httpEndpoint?: 'enabled' | 'disabled';
  httpProtocolIPv6?: 'enabled' | 'disabled';
  /** 1–64. */
  httpPutResponseHopLimit?: number;
  httpTokens?: 'required' | 'optional';
}

/** Connection tracking timeouts (seconds); at least one must be set. */
export interface ConnectionTracking {
  /** 60–432000. */
  tcpEstablishedTimeout?: number;
  /** 60–180. */
  udpStreamTimeout?: number;
  /** 30–60. */
  udpTimeout?: number;
}

/** `spec` of an EC2NodeClass. */
export interface EC2NodeClassSpec {
  subnetSelectorTerms: SubnetSelectorTerm[];
  securityGroupSelectorTerms: SecurityGroupSelectorTerm[];
  capacityReservationSelectorTerms?: CapacityReservationSelectorTerm[];
  placementGroupSelector?: PlacementGroupSelector;
  associatePublicIPAddress?: boolean;
  ipPrefixCount?: number;
  amiSelectorTerms: AMISelectorTerm[];
  /** Required unless a term uses an alias. */
  amiFamily?: AMIFamily;
  userData?: string;
  /** Exactly one of role / instanceProfile. */
  role?: string;
  instanceProfile?: string;
  tags?: Record<string, string>;
  kubelet?: KubeletConfiguration;
  blockDeviceMappings?: BlockDeviceMapping[];
  instanceStorePolicy?: 'RAID0';
  networkInterfaces?: NetworkInterface[];
  detailedMonitoring?: boolean;
  /** Default `{httpEndpoint: enabled, httpProtocolIPv6: disabled, httpPutResponseHopLimit: 1, httpTokens: required}`. */
  metadataOptions?: MetadataOptions;
  connectionTracking?: ConnectionTracking;
  /** EC2 Fleet `Context`. */
  context?: string;
  cpuOptions?: { nestedVirtualization?: 'enabled' | 'disabled' };
}

/** A subnet the NodeClass resolved. */
export interface SubnetStatus {
  id: string;
  zone: string;
  zoneID?: string;
}

/** `status` of an EC2NodeClass. */
export interface EC2NodeClassStatus {
  subnets?: SubnetStatus[];
  securityGroups?: { id: string; name?: string }[];
  amis?: {
    id: string;
    name?: string;
    deprecated?: boolean;
    requirements: { key: string; operator: string; values?: string[] }[];
  }[];
  capacityReservations?: {
    id: string;
    availabilityZone: string;
    instanceType: string;
    ownerID: string;
    instanceMatchCriteria?: 'open' | 'targeted';
    reservationType?: 'default' | 'capacity-block';
    interruptible?: boolean;
    state?: 'active' | 'expiring';
    endTime?: string;
  }[];
  instanceProfile?: string;
  conditions?: {
    type: string;
    status: 'True' | 'False' | 'Unknown';
    lastTransitionTime: string;
    reason?: string;
    message?: string;
    observedGeneration?: number;
  }[];
}

/** A `karpenter.k8s.aws/v1` EC2NodeClass object. */
export interface EC2NodeClass {
  apiVersion: 'karpenter.k8s.aws/v1';
  kind: 'EC2NodeClass';
  metadata: ObjectMeta;
  spec: EC2NodeClassSpec;
  status?: EC2NodeClassStatus;
}

/** The alias families and the AMI family each stands for. */
export const AliasFamilies: Readonly<Record<string, AMIFamily>> = {
  al2: 'AL2',
  al2023: 'AL2023',
  bottlerocket: 'Bottlerocket',
  windows2019: 'Windows2019',
  windows2022: 'Windows2022',
  windows2025: 'Windows2025',
};

/**
 * The AMI family that governs bootstrap and allocatable math (upstream `EC2NodeClass.AMIFamily()`):
 * `spec.amiFamily` when set (validation allows only the alias's family or `Custom` next to an
 * alias), else the family of the alias term, else `Custom` (unreachable for valid objects).
 */
export function resolveAMIFamily(
  spec: Pick<EC2NodeClassSpec, 'amiSelectorTerms' | 'amiFamily'>,
): AMIFamily {
  if (spec.amiFamily !== undefined) return spec.amiFamily;
  for (const term of spec.amiSelectorTerms ?? []) {
    if (term.alias === undefined) continue;
    const family = AliasFamilies[term.alias.slice(0, term.alias.indexOf('@'))];
    if (family !== undefined) return family;
  }
  return 'Custom';
}
