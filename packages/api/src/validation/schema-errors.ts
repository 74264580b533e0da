/**
 * Runs the OpenAPI value validations of a CRD version through ajv and words each error plainly.
 */
import { Ajv } from 'ajv';
import type { ErrorObject, ValidateFunction } from 'ajv';
import * as ajvFormats from 'ajv-formats';
import type { OpenApiSchema } from './openapi-to-json-schema.js';
import { openApiToJsonSchema } from './openapi-to-json-schema.js';
import type { PathSegment } from './violation.js';

/** A schema error: where, which keyword, and the message. */
export interface SchemaError {
  path: PathSegment[];
  keyword: string;
  message: string;
}

type FormatsPlugin = (ajv: Ajv, formats: string[]) => Ajv;
const addFormats = (
  ajvFormats as unknown as { default: FormatsPlugin | { default: FormatsPlugin } }
).default;
const formatsPlugin: FormatsPlugin =
  typeof addFormats === 'function' ? addFormats : addFormats.default;

const INT32 = { min: -(2 ** 31), max: 2 ** 31 - 1 };

/**
 * The RegExp of a CRD `pattern`, which the apiserver runs with Go's regexp: Go's leading `(?i)`
 * (case-insensitive, as in upstream's AKSNodeClass `vnetSubnetID`) has no inline form in
 * JavaScript, so it becomes the `i` flag.
 */
const goPattern = Object.assign(
  (pattern: string, flags: string): RegExp =>
    pattern.startsWith('(?i)')
      ? new RegExp(pattern.slice(4), `${flags}i`)
      : new RegExp(pattern, flags),
  { code: 'goPattern' },
);

/** Compiles a version's schema. Throws ajv's error if the schema itself is malformed. */
export function compileSchema(schema: OpenApiSchema): ValidateFunction {
  const ajv = new Ajv({
    code: { regExp: goPattern },
    allErrors: true,
    // YAML reads 1e400 and .inf as Infinity and .nan as NaN; JSON (so the apiserver) has neither.
    strictNumbers: true,
    strict: false,
    unicodeRegExp: false,
    validateFormats: true,
    verbose: true,
  });
  formatsPlugin(ajv, [
    'date-time',
    'date',
    'uri',
    'email',
    'hostname',
    'ipv4',
    'ipv6',
    'uuid',
    'byte',
  ]);
  ajv.addFormat('int32', {
    type: 'number',
    validate: (n: number) => Number.isInteger(n) && n >= INT32.min && n <= INT32.max,
  });
  ajv.addFormat('int64', { type: 'number', validate: (n: number) => Number.isSafeInteger(n) });
  ajv.addFormat('double', { type: 'number', validate: () => true });
  ajv.addFormat('float', { type: 'number', validate: () => true });
  return ajv.compile(openApiToJsonSchema(schema));
}

/** Validates and returns plain-worded errors (anyOf branch noise folded into one error). */
export function schemaErrors(validate: ValidateFunction, value: unknown): SchemaError[] {
  validate(value);
  const errors = validate.errors ?? [];
  const anyOfPaths = new Set(
    errors.filter((e) => e.keyword === 'anyOf').map((e) => e.instancePath),
  );
  const out: SchemaError[] = [];
  for (const e of errors) {
    // ajv reports each failed anyOf branch, then the anyOf itself; keep only the summary.
    if (e.keyword !== 'anyOf' && anyOfPaths.has(e.instancePath) && e.schemaPath.includes('/anyOf/'))
      continue;
    const path = pointerToSegments(e.instancePath, value);
    if (e.keyword === 'required')
      path.push(String((e.params as { missingProperty: string }).missingProperty));
    out.push({ path, keyword: e.keyword, message: describe(e) });
  }
  return out;
}

function describe(e: ErrorObject): string {
  const message = plainMessage(e);
  return typeof e.data === 'number' && !Number.isFinite(e.data)
    ? `${message} ${nonFiniteHint(e.data)}`
    : message;
}

