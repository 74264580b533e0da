/**
 * Checks scenario data against {@link SCENARIO_SCHEMA} (or another of the simulator's schemas,
 * the sweep's) with ajv and words each error as a {@link ScenarioProblem} on the line of the
 * offending field.
 */
import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import leven from 'leven';
import { fieldName, type ScenarioProblem } from './problems.js';
import { SCENARIO_SCHEMA } from './schema.js';
import type { YamlSource } from './yaml-source.js';

const compiled = new Map<object, ValidateFunction>();

function validator(schema: object): ValidateFunction {
  let validate = compiled.get(schema);
  if (validate === undefined) {
    validate = new Ajv({
      allErrors: true,
      discriminator: true,
      allowUnionTypes: true,
      // YAML reads .inf and 1e400 as Infinity and .nan as NaN: not numbers a scenario can use.
      strictNumbers: true,
      verbose: true,
    }).compile(schema);
    compiled.set(schema, validate);
  }
  return validate;
}

/** Every problem of the source's data against `schema` (default the scenario's; empty when it conforms). */
export function schemaProblems(
  source: YamlSource,
  schema: object = SCENARIO_SCHEMA,
): ScenarioProblem[] {
  return schemaFindings(source, schema).map((f) => f.problem);
}

/** A schema problem and the path of the field it is on (`['events', 2, 'at']`). */
export interface SchemaFinding {
  readonly problem: ScenarioProblem;
  readonly path: readonly (string | number)[];
}

/** {@link schemaProblems} with each problem's field path. */
export function schemaFindings(
  source: YamlSource,
  schema: object = SCENARIO_SCHEMA,
): SchemaFinding[] {
  const validate = validator(schema);
  if (validate(source.data)) return [];
  const out: SchemaFinding[] = [];
  const seen = new Set<string>();
  for (const e of validate.errors ?? []) {
    if (e.keyword === 'oneOf' || e.keyword === 'if') continue;
    const path = pointerSegments(e.instancePath);
    const { at, message } = describe(e, path);
    const problem = { file: source.file, line: source.lineOf(at), field: fieldName(at), message };
    const key = `${problem.line} ${problem.field} ${message}`;
    if (seen.has(key)) continue;
    seen.add(key);
    out.push({ problem, path: at });
  }
  // ajv reports a bad event type twice, by the discriminator and by the enum listing the types:
  // the enum's line says more, so the discriminator's goes.
  return out.filter(
    (f) =>
      !f.problem.message.startsWith('unknown event type') ||
      !out.some((g) => g !== f && g.problem.field === f.problem.field),
  );
}

function describe(
  e: ErrorObject,
  path: (string | number)[],
): { at: (string | number)[]; message: string } {
  const params = e.params as Record<string, unknown>;
  switch (e.keyword) {
    case 'additionalProperties': {
      const key = String(params.additionalProperty);
      const known = Object.keys(
        ((e.parentSchema as { properties?: object } | undefined)?.properties ?? {}) as object,
      );
      return { at: [...path, key], message: `unknown field${suggestion(key, known)}` };
    }
    case 'required':
      return { at: [...path, String(params.missingProperty)], message: 'required' };
    case 'const':
      return {
        at: path,
        message: `must be ${JSON.stringify(params.allowedValue)}; got ${shown(e.data)}`,
      };
    case 'enum':
      return {
        at: path,
        message: `must be one of ${(params.allowedValues as unknown[]).map((v) => JSON.stringify(v)).join(', ')}; got ${shown(e.data)}`,
      };
    case 'discriminator':
      return {
        at: [...path, String(params.tag)],
        message:
          params.error === 'tag'
            ? 'required: the event type'
            : `unknown event type ${shown(params.tagValue)}`,
      };
    case 'pattern':
      return {
        at: path,
        message: `not a duration: ${shown(e.data)} (seconds, or a duration such as 90s, 15m, 1h30m, 1d)`,
      };
    case 'type':
      return { at: path, message: `must be ${wordType(params.type)}; got ${typeName(e.data)}` };
    case 'minItems':
      return { at: path, message: `must have at least ${String(params.limit)} item(s)` };
    default:
      return { at: path, message: e.message ?? e.keyword };
  }
}

function suggestion(key: string, known: readonly string[]): string {
  let best: string | undefined;
  let distance = Infinity;
  for (const k of known) {
    const d = leven(key.toLowerCase(), k.toLowerCase());
    if (d < distance) [best, distance] = [k, d];
  }
  const hint =
    best !== undefined && distance <= Math.max(2, key.length / 3)
      ? `; did you mean "${best}"?`
      : '';
  return `${hint} (known: ${known.join(', ')})`;
}

function wordType(type: unknown): string {
  const types = Array.isArray(type) ? type : [type];
  return types
    .map((t) =>
      t === 'object'
        ? 'a mapping'
        : t === 'array'
          ? 'a list'
          : t === 'integer'
            ? 'a whole number'
            : `a ${t}`,
    )
    .join(' or ');
}

function typeName(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'a list';
  if (typeof value === 'object') return 'a mapping';
  if (typeof value === 'number' && !Number.isFinite(value)) return String(value);
  return `${typeof value} ${JSON.stringify(value)}`;
}

function shown(value: unknown): string {
  return typeof value === 'string' ? JSON.stringify(value) : String(JSON.stringify(value) ?? value);
}

function pointerSegments(pointer: string): (string | number)[] {
  if (pointer === '') return [];
  return pointer
    .slice(1)
    .split('/')
    .map((s) => s.replace(/~1/g, '/').replace(/~0/g, '~'))
    .map((s) => (/^\d+$/.test(s) ? Number(s) : s));
}
