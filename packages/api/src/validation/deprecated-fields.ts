/**
 * Fields from older Karpenter APIs (v1alpha5 Provisioner/Machine, v1beta1 NodePool/NodeClaim)
 * that users still paste into karpenter.sh/v1 objects. A real apiserver prunes them silently (or
 * rejects them as unknown under strict field validation); we say what replaced each one.
 */

/** Field path (dotted, no indexes) → what replaced it. */
export type DeprecatedFields = Readonly<Record<string, string>>;

/** Replacement hints for karpenter.sh/v1 NodePool. */
export const NodePoolDeprecatedFields: DeprecatedFields = {
  'spec.ttlSecondsAfterEmpty':
    'v1alpha5 field: use spec.disruption.consolidationPolicy: WhenEmpty with spec.disruption.consolidateAfter (a duration such as 30s)',
  'spec.ttlSecondsUntilExpired':
    'v1alpha5 field: use spec.template.spec.expireAfter (a duration such as 720h, or Never)',
  'spec.consolidation':
    'v1alpha5 field (consolidation.enabled): use spec.disruption.consolidationPolicy: WhenEmptyOrUnderutilized and spec.disruption.consolidateAfter',
  'spec.providerRef':
    'v1alpha5 field: use spec.template.spec.nodeClassRef {group, kind, name} (e.g. group karpenter.azure.com, kind AKSNodeClass)',
  'spec.provider':
    'v1alpha5 inline provider settings: move them into a NodeClass (AKSNodeClass or EC2NodeClass) referenced by spec.template.spec.nodeClassRef',
  'spec.kubeletConfiguration':
    'v1alpha5 field: kubelet settings live on the NodeClass (spec.kubelet) in v1',
  'spec.labels': 'v1alpha5 field: use spec.template.metadata.labels',
  'spec.annotations': 'v1alpha5 field: use spec.template.metadata.annotations',
  'spec.taints': 'v1alpha5 field: use spec.template.spec.taints',
  'spec.startupTaints': 'v1alpha5 field: use spec.template.spec.startupTaints',
  'spec.requirements': 'v1alpha5 field: use spec.template.spec.requirements',
  'spec.disruption.expireAfter':
    'v1beta1 field: moved to spec.template.spec.expireAfter in karpenter.sh/v1',
  'spec.template.spec.kubelet':
    'v1beta1 field: kubelet settings moved to the NodeClass (spec.kubelet) in karpenter.sh/v1',
  'spec.template.spec.nodeClassRef.apiVersion':
    'v1beta1 field: karpenter.sh/v1 uses nodeClassRef.group (e.g. karpenter.azure.com) instead of apiVersion',
  'spec.template.spec.resources': 'v1beta1 field: a NodePool template cannot set resources',
  'spec.limits.resources':
    'v1alpha5 layout (limits.resources.<name>): put resource limits directly under spec.limits (e.g. spec.limits.cpu: "1000")',
};

/** Replacement hints for karpenter.sh/v1 NodeClaim. */
export const NodeClaimDeprecatedFields: DeprecatedFields = {
  'spec.kubelet':
    'v1beta1 field: kubelet settings moved to the NodeClass (spec.kubelet) in karpenter.sh/v1',
  'spec.nodeClassRef.apiVersion':
    'v1beta1 field: karpenter.sh/v1 uses nodeClassRef.group (e.g. karpenter.azure.com) instead of apiVersion',
};

/** Enum values that were renamed: `path` → old value → hint. */
export const RenamedValues: Readonly<Record<string, Readonly<Record<string, string>>>> = {
  'spec.disruption.consolidationPolicy': {
    WhenUnderutilized: 'v1beta1 value: renamed to WhenEmptyOrUnderutilized in karpenter.sh/v1',
  },
};

/** Older apiVersion/kind pairs and what to use instead. */
export const UnsupportedVersions: Readonly<Record<string, string>> = {
  'karpenter.sh/v1alpha5/Provisioner':
    'karpenter.sh/v1alpha5 Provisioner is no longer served: convert it to a karpenter.sh/v1 NodePool',
  'karpenter.sh/v1alpha5/Machine':
    'karpenter.sh/v1alpha5 Machine is no longer served: it became the karpenter.sh/v1 NodeClaim',
  'karpenter.sh/v1beta1/NodePool':
    'karpenter.sh/v1beta1 is no longer served: change apiVersion to karpenter.sh/v1 and migrate the fields',
  'karpenter.sh/v1beta1/NodeClaim':
    'karpenter.sh/v1beta1 is no longer served: change apiVersion to karpenter.sh/v1',
};
