/**
 * The kinds a cluster snapshot may hold, and what the reader does with each: read (NodePools,
 * NodeClaims, NodeClasses, Nodes, Pods, workloads, DaemonSets, PodDisruptionBudgets,
 * LimitRanges, PersistentVolumeClaims, PersistentVolumes, StorageClasses, CSINodes), ignored
 * with a reason (kinds that exist in every cluster but do not change scheduling or disruption
 * here), or unknown (a mistake: the wrong file, or a kind the reader would silently drop).
 */

/** Kinds the snapshot reader uses. */
export const READ_KINDS: readonly string[] = [
  'Node',
  'Pod',
  'NodeClaim',
  'NodePool',
  'AKSNodeClass',
  'EC2NodeClass',
  'SimNodeClass',
  'DaemonSet',
  'PodDisruptionBudget',
  'LimitRange',
  'PersistentVolumeClaim',
  'PersistentVolume',
  'StorageClass',
  'CSINode',
  'Deployment',
  'ReplicaSet',
  'ReplicationController',
  'StatefulSet',
  'Job',
  'CronJob',
];

const VOLUMES =
  'volume attachments and CSI drivers do not change placement (PVCs, PVs, StorageClasses and CSINodes do)';
const IRRELEVANT = 'does not change scheduling or disruption';

/** Kinds the reader knows and leaves out, by kind, with why. */
export const IGNORED_KINDS: Readonly<Record<string, string>> = {
  VolumeAttachment: VOLUMES,
  CSIDriver: VOLUMES,
  CSIStorageCapacity: VOLUMES,
  HorizontalPodAutoscaler: 'replica autoscaling is not modelled: the replicas as written count',
  PriorityClass: 'pod priority and preemption are not modelled',
  ControllerRevision: IRRELEVANT,
  Service: IRRELEVANT,
  Endpoints: IRRELEVANT,
  EndpointSlice: IRRELEVANT,
  Ingress: IRRELEVANT,
  IngressClass: IRRELEVANT,
  NetworkPolicy: IRRELEVANT,
  ConfigMap: IRRELEVANT,
  Secret: IRRELEVANT,
  ServiceAccount: IRRELEVANT,
  Namespace: IRRELEVANT,
  Role: IRRELEVANT,
  RoleBinding: IRRELEVANT,
  ClusterRole: IRRELEVANT,
  ClusterRoleBinding: IRRELEVANT,
  Event: IRRELEVANT,
  Lease: IRRELEVANT,
  ResourceQuota: IRRELEVANT,
  PodTemplate: IRRELEVANT,
  RuntimeClass: IRRELEVANT,
  CustomResourceDefinition: IRRELEVANT,
  APIService: IRRELEVANT,
  MutatingWebhookConfiguration: IRRELEVANT,
  ValidatingWebhookConfiguration: IRRELEVANT,
  ValidatingAdmissionPolicy: IRRELEVANT,
  ValidatingAdmissionPolicyBinding: IRRELEVANT,
  CertificateSigningRequest: IRRELEVANT,
  ComponentStatus: IRRELEVANT,
  FlowSchema: IRRELEVANT,
  PriorityLevelConfiguration: IRRELEVANT,
};

/** Why the reader leaves out objects of `kind`, or undefined when it does not know the kind. */
export function ignoredKindReason(kind: string): string | undefined {
  return Object.hasOwn(IGNORED_KINDS, kind) ? IGNORED_KINDS[kind] : undefined;
}

/** The message for an object of a kind the reader does not know. */
export function unknownKindMessage(kind: string, apiVersion: string): string {
  return `${JSON.stringify(kind)} (${apiVersion}) is not a kind a cluster snapshot holds: the reader uses ${READ_KINDS.join(', ')} and leaves out ${Object.keys(IGNORED_KINDS).length} kinds that do not change scheduling (Service, ConfigMap, VolumeAttachment, …; see docs/cli.md); remove it from the input`;
}
