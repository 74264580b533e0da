/**
 * Evaluates every `x-kubernetes-validations` rule of a structural schema against an object, the
 * way the apiserver does: each rule runs at its own schema node with `self` bound to the value
 * there (inside arrays and maps through `items` / `additionalProperties`), integers as CEL ints,
 * and `oldSelf` bound to the correlated old value. Transition rules (those reading `oldSelf`) run
 * only when an old value correlates: through object properties, map keys, and `map`-type list
 * keys, never through atomic or set lists. A rule is not run where the value has the wrong type
 * (the schema error is reported instead). A failing `self.all(...)` rule is re-run per element so
 * the violation names the offending element's path.
 */
import { celProgram, isTransitionRule } from './cel-environment.js';
import type { OpenApiSchema } from './openapi-to-json-schema.js';
import {
  additionalProperties,
  celRules,
  isPlainObject,
  items,
  properties,
} from './schema-nodes.js';
import type { CelRule } from './schema-nodes.js';
import type { PathSegment } from './violation.js';

/** A failed rule: where, which rule, and the message to show. */
export interface CelFailure {
  path: PathSegment[];
  rule: CelRule;
  message: string;
}

/** Pass as `old` when there is no old object (a CREATE): transition rules are skipped. */
export const NO_OLD_VALUE: unique symbol = Symbol('no old value');
const ABSENT = NO_OLD_VALUE;

/** Runs all rules; `skip(path)` says whether a node has a type error and must not be evaluated. */
export function evaluateCelRules(
  schema: OpenApiSchema,
  value: unknown,
  old: unknown,
  path: PathSegment[],
  skip: (path: PathSegment[]) => boolean,
  failures: CelFailure[],
): void {
  if (value === undefined || value === null) return;
  if (skip(path)) return;
  for (const rule of celRules(schema)) {
    const transition = isTransitionRule(rule.rule);
    if (transition && old === ABSENT && rule.optionalOldSelf !== true) continue;
    const failure = runRule(schema, rule, value, old === ABSENT ? undefined : old, path);
    if (failure) failures.push(...failure);
  }
  if (isPlainObject(value)) {
    const props = properties(schema);
    const addl = additionalProperties(schema);
    const oldObj = isPlainObject(old) ? old : undefined;
    for (const [key, child] of Object.entries(value)) {
      const sub = props?.[key] ?? addl;
      if (!sub) continue;
      const oldChild = oldObj && key in oldObj ? oldObj[key] : ABSENT;
      evaluateCelRules(sub, child, oldChild, [...path, key], skip, failures);
    }
  } else if (Array.isArray(value)) {
    const it = items(schema);
    if (!it) return;
    const keys =
      schema['x-kubernetes-list-type'] === 'map'
        ? (schema['x-kubernetes-list-map-keys'] as string[] | undefined)
        : undefined;
    value.forEach((element, i) => {
      let oldElement: unknown = ABSENT;
      if (keys && Array.isArray(old)) {
        const match = old.find(
          (o) =>
            isPlainObject(o) && isPlainObject(element) && keys.every((k) => o[k] === element[k]),
        );
        if (match !== undefined) oldElement = match;
      }
      evaluateCelRules(it, element, oldElement, [...path, i], skip, failures);
    });
  }
}

function runRule(
  schema: OpenApiSchema,
  rule: CelRule,
  value: unknown,
  old: unknown,
  path: PathSegment[],
): CelFailure[] | undefined {
  const context: Record<string, unknown> = { self: toCel(schema, value) };
  if (old !== undefined) context.oldSelf = toCel(schema, old);
  const outcome = evaluate(rule.rule, context);
  if (outcome === true) return undefined;
  const at = rule.fieldPath ? [...path, ...parseFieldPath(rule.fieldPath)] : path;
  const message = messageFor(rule, context, outcome);
  const refined = refineAll(schema, rule, value, old, path);
  if (refined && refined.length > 0) return refined;
  return [{ path: at, rule, message }];
}

