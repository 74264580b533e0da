/**
 * Small typed accessors over structural OpenAPI v3 schema nodes.
 */
import type { OpenApiSchema } from './openapi-to-json-schema.js';

/** One `x-kubernetes-validations` entry. */
export interface CelRule {
  rule: string;
  message?: string;
  messageExpression?: string;
  reason?: string;
  fieldPath?: string;
  optionalOldSelf?: boolean;
}

export function properties(schema: OpenApiSchema): Record<string, OpenApiSchema> | undefined {
  const p = schema.properties;
  return isPlainObject(p) ? (p as Record<string, OpenApiSchema>) : undefined;
}

export function items(schema: OpenApiSchema): OpenApiSchema | undefined {
  return isPlainObject(schema.items) ? (schema.items as OpenApiSchema) : undefined;
}

export function additionalProperties(schema: OpenApiSchema): OpenApiSchema | undefined {
  return isPlainObject(schema.additionalProperties)
    ? (schema.additionalProperties as OpenApiSchema)
    : undefined;
}

export function celRules(schema: OpenApiSchema): CelRule[] {
  const v = schema['x-kubernetes-validations'];
  return Array.isArray(v) ? (v as CelRule[]) : [];
}

export function preservesUnknownFields(schema: OpenApiSchema): boolean {
  return schema['x-kubernetes-preserve-unknown-fields'] === true;
}

export function isPlainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** Deep copy of JSON-like data (objects, arrays, primitives). */
export function cloneJson<T>(value: T): T {
  return structuredClone(value);
}
