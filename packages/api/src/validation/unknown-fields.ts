/**
 * Finds fields a structural schema does not declare (the ones the apiserver prunes), and removes
 * them from a copy to get the object the apiserver would actually store and validate.
 */
import type { OpenApiSchema } from './openapi-to-json-schema.js';
import type { PathSegment } from './violation.js';
import {
  additionalProperties,
  isPlainObject,
  items,
  preservesUnknownFields,
  properties,
} from './schema-nodes.js';

/** ObjectMeta fields the apiserver knows (anything else under `metadata` is pruned). */
const OBJECT_META_FIELDS = new Set([
  'name',
  'generateName',
  'namespace',
  'selfLink',
  'uid',
  'resourceVersion',
  'generation',
  'creationTimestamp',
  'deletionTimestamp',
  'deletionGracePeriodSeconds',
  'labels',
  'annotations',
  'ownerReferences',
  'finalizers',
  'managedFields',
]);

/**
 * Calls `found(path, known)` for every unknown field of `value` under `schema` (`known`: the
 * field names its mapping declares, for a did-you-mean), and deletes it when `prune`.
 */
export function walkUnknownFields(
  schema: OpenApiSchema,
  value: unknown,
  path: PathSegment[],
  found: (path: PathSegment[], known: readonly string[]) => void,
  prune: boolean,
): void {
  if (isPlainObject(value)) {
    if (path.length === 1 && path[0] === 'metadata') {
      for (const key of Object.keys(value)) {
        if (!OBJECT_META_FIELDS.has(key)) {
          found([...path, key], [...OBJECT_META_FIELDS]);
          if (prune) delete value[key];
        }
      }
      return;
    }
    if (preservesUnknownFields(schema) && !properties(schema) && !additionalProperties(schema))
      return;
    // An object where a scalar belongs is a type error (reported by the schema check), not a
    // bag of unknown fields.
    if (schema.type !== 'object' && !properties(schema) && !additionalProperties(schema)) return;
    const props = properties(schema);
    const addl = additionalProperties(schema);
    for (const key of Object.keys(value)) {
      const sub = props?.[key] ?? addl;
      if (sub) {
        walkUnknownFields(sub, value[key], [...path, key], found, prune);
      } else if (!preservesUnknownFields(schema) && schema.additionalProperties !== true) {
        found([...path, key], Object.keys(props ?? {}));
        if (prune) delete value[key];
      }
    }
  } else if (Array.isArray(value)) {
    const it = items(schema);
    if (it)
      value.forEach((element, i) => walkUnknownFields(it, element, [...path, i], found, prune));
  }
}
