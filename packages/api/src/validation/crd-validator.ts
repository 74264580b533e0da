/**
 * `crdValidator(crd)`: offline validation, defaulting and pruning for any CustomResourceDefinition,
 * driven only by the CRD document (its structural schemas, `default`s and
 * `x-kubernetes-validations`), so what passes here is what a kube-apiserver would accept.
 */
import type { ValidateFunction } from 'ajv';
import { parse as parseYaml } from 'yaml';
import { didYouMean } from '../did-you-mean.js';
import { celProgram } from './cel-environment.js';
import { evaluateCelRules, NO_OLD_VALUE } from './cel-rules.js';
import type { CelFailure } from './cel-rules.js';
import { applySchemaDefaults } from './defaulting.js';
import type { DeprecatedFields } from './deprecated-fields.js';
import type { OpenApiSchema } from './openapi-to-json-schema.js';
import { compileSchema, schemaErrors } from './schema-errors.js';
import {
  additionalProperties,
  celRules,
  cloneJson,
  isPlainObject,
  items,
  properties,
} from './schema-nodes.js';
import { listTypeViolations } from './list-types.js';
import { objectMetaViolations } from './object-meta.js';
import { walkUnknownFields } from './unknown-fields.js';
import { formatPath } from './violation.js';
import type { PathSegment, Violation } from './violation.js';

/** Raised when a CRD document cannot be used: not a CRD, no served version, or a CEL rule our evaluator cannot parse. */
export class CrdDefinitionError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'CrdDefinitionError';
  }
}

/** Options for {@link crdValidator}. */
export interface CrdValidatorOptions {
  /** Hints for fields of older API versions: dotted path (no indexes) → what replaced it. */
  deprecatedFields?: DeprecatedFields;
  /** Hints for renamed enum values: dotted path → old value → hint. */
  renamedValues?: Readonly<Record<string, Readonly<Record<string, string>>>>;
  /** Hints for apiVersion/kind pairs no longer served: `group/version/Kind` → hint. */
  unsupportedVersions?: Readonly<Record<string, string>>;
}

/** Options for {@link CrdValidator.validate}. */
export interface ValidateOptions {
  /** The stored object this one updates; enables transition rules (`oldSelf`), as on an UPDATE. */
  oldObj?: unknown;
  /**
   * `'status'`: validate the object as a write to its status subresource (as the controller
   * writes status), `status` included. By default `status` is ignored where the CRD has a status
   * subresource, as the apiserver ignores it on create and update of the main resource.
   */
  subresource?: 'status';
}

/** Validator, defaulter and pruner for one CRD. */
export interface CrdValidator {
  /** API group, e.g. `karpenter.sh`. */
  readonly group: string;
  /** Kind, e.g. `NodePool`. */
  readonly kind: string;
  /** Plural resource name, e.g. `nodepools`. */
  readonly plural: string;
  /** `Cluster` or `Namespaced`. */
  readonly scope: string;
  /** Served versions, e.g. `['v1']`. */
  readonly versions: readonly string[];
  /** Whether `obj` has this CRD's group and kind (any version, served or not). */
  handles(obj: unknown): boolean;
  /** The structural OpenAPI v3 schema of a served version. @throws CrdDefinitionError for an unknown version. */
  schema(version: string): OpenApiSchema;
  /**
   * Returns a new object with the CRD's defaults applied (unknown fields kept). Objects of
   * another kind or an unserved version come back as an unchanged copy.
   */
  applyDefaults<T>(obj: T): T;
  /** Returns a new object without the fields the apiserver would prune (unchanged copy for other kinds). */
  prune<T>(obj: T): T;
  /**
   * Returns a new object without the `null` entries the apiserver drops before defaulting (a
   * null where the schema is neither nullable nor defaulted, such as `limits:` written with no
   * value); everything else, unknown fields included, is kept. Unchanged copy for other kinds.
   */
  dropNulls<T>(obj: T): T;
  /**
   * Every violation at once: version/kind, metadata.name, unknown (pruned) fields with hints for
   * fields of older APIs, OpenAPI value validations (type, enum, pattern, bounds, required,
   * formats), and every CEL rule at its schema node. Defaults are applied first, as the
   * apiserver does. Never throws for bad input.
   */
  validate(obj: unknown, options?: ValidateOptions): Violation[];
}

