/**
 * Where each kind the controllers use lives in the Kubernetes API: group, version, resource
 * (plural) and scope, and the REST paths built from them. NodeClass is not one kind but one per
 * provider (`AKSNodeClass`, `EC2NodeClass`, ...), each its own resource.
 */
import type { Kind } from '@karpenter-ts/controllers';

/** One API resource: `group` is `''` for the core group (`/api/v1`). */
export interface ResourceType {
  readonly group: string;
  readonly version: string;
  /** The resource name in URLs, e.g. `pods`, `nodeclaims`. */
  readonly plural: string;
  /** The object kind, e.g. `Pod`, `AKSNodeClass`. */
  readonly kind: string;
  readonly namespaced: boolean;
}

/** The `apiVersion` field of objects of this resource (`v1`, `karpenter.sh/v1`). */
export function apiVersionOf(resource: ResourceType): string {
  return resource.group === '' ? resource.version : `${resource.group}/${resource.version}`;
}

/** The resources of every kind except NodeClass (see {@link NodeClassResources}). */
export const BuiltinResources: Readonly<Record<Exclude<Kind, 'NodeClass'>, ResourceType>> = {
  Pod: { group: '', version: 'v1', plural: 'pods', kind: 'Pod', namespaced: true },
  Node: { group: '', version: 'v1', plural: 'nodes', kind: 'Node', namespaced: false },
  DaemonSet: {
    group: 'apps',
    version: 'v1',
    plural: 'daemonsets',
    kind: 'DaemonSet',
    namespaced: true,
  },
  PodDisruptionBudget: {
    group: 'policy',
    version: 'v1',
    plural: 'poddisruptionbudgets',
    kind: 'PodDisruptionBudget',
    namespaced: true,
  },
  LimitRange: {
    group: '',
    version: 'v1',
    plural: 'limitranges',
    kind: 'LimitRange',
    namespaced: true,
  },
  PersistentVolumeClaim: {
    group: '',
    version: 'v1',
    plural: 'persistentvolumeclaims',
    kind: 'PersistentVolumeClaim',
    namespaced: true,
  },
  PersistentVolume: {
    group: '',
    version: 'v1',
    plural: 'persistentvolumes',
    kind: 'PersistentVolume',
    namespaced: false,
  },
  StorageClass: {
    group: 'storage.k8s.io',
    version: 'v1',
    plural: 'storageclasses',
    kind: 'StorageClass',
    namespaced: false,
  },
  CSINode: {
    group: 'storage.k8s.io',
    version: 'v1',
    plural: 'csinodes',
    kind: 'CSINode',
    namespaced: false,
  },
  NodePool: {
    group: 'karpenter.sh',
    version: 'v1',
    plural: 'nodepools',
    kind: 'NodePool',
    namespaced: false,
  },
  NodeClaim: {
    group: 'karpenter.sh',
    version: 'v1',
    plural: 'nodeclaims',
    kind: 'NodeClaim',
    namespaced: false,
  },
  NodeOverlay: {
    group: 'karpenter.sh',
    version: 'v1alpha1',
    plural: 'nodeoverlays',
    kind: 'NodeOverlay',
    namespaced: false,
  },
};

/**
 * The NodeClass kinds of both providers, at the versions their CRDs store:
 * `AKSNodeClass` (`karpenter.azure.com/v1beta1`) and `EC2NodeClass` (`karpenter.k8s.aws/v1`).
 */
export const NodeClassResources: readonly ResourceType[] = [
  {
    group: 'karpenter.azure.com',
    version: 'v1beta1',
    plural: 'aksnodeclasses',
    kind: 'AKSNodeClass',
    namespaced: false,
  },
  {
    group: 'karpenter.k8s.aws',
    version: 'v1',
    plural: 'ec2nodeclasses',
    kind: 'EC2NodeClass',
    namespaced: false,
  },
];

/** Lease objects for leader election. */
export const LeaseResource: ResourceType = {
  group: 'coordination.k8s.io',
  version: 'v1',
  plural: 'leases',
  kind: 'Lease',
  namespaced: true,
};

/** core/v1 Events (what `kubectl describe` and `kubectl get events` show). */
export const EventResource: ResourceType = {
  group: '',
  version: 'v1',
  plural: 'events',
  kind: 'Event',
  namespaced: true,
};

/** CustomResourceDefinitions. */
export const CrdResource: ResourceType = {
  group: 'apiextensions.k8s.io',
  version: 'v1',
  plural: 'customresourcedefinitions',
  kind: 'CustomResourceDefinition',
  namespaced: false,
};

/**
 * The collection path: `/api/v1/namespaces/ns/pods`, `/apis/karpenter.sh/v1/nodepools`. Without
 * a namespace, a namespaced resource's path lists across all namespaces.
 */
export function collectionPath(resource: ResourceType, namespace?: string): string {
  const root =
    resource.group === '' ? `/api/${resource.version}` : `/apis/${apiVersionOf(resource)}`;
  const ns =
    resource.namespaced && namespace !== undefined
      ? `/namespaces/${encodeURIComponent(namespace)}`
      : '';
  return `${root}${ns}/${resource.plural}`;
}

/**
 * The path of one object, with an optional subresource (`status`, `eviction`).
 * @throws Error when a namespaced resource is addressed without a namespace.
 */
export function objectPath(
  resource: ResourceType,
  name: string,
  namespace?: string,
  subresource?: string,
): string {
  if (resource.namespaced && (namespace === undefined || namespace === '')) {
    throw new Error(`${resource.kind} ${name}: metadata.namespace is required`);
  }
  const base = `${collectionPath(resource, namespace)}/${encodeURIComponent(name)}`;
  return subresource === undefined ? base : `${base}/${subresource}`;
}
