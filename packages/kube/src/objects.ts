/**
 * How objects cross the wire: JSON from the API server becomes the shapes of
 * @karpenter-ts/api (the client's models, whose `metav1.Time` fields are `Date`), and back.
 *
 * Built-in kinds go through the client library's model serializer, as its typed API classes
 * do. Like client-go's typed structs, that drops fields the models do not know (fields newer
 * than the library), so an `update` (PUT) of a Pod or Node could clear such fields: write
 * objects owned by others (Pods, Nodes) with `patch`, as upstream Karpenter does. Custom
 * resources keep every field; only their `metadata` timestamps become `Date`.
 */
// The model serializer is not re-exported from the package index; the typed API classes use it.
import { ObjectSerializer } from '@kubernetes/client-node/dist/serializer.js';
import { apiVersionOf, type ResourceType } from './resources.js';

/** The client's model name of a built-in kind, e.g. `V1Pod`; undefined for custom resources. */
function modelOf(resource: ResourceType): string | undefined {
  const models: Record<string, string> = {
    Pod: 'V1Pod',
    Node: 'V1Node',
    DaemonSet: 'V1DaemonSet',
    PodDisruptionBudget: 'V1PodDisruptionBudget',
    Lease: 'V1Lease',
    LimitRange: 'V1LimitRange',
    PersistentVolumeClaim: 'V1PersistentVolumeClaim',
    PersistentVolume: 'V1PersistentVolume',
    StorageClass: 'V1StorageClass',
    CSINode: 'V1CSINode',
  };
  return resource.group === '' ||
    resource.group === 'apps' ||
    resource.group === 'policy' ||
    resource.group === 'storage.k8s.io' ||
    resource.group === 'coordination.k8s.io'
    ? models[resource.kind]
    : undefined;
}

/**
 * A JSON object from the API server in the typed shape, with `apiVersion` and `kind` set (list
 * items of built-in kinds arrive without them).
 */
export function fromServer<T>(resource: ResourceType, raw: unknown): T {
  const json = { ...(raw as Record<string, unknown>) };
  const model = modelOf(resource);
  let out: Record<string, unknown>;
  if (model !== undefined) {
    // Class instances become plain objects, so callers may structuredClone and spread them.
    out = structuredClone({ ...ObjectSerializer.deserialize(json, model) }) as Record<
      string,
      unknown
    >;
  } else {
    out = json;
    if (json.metadata !== undefined) {
      out.metadata = structuredClone({
        ...ObjectSerializer.deserialize(json.metadata, 'V1ObjectMeta'),
      });
    }
  }
  out.apiVersion = apiVersionOf(resource);
  out.kind = resource.kind;
  return out as T;
}

/** A typed object as the JSON the API server takes (`Date` becomes RFC 3339 text). */
export function toServer(resource: ResourceType, object: unknown): Record<string, unknown> {
  const json = JSON.parse(JSON.stringify(object)) as Record<string, unknown>;
  json.apiVersion = apiVersionOf(resource);
  json.kind = resource.kind;
  return json;
}