interface ServedVersion {
  name: string;
  schema: OpenApiSchema;
  /** The version has a status subresource: writes to the main resource never set `status`. */
  statusSubresource: boolean;
  compiled?: ValidateFunction;
}

/**
 * Builds a validator from a CRD (`apiextensions.k8s.io/v1` CustomResourceDefinition) given as a
 * parsed object or YAML text. Every CEL rule is parsed up front.
 * @throws CrdDefinitionError if the document is not a usable CRD or a rule cannot be parsed.
 */
export function crdValidator(crd: unknown, options: CrdValidatorOptions = {}): CrdValidator {
  const doc = typeof crd === 'string' ? (parseYaml(crd) as unknown) : crd;
  if (!isPlainObject(doc) || doc.kind !== 'CustomResourceDefinition' || !isPlainObject(doc.spec)) {
    throw new CrdDefinitionError('not a CustomResourceDefinition document');
  }
  const spec = doc.spec;
  const names = isPlainObject(spec.names) ? spec.names : {};
  const group = String(spec.group ?? '');
  const kind = String(names.kind ?? '');
  const versions: ServedVersion[] = [];
  for (const v of Array.isArray(spec.versions) ? spec.versions : []) {
    if (!isPlainObject(v) || v.served === false) continue;
    const schemaDoc = isPlainObject(v.schema) ? v.schema.openAPIV3Schema : undefined;
    if (!isPlainObject(schemaDoc))
      throw new CrdDefinitionError(`${kind} ${String(v.name)}: no openAPIV3Schema`);
    const subresources = isPlainObject(v.subresources) ? v.subresources : {};
    versions.push({
      name: String(v.name),
      schema: schemaDoc,
      statusSubresource: isPlainObject(subresources.status),
    });
  }
  if (!group || !kind || versions.length === 0)
    throw new CrdDefinitionError(`${kind || 'CRD'}: needs a group, a kind and a served version`);
  const ruleErrors: string[] = [];
  for (const v of versions) checkRules(v.schema, [], ruleErrors);
  if (ruleErrors.length > 0)
    throw new CrdDefinitionError(
      `${kind}: CEL rules that cannot be evaluated:\n${ruleErrors.join('\n')}`,
    );

  const versionOf = (obj: unknown): ServedVersion | undefined => {
    if (!isPlainObject(obj) || obj.kind !== kind || typeof obj.apiVersion !== 'string')
      return undefined;
    return versions.find((v) => obj.apiVersion === `${group}/${v.name}`);
  };
  const deprecated = options.deprecatedFields ?? {};

  const pruneCopy = (
    version: ServedVersion,
    obj: unknown,
    found?: (p: PathSegment[], known: readonly string[]) => void,
  ): unknown => {
    const copy = cloneJson(obj);
    walkUnknownFields(version.schema, copy, [], found ?? (() => undefined), true);
    pruneNulls(version.schema, copy);
    for (const field of Object.keys(deprecated)) {
      const segs = field.split('.');
      const parent = getPath(copy, segs.slice(0, -1));
      const last = segs[segs.length - 1] ?? '';
      if (
        isPlainObject(parent) &&
        last in parent &&
        isPlainObject(parent[last]) &&
        isMapOfScalars(version.schema, segs.slice(0, -1))
      ) {
        found?.(segs, []);
        delete parent[last];
      }
    }
    return copy;
  };

  const validator: CrdValidator = {
    group,
    kind,
    plural: String(names.plural ?? ''),
    scope: String(spec.scope ?? 'Namespaced'),
    versions: versions.map((v) => v.name),
    handles: (obj) =>
      isPlainObject(obj) &&
      obj.kind === kind &&
      typeof obj.apiVersion === 'string' &&
      obj.apiVersion.split('/')[0] === group,
    schema(name) {
      const v = versions.find((x) => x.name === name);
      if (!v) throw new CrdDefinitionError(`${kind} has no served version ${name}`);
      return v.schema;
    },
    applyDefaults<T>(obj: T): T {
      const v = versionOf(obj);
      const copy = cloneJson(obj);
      if (!v) return copy;
      pruneNulls(v.schema, copy);
      return applySchemaDefaults(v.schema, copy) as T;
    },
    prune<T>(obj: T): T {
      const v = versionOf(obj);
      return v ? (pruneCopy(v, obj) as T) : cloneJson(obj);
    },
    dropNulls<T>(obj: T): T {
      const v = versionOf(obj);
      const copy = cloneJson(obj);
      if (v) pruneNulls(v.schema, copy);
      return copy;
    },
    validate(obj, validateOptions = {}) {
      const name =
        isPlainObject(obj) && isPlainObject(obj.metadata) && typeof obj.metadata.name === 'string'
          ? obj.metadata.name
          : '';
      const objKind = isPlainObject(obj) && typeof obj.kind === 'string' ? obj.kind : kind;
      const violation = (
        path: PathSegment[],
        rule: string,
        message: string,
        apiServer: Violation['apiServer'] = 'reject',
      ): Violation => ({
        kind: objKind,
        name,
        path: formatPath(path),
        rule,
        message,
        apiServer,
      });
      if (!isPlainObject(obj))
        return [
          violation(
            [],
            'not-an-object',
            'a Kubernetes object must be a mapping with apiVersion, kind and metadata',
          ),
        ];
      const version = versionOf(obj);
      if (!version) {
        const key = `${String(obj.apiVersion)}/${String(obj.kind)}`;
        const hint = options.unsupportedVersions?.[key];
        const served = versions.map((v) => `${group}/${v.name}`).join(', ');
        const unsupported = violation(
          ['apiVersion'],
          'unsupported-version',
          hint ??
            `apiVersion ${JSON.stringify(obj.apiVersion)} is not served for ${kind}; use ${served}`,
        );
        // An older version of our own kind (v1beta1 NodePool): also give every field migration
        // hint at once, as if the apiVersion were already changed, so one pass lists the work.
        const ownOlderVersion =
          hint !== undefined && obj.kind === kind && String(obj.apiVersion).startsWith(`${group}/`);
        if (!ownOlderVersion) return [unsupported];
        const latest = versions[versions.length - 1] as ServedVersion;
        const renamedHints = Object.values(options.renamedValues ?? {}).flatMap((m) =>
          Object.values(m),
        );
        const migration = validator
          .validate({ ...obj, apiVersion: `${group}/${latest.name}` }, validateOptions)
          .filter(
            (v) => v.rule === 'deprecated-field' || renamedHints.some((h) => v.message.includes(h)),
          );
        return [unsupported, ...migration];
      }
      const out: Violation[] = [];
      out.push(...objectMetaViolations(obj.metadata).map(([p, m]) => violation(p, 'metadata', m)));

      // With a status subresource the apiserver drops `status` from a created object (and keeps
      // the stored one on an update) before it validates, so a `kubectl get -o yaml` copy with
      // whatever status validates as its spec does.
      const written =
        version.statusSubresource && validateOptions.subresource !== 'status'
          ? withoutStatus(obj)
          : obj;
      // A required field reported missing because it is misspelt is said by its unknown field.
      const meant = new Set<string>();
      const pruned = pruneCopy(version, written, (path, known) => {
        const dotted = path.filter((s) => typeof s === 'string').join('.');
        const hint = deprecated[dotted];
        const field = String(path[path.length - 1]);
        const near = hint ? undefined : didYouMean(field, known);
        if (near !== undefined) meant.add(formatPath([...path.slice(0, -1), near]));
        out.push(
          hint
            ? violation(
                path,
                'deprecated-field',
                `field is not part of ${group}/${version.name} ${kind}: ${hint}`,
                'prune',
              )
            : violation(
                path,
                'unknown-field',
                `unknown field ${JSON.stringify(field)}${near === undefined ? '' : ` (did you mean ${JSON.stringify(near)}?)`}: the apiserver drops it silently (kubectl's strict field validation rejects it)`,
                'prune',
              ),
        );
      });
      const defaulted = applySchemaDefaults(version.schema, pruned);

      version.compiled ??= compileSchema(version.schema);
      const typeErrorPaths: string[] = [];
      for (const e of schemaErrors(version.compiled, defaulted)) {
        const dotted = e.path.filter((s) => typeof s === 'string').join('.');
        const renamed =
          e.keyword === 'enum'
            ? options.renamedValues?.[dotted]?.[String(getPath(defaulted, e.path))]
            : undefined;
        if (e.keyword === 'required' && meant.has(formatPath(e.path))) continue;
        out.push(violation(e.path, e.keyword, renamed ? `${e.message} (${renamed})` : e.message));
        if (e.keyword === 'type') typeErrorPaths.push(formatPath(e.path));
      }

      for (const p of listTypeViolations(version.schema, defaulted))
        out.push(violation(p.path, 'x-kubernetes-list-type', p.message));

      let old: unknown;
      if (validateOptions.oldObj !== undefined) {
        const oldVersion = versionOf(validateOptions.oldObj) ?? version;
        old = applySchemaDefaults(oldVersion.schema, pruneCopy(oldVersion, validateOptions.oldObj));
      }
      const failures: CelFailure[] = [];
      const skip = (path: PathSegment[]): boolean => {
        const p = formatPath(path);
        return typeErrorPaths.some(
          (t) => t === p || p === '' || t.startsWith(`${p}.`) || t.startsWith(`${p}[`),
        );
      };
      evaluateCelRules(
        version.schema,
        defaulted,
        old === undefined ? NO_OLD_VALUE : old,
        [],
        skip,
        failures,
      );
      for (const f of failures) out.push(violation(f.path, f.rule.rule, f.message));
      return out;
    },
  };
  return validator;
}

