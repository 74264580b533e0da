/**
 * Converts a Kubernetes structural OpenAPI v3 schema (as found in a CRD version) into a JSON
 * Schema that ajv evaluates with the same meaning for the value validations the apiserver runs:
 * `nullable` becomes a `null` type alternative, `x-kubernetes-int-or-string` becomes
 * integer-or-string, `x-kubernetes-*` extensions, `default`, `description` and `example` are
 * dropped (defaults, unknown fields and CEL are handled by our own walkers). Unknown properties
 * are not rejected here: pruning semantics are reported separately.
 */
export type OpenApiSchema = Record<string, unknown>;

const DROPPED = new Set(['description', 'default', 'example', 'externalDocs', 'nullable']);

/** Returns a new JSON Schema object for ajv; the input is not modified. */
export function openApiToJsonSchema(schema: OpenApiSchema): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(schema)) {
    if (DROPPED.has(key) || key.startsWith('x-kubernetes-')) continue;
    if (key === 'properties' && isObject(value)) {
      out.properties = Object.fromEntries(
        Object.entries(value).map(([k, v]) => [k, openApiToJsonSchema(v as OpenApiSchema)]),
      );
    } else if (
      (key === 'items' || key === 'additionalProperties' || key === 'not') &&
      isObject(value)
    ) {
      out[key] = openApiToJsonSchema(value);
    } else if ((key === 'allOf' || key === 'anyOf' || key === 'oneOf') && Array.isArray(value)) {
      out[key] = value.map((v) => openApiToJsonSchema(v as OpenApiSchema));
    } else {
      out[key] = value;
    }
  }
  if (schema['x-kubernetes-int-or-string'] === true) {
    // The structural form already carries anyOf [integer, string]; make the type explicit.
    delete out.type;
    if (!out.anyOf) out.anyOf = [{ type: 'integer' }, { type: 'string' }];
  }
  if (schema['x-kubernetes-preserve-unknown-fields'] === true && out.type === undefined) {
    // Anything goes at this node.
  }
  if (schema.nullable === true) {
    if (typeof out.type === 'string') out.type = [out.type, 'null'];
    if (Array.isArray(out.enum)) out.enum = [...(out.enum as unknown[]), null];
  }
  return out;
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}