/** For `self.all(x, ...)` rules on lists and maps, finds the elements that break the rule. */
function refineAll(
  schema: OpenApiSchema,
  rule: CelRule,
  value: unknown,
  old: unknown,
  path: PathSegment[],
): CelFailure[] | undefined {
  if (!/^\s*self\.all\(/.test(rule.rule) || rule.fieldPath || isTransitionRule(rule.rule))
    return undefined;
  const failures: CelFailure[] = [];
  if (Array.isArray(value)) {
    value.forEach((element, i) => {
      const context = { self: toCel(schema, [element]) };
      const outcome = evaluate(rule.rule, context);
      if (outcome !== true)
        failures.push({ path: [...path, i], rule, message: messageFor(rule, context, outcome) });
    });
  } else if (isPlainObject(value)) {
    for (const [key, v] of Object.entries(value)) {
      const context = { self: toCel(schema, { [key]: v }) };
      const outcome = evaluate(rule.rule, context);
      if (outcome !== true)
        failures.push({ path: [...path, key], rule, message: messageFor(rule, context, outcome) });
    }
  }
  void old;
  return failures;
}

/** `true`, `false`, or the evaluation error's message. */
function evaluate(rule: string, context: Record<string, unknown>): true | false | string {
  try {
    const result = celProgram(rule)(context);
    if (result === true) return true;
    if (result === false) return false;
    return `the rule returned ${typeof result}, not a boolean`;
  } catch (error) {
    return firstLine(error instanceof Error ? error.message : String(error));
  }
}

function messageFor(
  rule: CelRule,
  context: Record<string, unknown>,
  outcome: false | string,
): string {
  let message = rule.message ?? `failed rule: ${rule.rule}`;
  if (rule.messageExpression) {
    try {
      const m = celProgram(rule.messageExpression)(context);
      if (typeof m === 'string' && m.trim() !== '') message = m;
    } catch {
      // The apiserver falls back to `message` when messageExpression fails; so do we.
    }
  }
  return typeof outcome === 'string'
    ? `${message} (rule could not be evaluated: ${evaluationProblem(outcome)})`
    : message;
}

/**
 * Why a rule could not run, in plain words. The apiserver reports the rule's message together
 * with the evaluation error (`no such key: x evaluating rule: <message>`); we say what that error
 * means for the object: a field the rule reads is missing (`the field it reads, x, is missing`),
 * a value is not an integer or a number, an item is missing, a value overflows. Other errors keep
 * the evaluator's text.
 */
export function evaluationProblem(error: string): string {
  const missing = /^No such key: index out of bounds, index (\S+)/i.exec(error);
  if (missing) return `the rule reads item ${missing[1]}, which is missing`;
  const key = /^No such key: (.+)$/i.exec(error);
  if (key) return `the field it reads, ${key[1]}, is missing`;
  const conversion = /cannot convert to (int|uint|double)/.exec(error);
  if (conversion)
    return `a value it reads is not ${conversion[1] === 'double' ? 'a number' : 'an integer'}`;
  if (/overflow/.test(error)) return 'a value it reads is too large';
  return error;
}

function firstLine(text: string): string {
  return text.split('\n')[0]?.trim() ?? text;
}

/** `.spec.foo['bar'].baz` → ['spec', 'foo', 'bar', 'baz']. */
function parseFieldPath(fieldPath: string): PathSegment[] {
  const out: PathSegment[] = [];
  const re = /\.([A-Za-z_][A-Za-z0-9_]*)|\['([^']*)'\]|\[(\d+)\]/g;
  for (const m of fieldPath.matchAll(re)) {
    if (m[1] !== undefined) out.push(m[1]);
    else if (m[2] !== undefined) out.push(m[2]);
    else if (m[3] !== undefined) out.push(Number(m[3]));
  }
  return out;
}

/**
 * Converts JSON data to CEL values by schema: `integer` (and integral int-or-string) numbers
 * become BigInt (CEL int), other numbers stay doubles; unknown structure is converted
 * generically (integral numbers → int).
 */
export function toCel(schema: OpenApiSchema | undefined, value: unknown): unknown {
  if (typeof value === 'number') {
    if (
      !schema ||
      schema.type === 'integer' ||
      schema['x-kubernetes-int-or-string'] === true ||
      schema.type === undefined
    ) {
      return Number.isInteger(value) ? BigInt(value) : value;
    }
    return value;
  }
  if (Array.isArray(value)) {
    const it = schema ? items(schema) : undefined;
    return value.map((v) => toCel(it, v));
  }
  if (isPlainObject(value)) {
    const props = schema ? properties(schema) : undefined;
    const addl = schema ? additionalProperties(schema) : undefined;
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) out[k] = toCel(props?.[k] ?? addl, v);
    return out;
  }
  return value;
}