/** A shallow copy of `obj` without its `status` field. */
function withoutStatus(obj: Record<string, unknown>): Record<string, unknown> {
  const { status: _status, ...rest } = obj;
  return rest;
}

function checkRules(schema: OpenApiSchema, path: PathSegment[], errors: string[]): void {
  for (const r of celRules(schema)) {
    for (const text of [r.rule, r.messageExpression]) {
      if (!text) continue;
      try {
        celProgram(text);
      } catch (e) {
        errors.push(
          `  ${formatPath(path) || '<root>'}: ${text}: ${(e instanceof Error ? e.message : String(e)).split('\n')[0]}`,
        );
      }
    }
  }
  const props = properties(schema);
  if (props) for (const [k, v] of Object.entries(props)) checkRules(v, [...path, k], errors);
  const it = items(schema);
  if (it) checkRules(it, [...path, 0], errors);
  const addl = additionalProperties(schema);
  if (addl) checkRules(addl, [...path, '*'], errors);
}

/**
 * Deletes, in place, the mapping entries whose value is null under a schema that is neither
 * nullable nor defaulted, as the apiserver does before defaulting (apiextensions'
 * PruneNonNullableNullsWithoutDefaults): `taints: null` is as good as no taints. Null list
 * items are kept (they stay invalid), and so are nulls that a default will replace.
 */