/** Why a YAML value is a number JSON cannot carry, and the way out. */
function nonFiniteHint(n: number): string {
  return Number.isNaN(n)
    ? '(YAML reads .nan as not-a-number, which JSON cannot carry; quote it to write a string)'
    : '(YAML reads .inf and unquoted numbers beyond ±1.8e308, such as 1e400, as infinity, which JSON cannot carry; quote it to write a string)';
}

/**
 * The quoted form of a number where a string belongs, when the field's pattern (ajv's verbose
 * `parentSchema`) accepts it: `"10"`, or for a duration such as `consolidateAfter: 30`, the
 * number in seconds (`"30s"`); nothing when neither would be valid.
 */
function quoteHint(n: number, e: ErrorObject): string {
  const text = String(n);
  const pattern = (e.parentSchema as { pattern?: unknown } | undefined)?.pattern;
  let accepts = (_: string) => true;
  if (typeof pattern === 'string') {
    try {
      const re = new RegExp(pattern, 'u');
      accepts = (s) => re.test(s);
    } catch {
      // A pattern JavaScript cannot read: offer the plain quoted form.
    }
  }
  if (accepts(text)) return ` (write it in quotes: "${text}")`;
  if (accepts(`${text}s`)) return ` (a duration, in quotes with its unit: "${text}s")`;
  return '';
}

function plainMessage(e: ErrorObject): string {
  const p = e.params as Record<string, unknown>;
  const got = show(e.data);
  switch (e.keyword) {
    case 'required':
      return 'required field is missing';
    case 'type': {
      const want = String(p.type);
      const hint =
        want.startsWith('string') && typeof e.data === 'number' ? quoteHint(e.data, e) : '';
      return `must be ${article(want)}, got ${typeName(e.data)} ${got}${hint}`;
    }
    case 'enum':
      return `must be one of ${(p.allowedValues as unknown[]).map((v) => show(v)).join(', ')}; got ${got}`;
    case 'pattern':
      return `${got} ${patternMeaning(String(p.pattern))}`;
    case 'maxLength':
      return `must be at most ${String(p.limit)} characters long (has ${String(typeof e.data === 'string' ? e.data.length : '?')})`;
    case 'minLength':
      return Number(p.limit) === 1
        ? 'must not be empty'
        : `must be at least ${String(p.limit)} characters long`;
    case 'maximum':
      return `must be at most ${String(p.limit)}, got ${got}`;
    case 'minimum':
      return `must be at least ${String(p.limit)}, got ${got}`;
    case 'maxItems':
      return `must have at most ${String(p.limit)} items (has ${Array.isArray(e.data) ? e.data.length : '?'})`;
    case 'minItems':
      return `must have at least ${String(p.limit)} items`;
    case 'maxProperties':
      return `must have at most ${String(p.limit)} entries (has ${e.data && typeof e.data === 'object' ? Object.keys(e.data).length : '?'})`;
    case 'minProperties':
      return `must have at least ${String(p.limit)} entries`;
    case 'anyOf':
      return `must be an integer or a string, got ${typeName(e.data)} ${got}`;
    case 'format':
      return `${got} is not a valid ${formatName(String(p.format))}`;
    case 'uniqueItems':
      return 'must not contain duplicate items';
    default:
      return e.message ?? `violates ${e.keyword}`;
  }
}

const QUANTITY = String.raw`^(\+|-)?(([0-9]+(\.[0-9]*)?)|(\.[0-9]+))(([KMGTPE]i)|[numkMGTPE]|([eE](\+|-)?(([0-9]+(\.[0-9]*)?)|(\.[0-9]+))))?$`;
const LABEL_VALUE = '^(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?$';
const QUALIFIED_NAME = String.raw`^([a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*(\/))?([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]$`;

