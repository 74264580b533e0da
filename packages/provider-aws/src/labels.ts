/**
 * Labels the AWS provider defines on instance types and nodes (upstream
 * pkg/apis/v1/labels.go), and the extended resources it
 * advertises.
 */

/** `karpenter.k8s.aws/*` and `topology.k8s.aws/*` label keys. */
export const AwsLabels = {
  InstanceCategory: 'karpenter.k8s.aws/instance-category',
  InstanceFamily: 'karpenter.k8s.aws/instance-family',
  InstanceGeneration: 'karpenter.k8s.aws/instance-generation',
  InstanceSize: 'karpenter.k8s.aws/instance-size',
  InstanceCapabilityFlex: 'karpenter.k8s.aws/instance-capability-flex',
  InstanceCPU: 'karpenter.k8s.aws/instance-cpu',
  InstanceCPUManufacturer: 'karpenter.k8s.aws/instance-cpu-manufacturer',
  InstanceCPUSustainedClockSpeedMhz: 'karpenter.k8s.aws/instance-cpu-sustained-clock-speed-mhz',
  InstanceMemory: 'karpenter.k8s.aws/instance-memory',
  InstanceHypervisor: 'karpenter.k8s.aws/instance-hypervisor',
  InstanceEncryptionInTransitSupported:
    'karpenter.k8s.aws/instance-encryption-in-transit-supported',
  InstanceEBSBandwidth: 'karpenter.k8s.aws/instance-ebs-bandwidth',
  InstanceNetworkBandwidth: 'karpenter.k8s.aws/instance-network-bandwidth',
  InstanceLocalNVME: 'karpenter.k8s.aws/instance-local-nvme',
  InstanceGPUName: 'karpenter.k8s.aws/instance-gpu-name',
  InstanceGPUManufacturer: 'karpenter.k8s.aws/instance-gpu-manufacturer',
  InstanceGPUCount: 'karpenter.k8s.aws/instance-gpu-count',
  InstanceGPUMemory: 'karpenter.k8s.aws/instance-gpu-memory',
  InstanceAcceleratorName: 'karpenter.k8s.aws/instance-accelerator-name',
  InstanceAcceleratorManufacturer: 'karpenter.k8s.aws/instance-accelerator-manufacturer',
  InstanceAcceleratorCount: 'karpenter.k8s.aws/instance-accelerator-count',
  InstanceTenancy: 'karpenter.k8s.aws/instance-tenancy',
  CapacityReservationID: 'karpenter.k8s.aws/capacity-reservation-id',
  CapacityReservationType: 'karpenter.k8s.aws/capacity-reservation-type',
  CapacityReservationInterruptible: 'karpenter.k8s.aws/capacity-reservation-interruptible',
  PlacementGroupID: 'karpenter.k8s.aws/placement-group-id',
  PlacementGroupPartition: 'karpenter.k8s.aws/placement-group-partition',
  EC2NodeClass: 'karpenter.k8s.aws/ec2nodeclass',
  TopologyZoneID: 'topology.k8s.aws/zone-id',
} as const;

/**
 * Label keys the AWS provider adds to the well-known set: pods may require them even when no
 * NodePool mentions them.
 */
export const AwsWellKnownLabels: ReadonlySet<string> = new Set(
  Object.values(AwsLabels).filter((k) => k !== AwsLabels.EC2NodeClass),
);

/** Label domain the AWS provider restricts on NodePools (besides its well-known labels). */
export const AwsRestrictedLabelDomains: ReadonlySet<string> = new Set(['karpenter.k8s.aws']);

/** Extended resources AWS nodes advertise. */
export const AwsResources = {
  NvidiaGPU: 'nvidia.com/gpu',
  AmdGPU: 'amd.com/gpu',
  HabanaGaudi: 'habana.ai/gaudi',
  Neuron: 'aws.amazon.com/neuron',
  NeuronCore: 'aws.amazon.com/neuroncore',
  EFA: 'vpc.amazonaws.com/efa',
  PodENI: 'vpc.amazonaws.com/pod-eni',
  PrivateIPv4Address: 'vpc.amazonaws.com/PrivateIPv4Address',
} as const;

/** `node.kubernetes.io/windows-build` per Windows family. */
export const WindowsBuilds: Readonly<Record<string, string>> = {
  Windows2019: '10.0.17763',
  Windows2022: '10.0.20348',
  Windows2025: '10.0.26100',
};
