import { didYouMean } from '@karpenter-ts/api';
/**
 * Workload fields (Deployments, Pods, …) checked against the Kubernetes API models of
 * @kubernetes/client-node (its OpenAPI-generated classes list every field of every type in
 * `attributeTypeMap`, with its type and format; version 1.4 models the Kubernetes 1.34 API):
 * fields the type does not declare, and values of the wrong type.
 *
 * The kube-apiserver drops unknown fields of built-in types, returning a warning (its default
 * `fieldValidation=Warn`, since 1.27), unless the client asks for strict field validation, which
 * `kubectl apply` and `kubectl create` do by default: they refuse the object. A misspelt
 * `resources.request` would otherwise give pods with no requests. A value of the wrong type
 * (`topologySpreadConstraints: 5`, `replicas: 2147483648` for an int32) the apiserver's decoder
 * refuses whatever the field validation.
 */
import * as models from '@kubernetes/client-node/dist/gen/models/all.js';
import type { KubeObject } from '../manifests/document.js';

/** A problem at a field path inside one object. */
export interface FieldProblem {
  /** Field path inside the object, e.g. `spec.template.spec.containers[0].resources.request`. */
  readonly path: string;
  readonly message: string;
  /** Set by {@link apiFieldProblems}: a field the type does not declare, or a value of the wrong type. */
  readonly rule?: 'unknown-field' | 'type';
  /** For an unknown field with a did-you-mean hint, the path of the field it was meant to be. */
  readonly meant?: string;
}

/** The client-node model of each workload kind the CLI reads, of core/v1 Node and of policy/v1 PodDisruptionBudget. */
const MODEL_OF_KIND: Readonly<Record<string, string>> = {
  Node: 'V1Node',
  Deployment: 'V1Deployment',
  ReplicaSet: 'V1ReplicaSet',
  ReplicationController: 'V1ReplicationController',
  StatefulSet: 'V1StatefulSet',
  DaemonSet: 'V1DaemonSet',
  Job: 'V1Job',
  CronJob: 'V1CronJob',
  Pod: 'V1Pod',
  PodDisruptionBudget: 'V1PodDisruptionBudget',
};

interface Attribute {
  /** The field's JSON name. */
  readonly baseName: string;
  /** `V1PodSpec`, `Array<V1Container>`, `{ [key: string]: string; }`, `string`, `any`, … */
  readonly type: string;
  /** `int32`, `int64`, `int-or-string`, `date-time` or `''`. */
  readonly format: string;
}

interface Field {
  readonly type: string;
  readonly format: string;
}

const MODELS = models as unknown as Readonly<
  Record<string, { getAttributeTypeMap?: () => readonly Attribute[] } | undefined>
>;
const fieldsCache = new Map<string, ReadonlyMap<string, Field> | undefined>();

/** Field name → type of a model, or undefined when `type` is not a model (scalars, `any`). */
function fieldsOf(type: string): ReadonlyMap<string, Field> | undefined {
  if (!fieldsCache.has(type)) {
    const attributes = Object.hasOwn(MODELS, type)
      ? MODELS[type]?.getAttributeTypeMap?.()
      : undefined;
    fieldsCache.set(
      type,
      attributes &&
        new Map(attributes.map((a) => [a.baseName, { type: a.type, format: a.format }])),
    );
  }
  return fieldsCache.get(type);
}

/**
 * Fields of Kubernetes type `resource.Quantity`, which the models type as strings but JSON may
 * give as numbers too (`memory: 1073741824`). In resource requirements and pod overhead the
 * quantities themselves are checked by the resource checks of workloadProblems.
 */
const QUANTITY_FIELDS: ReadonlySet<string> = new Set([
  'V1EmptyDirVolumeSource.sizeLimit',
  'V1ResourceFieldSelector.divisor',
  'V1VolumeResourceRequirements.limits',
  'V1VolumeResourceRequirements.requests',
  'V1PersistentVolumeClaimStatus.allocatedResources',
  'V1PersistentVolumeClaimStatus.capacity',
  'V1ContainerStatus.allocatedResources',
]);
const CHECKED_QUANTITIES: ReadonlySet<string> = new Set([
  'V1ResourceRequirements.limits',
  'V1ResourceRequirements.requests',
  'V1PodSpec.overhead',
  'V1NodeStatus.allocatable',
  'V1NodeStatus.capacity',
]);

