/**
 * The apiserver's checks of `x-kubernetes-list-type` (apiextensions' structural list-type
 * validation): a `set` lists each value once, and a `map` holds one entry per key tuple of its
 * `x-kubernetes-list-map-keys`. They run beside the OpenAPI checks, on the defaulted object.
 */
import type { OpenApiSchema } from './openapi-to-json-schema.js';
import { additionalProperties, isPlainObject, items, properties } from './schema-nodes.js';
import type { PathSegment } from './violation.js';

/** One duplicate: the path of the later item and why (one line). */
export interface ListTypeProblem {
  path: PathSegment[];
  message: string;
}

/** Every duplicate item of a `set` or `map` list in `value` under `schema`. */
export function listTypeViolations(
  schema: OpenApiSchema,
  value: unknown,
  path: PathSegment[] = [],
  out: ListTypeProblem[] = [],
): ListTypeProblem[] {
  if (Array.isArray(value)) {
    const listType = schema['x-kubernetes-list-type'];
    if (listType === 'set') duplicatesInSet(value, path, out);
    else if (listType === 'map') duplicatesInMap(schema, value, path, out);
    const it = items(schema);
    if (it) value.forEach((item, i) => listTypeViolations(it, item, [...path, i], out));
  } else if (isPlainObject(value)) {
    const props = properties(schema);
    const addl = additionalProperties(schema);
    for (const [key, v] of Object.entries(value)) {
      const sub = props && Object.hasOwn(props, key) ? props[key] : addl;
      if (sub) listTypeViolations(sub, v, [...path, key], out);
    }
  }
  return out;
}

function duplicatesInSet(list: unknown[], path: PathSegment[], out: ListTypeProblem[]): void {
  const seen = new Set<string>();
  list.forEach((item, i) => {
    const id = JSON.stringify(item);
    if (seen.has(id))
      out.push({
        path: [...path, i],
        message: `duplicate value ${id}: this list is a set, each value may appear once`,
      });
    else seen.add(id);
  });
}

function duplicatesInMap(
  schema: OpenApiSchema,
  list: unknown[],
  path: PathSegment[],
  out: ListTypeProblem[],
): void {
  const keys = schema['x-kubernetes-list-map-keys'];
  if (!Array.isArray(keys) || keys.length === 0) return;
  const names = keys.map(String);
  const seen = new Set<string>();
  list.forEach((item, i) => {
    if (!isPlainObject(item)) return;
    const tuple = names.map((k) => item[k]);
    const id = JSON.stringify(tuple);
    if (seen.has(id)) {
      const described = names.map((k, j) => `${k} ${JSON.stringify(tuple[j])}`).join(', ');
      out.push({
        path: [...path, i],
        message: `duplicate entry for ${described}: this list holds one entry per ${names.join(', ')}`,
      });
    } else seen.add(id);
  });
}
