/**
 * One hash of NodeClass-derived values, shared by the drift hash and the instance-type cache key:
 * hex sha256 over canonical JSON, so equal values hash equally whatever their key order.
 */
import { createHash } from 'node:crypto';

/** JSON with object keys sorted and `undefined`-valued keys dropped; arrays keep their order. */
function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(',')}}`;
  }
  return JSON.stringify(value);
}

/**
 * Hex sha256 (64 characters) of `value` as canonical JSON: object key order does not matter,
 * keys whose value is `undefined` are the same as absent, array order matters.
 */
export function canonicalSha256(value: unknown): string {
  return createHash('sha256').update(canonicalJson(value)).digest('hex');
}