const ARRAY = /^Array<(.+)>$/;
const MAP = /^\{ \[key: string\]: (.+); \}$/;
const INT32 = { min: -(2 ** 31), max: 2 ** 31 - 1 };
/** YAML 1.1 booleans (kubectl's go-yaml) that YAML 1.2 reads as strings. */
const YAML11_BOOLEAN = /^(y|Y|yes|Yes|YES|n|N|no|No|NO|on|On|ON|off|Off|OFF)$/;

/**
 * Every field of `object` its kind's API type does not declare, each with a did-you-mean hint
 * when a declared field is close, and every value whose type is not the declared one (a list,
 * a mapping, a string, a boolean, an integer within its int32 or int64 range, an int-or-string,
 * a quantity), in document order. `null` is accepted anywhere, as the apiserver's decoder reads
 * it as unset. In `status` (which the system writes, and which a cluster snapshot holds as the
 * controllers read it) only the types are checked: a newer cluster's status has fields the 1.34
 * models lack. Kinds without a model (anything but the workload kinds) have no problems here.
 */
export function apiFieldProblems(object: KubeObject): FieldProblem[] {
  const model = Object.hasOwn(MODEL_OF_KIND, object.kind) ? MODEL_OF_KIND[object.kind] : undefined;
  if (model === undefined) return [];
  const problems: FieldProblem[] = [];
  const add = (path: string, message: string): void => {
    problems.push({ path, message, rule: 'type' });
  };
  const walk = (value: unknown, field: Field, path: string, where: string): void => {
    if (value === null || value === undefined) return;
    const { type, format } = field;
    if (QUANTITY_FIELDS.has(where) || CHECKED_QUANTITIES.has(where)) {
      if (MAP.test(type)) {
        if (!isRecord(value)) return add(path, wrongType('an object', value));
        if (CHECKED_QUANTITIES.has(where)) return;
        for (const [key, v] of Object.entries(value)) quantity(v, keyPath(path, key));
        return;
      }
      return quantity(value, path);
    }
    const array = ARRAY.exec(type);
    if (array) {
      if (!Array.isArray(value)) return add(path, wrongType('an array', value));
      const item = { type: array[1]!, format: '' };
      value.forEach((v, i) => {
        // The decoder makes a null item of a list of objects an empty object, which the
        // apiserver's validation then refuses (a container or toleration without its fields).
        if (v === null && fieldsOf(item.type)) add(`${path}[${i}]`, wrongType('an object', v));
        else walk(v, item, `${path}[${i}]`, '');
      });
      return;
    }
    const map = MAP.exec(type);
    if (map) {
      if (!isRecord(value)) return add(path, wrongType('an object', value));
      const item = { type: map[1]!, format: '' };
      for (const [key, v] of Object.entries(value)) walk(v, item, keyPath(path, key), '');
      return;
    }
    switch (type) {
      case 'string':
      case 'Date':
        if (typeof value !== 'string') add(path, wrongType('a string', value));
        return;
      case 'boolean':
        if (typeof value !== 'boolean') add(path, wrongType('a boolean', value));
        return;
      case 'number':
        return integer(value, format, path);
      case 'IntOrString':
        if (typeof value !== 'string') integer(value, 'int32', path, 'an integer or a string');
        return;
      case 'any':
        return;
    }
    const fields = fieldsOf(type);
    if (!fields) return;
    if (!isRecord(value)) return add(path, wrongType('an object', value));
    for (const [key, v] of Object.entries(value)) {
      const at = path ? `${path}.${key}` : key;
      const declared = fields.get(key);
      if (declared === undefined) {
        if (at.startsWith('status.')) continue;
        const hint = didYouMean(key, fields.keys());
        problems.push({
          path: at,
          message: `unknown field ${JSON.stringify(key)}${hint ? ` (did you mean ${JSON.stringify(hint)}?)` : ''}: the apiserver drops it and returns a warning (its default fieldValidation=Warn); kubectl's default strict validation rejects it`,
          rule: 'unknown-field',
          ...(hint ? { meant: path ? `${path}.${hint}` : hint } : {}),
        });
      } else walk(v, declared, at, `${type}.${key}`);
    }
  };
  const integer = (value: unknown, format: string, path: string, what = 'an integer'): void => {
    if (format === 'int32') {
      if (!Number.isInteger(value)) add(path, wrongType(`${what} (int32)`, value));
      else if ((value as number) > INT32.max)
        add(path, wrongType(`${what} (int32, at most ${INT32.max})`, value));
      else if ((value as number) < INT32.min)
        add(path, wrongType(`${what} (int32, at least ${INT32.min})`, value));
    } else if (format === 'int64') {
      if (!Number.isSafeInteger(value))
        add(
          path,
          wrongType(
            `${what} (int64; karpenter-ts reads at most ±${Number.MAX_SAFE_INTEGER} exactly)`,
            value,
          ),
        );
    } else if (typeof value !== 'number' || !Number.isFinite(value)) {
      add(path, wrongType('a number', value));
    }
  };
  const quantity = (value: unknown, path: string): void => {
    if (typeof value === 'string' || (typeof value === 'number' && Number.isFinite(value))) return;
    add(path, wrongType('a quantity (a string such as "500m" or "1Gi", or a number)', value));
  };
  walk(object, { type: model, format: '' }, '', '');
  return problems;
}