function pruneNulls(schema: OpenApiSchema | undefined, value: unknown): void {
  if (Array.isArray(value)) {
    const it = schema ? items(schema) : undefined;
    for (const element of value) pruneNulls(it, element);
    return;
  }
  if (!isPlainObject(value)) return;
  const props = schema ? properties(schema) : undefined;
  for (const [key, v] of Object.entries(value)) {
    const sub =
      props && Object.hasOwn(props, key)
        ? props[key]
        : schema
          ? additionalProperties(schema)
          : undefined;
    if (v === null && sub && sub.nullable !== true && sub.default === undefined) delete value[key];
    else pruneNulls(sub, v);
  }
}

function getPath(value: unknown, path: readonly PathSegment[]): unknown {
  let node = value;
  for (const s of path) {
    if (node === null || typeof node !== 'object') return undefined;
    node = (node as Record<string | number, unknown>)[s];
  }
  return node;
}

/** Whether the schema node at `path` is a map (additionalProperties) of non-object values. */
function isMapOfScalars(schema: OpenApiSchema, path: readonly PathSegment[]): boolean {
  let node: OpenApiSchema | undefined = schema;
  for (const s of path) node = node ? properties(node)?.[String(s)] : undefined;
  const addl = node ? additionalProperties(node) : undefined;
  return addl !== undefined && addl.type !== 'object';
}