const PATTERN_MEANINGS: Record<string, string> = {
  [QUANTITY]: 'is not a Kubernetes quantity (examples: 100, 500m, 1.5, 16Gi, 1e3)',
  [LABEL_VALUE]:
    'is not a valid label value (letters, digits, "-", "_", "." inside; must start and end with a letter or digit; may be empty)',
  [QUALIFIED_NAME]:
    'is not a valid qualified name (optional DNS subdomain prefix and "/", then a name of letters, digits, "-", "_", ".")',
  '^(([0-9]+(s|m|h))+|Never)$':
    'is not a duration of hours/minutes/seconds (such as 30s, 10m, 1h30m, 720h) or Never',
  '^([0-9]+(s|m|h))+$':
    'is not a duration of hours/minutes/seconds (such as 30s, 10m, 1h30m); Never is not allowed here',
  '^((100|[0-9]{1,2})%|[0-9]+)$':
    'is not a node count ("5") or a percentage from 0% to 100% ("10%")',
  '^((([0-9]+(h|m))|([0-9]+h[0-9]+m))(0s)?)$':
    'is not a budget duration of hours and/or minutes (such as 30m, 8h, 1h30m)',
  [String.raw`^(@(annually|yearly|monthly|weekly|daily|midnight|hourly))|((.+)\s(.+)\s(.+)\s(.+)\s(.+))$`]:
    'is not a cron schedule (5 fields such as "0 9 * * 1-5", or @daily, @hourly, ...)',
  '^[^/]*$': 'must not contain "/" (give the API group only, such as karpenter.azure.com)',
  [String.raw`^\d+(\.\d+)?$`]: 'is not a price (a non-negative decimal such as 0.42)',
  [String.raw`(?i)^\/subscriptions\/[^\/]+\/resourceGroups\/[a-zA-Z0-9_\-().]{0,89}[a-zA-Z0-9_\-()]\/providers\/Microsoft\.Network\/virtualNetworks\/[^\/]+\/subnets\/[^\/]+$`]:
    'is not a subnet ID like /subscriptions/<sub>/resourceGroups/<rg>/providers/Microsoft.Network/virtualNetworks/<vnet>/subnets/<subnet>',
  [String.raw`^\d+(E|P|T|G|M|K|Ei|Pi|Ti|Gi|Mi|Ki)$`]:
    'is not a size with a unit (digits, then E, P, T, G, M, K, Ei, Pi, Ti, Gi, Mi or Ki, such as 50Mi)',
};

function patternMeaning(pattern: string): string {
  return PATTERN_MEANINGS[pattern] ?? `does not match the pattern ${pattern}`;
}

function formatName(format: string): string {
  return format === 'date-time'
    ? 'RFC 3339 date-time (such as 2024-01-02T15:04:05Z)'
    : `${format} value`;
}

function article(type: string): string {
  const t = type.replace(/,null$/, '');
  return /^[aeiou]/.test(t) ? `an ${t}` : `a ${t}`;
}

function typeName(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'a list';
  if (typeof v === 'object') return 'an object';
  if (typeof v === 'number') return Number.isInteger(v) ? 'integer' : 'number';
  return typeof v;
}

function show(v: unknown): string {
  if (typeof v === 'string') return JSON.stringify(v);
  if (typeof v === 'object' && v !== null) {
    const s = JSON.stringify(v);
    return s.length > 60 ? `${s.slice(0, 57)}...` : s;
  }
  return String(v);
}

/** JSON pointer (`/spec/limits/cpu`) → path segments, array indexes as numbers. */
export function pointerToSegments(pointer: string, root: unknown): PathSegment[] {
  if (pointer === '') return [];
  const out: PathSegment[] = [];
  let node: unknown = root;
  for (const raw of pointer.slice(1).split('/')) {
    const key = raw.replace(/~1/g, '/').replace(/~0/g, '~');
    if (Array.isArray(node)) {
      const i = Number(key);
      out.push(i);
      node = node[i];
    } else {
      out.push(key);
      node = node && typeof node === 'object' ? (node as Record<string, unknown>)[key] : undefined;
    }
  }
  return out;
}
