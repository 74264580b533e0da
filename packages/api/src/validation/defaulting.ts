/**
 * Structural defaulting as the apiserver does it for CRDs: walking the schema top-down, an absent
 * property (or a `null` one whose schema is not `nullable`) with a `default` gets a copy of that
 * default, and defaulting continues inside the value just set, so nested defaults apply too
 * (`disruption: {}` gains `consolidationPolicy` and `budgets`). Array items and map values are
 * defaulted by their `items` / `additionalProperties` schema.
 */
import type { OpenApiSchema } from './openapi-to-json-schema.js';
import {
  additionalProperties,
  cloneJson,
  isPlainObject,
  items,
  properties,
} from './schema-nodes.js';

/** Applies defaults in place to `value` (which must already be a private copy) and returns it. */
export function applySchemaDefaults(schema: OpenApiSchema, value: unknown): unknown {
  if (isPlainObject(value)) {
    const props = properties(schema);
    if (props) {
      for (const [name, sub] of Object.entries(props)) {
        const current = value[name];
        if (
          (current === undefined || (current === null && sub.nullable !== true)) &&
          sub.default !== undefined
        ) {
          value[name] = cloneJson(sub.default);
        }
        if (value[name] !== undefined) applySchemaDefaults(sub, value[name]);
      }
    }
    const addl = additionalProperties(schema);
    if (addl)
      for (const key of Object.keys(value))
        if (!props?.[key]) applySchemaDefaults(addl, value[key]);
  } else if (Array.isArray(value)) {
    const it = items(schema);
    if (it) for (const element of value) applySchemaDefaults(it, element);
  }
  return value;
}