/** `must be <what>, got <type> <value>`, with a hint when quotes or true/false would fix it. */
function wrongType(what: string, value: unknown): string {
  let hint = '';
  if (what === 'a string' && (typeof value === 'number' || typeof value === 'boolean'))
    hint = ` (write it in quotes: "${String(value)}")`;
  else if (what === 'a boolean' && typeof value === 'string' && YAML11_BOOLEAN.test(value))
    hint = ` (YAML 1.2 reads an unquoted ${value} as a string, where kubectl's YAML 1.1 reads a boolean: write true or false)`;
  else if (typeof value === 'number' && !Number.isFinite(value))
    hint =
      ' (YAML reads .inf, .nan and unquoted numbers beyond ±1.8e308, such as 1e400, as no finite number)';
  return `must be ${what}, got ${value === null ? 'null' : `${typeName(value)} ${show(value)}`}${hint}`;
}

/**
 * A copy of a workload object as the apiserver's decoder reads it, for the expansion: a null
 * field is unset (left out), a null string in a list or map is `""`, and a null quantity `"0"`
 * (resource.Quantity decodes null as zero). Kinds without a model come back as a plain copy.
 * Expects an object {@link apiFieldProblems} found no problem in.
 */
export function apiServerDecoded<T extends KubeObject>(object: T): T {
  const copy = structuredClone(object);
  const model = Object.hasOwn(MODEL_OF_KIND, object.kind) ? MODEL_OF_KIND[object.kind] : undefined;
  if (model === undefined) return copy;
  const decode = (value: unknown, type: string, where: string): unknown => {
    if (QUANTITY_FIELDS.has(where) || CHECKED_QUANTITIES.has(where)) {
      if (!isRecord(value)) return value;
      for (const [key, v] of Object.entries(value)) if (v === null) value[key] = '0';
      return value;
    }
    const array = ARRAY.exec(type);
    if (array) {
      if (!Array.isArray(value)) return value;
      const item = array[1]!;
      return value.map((v: unknown) =>
        v === null ? (item === 'string' ? '' : v) : decode(v, item, ''),
      );
    }
    const map = MAP.exec(type);
    if (map) {
      if (!isRecord(value)) return value;
      const item = map[1]!;
      for (const [key, v] of Object.entries(value))
        value[key] = v === null ? (item === 'string' ? '' : v) : decode(v, item, '');
      return value;
    }
    const fields = fieldsOf(type);
    if (!fields || !isRecord(value)) return value;
    for (const [key, v] of Object.entries(value)) {
      const declared = fields.get(key);
      if (v === null) delete value[key];
      else if (declared) value[key] = decode(v, declared.type, `${type}.${key}`);
    }
    return value;
  };
  return decode(copy, model, '') as T;
}

function typeName(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  if (typeof value === 'object') return 'object';
  if (typeof value === 'number') return Number.isSafeInteger(value) ? 'integer' : 'number';
  return typeof value;
}

function show(value: unknown): string {
  if (typeof value === 'number') return String(value);
  const text = JSON.stringify(value) ?? String(value);
  return text.length > 60 ? `${text.slice(0, 57)}...` : text;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * `at.cpu`, but `at[nvidia.com/gpu]` for a map key with dots, slashes, spaces or any other
 * character a dotted path would make ambiguous (the apiserver writes every map key in brackets).
 */
export function keyPath(at: string, key: string): string {
  return /^[A-Za-z0-9_-]+$/.test(key) ? `${at}.${key}` : `${at}[${key}]`;
}
