/**
 * Unknown fields in workloads (Deployments, Pods, …), found with the field lists of the
 * Kubernetes API models in @kubernetes/client-node (its OpenAPI-generated classes list every
 * field of every type in `attributeTypeMap`; version 1.4 models the Kubernetes 1.34 API).
 *
 * The kube-apiserver drops unknown fields of built-in types, returning a warning (its default
 * `fieldValidation=Warn`, since 1.27), unless the client asks for strict field validation, which
 * `kubectl apply` and `kubectl create` do by default: they refuse the object. A misspelt `resources.request` would otherwise give pods with no requests.
 */
import * as models from '@kubernetes/client-node/dist/gen/models/all.js';
import type { KubeObject } from '../manifests/document.js';
import { didYouMean } from './did-you-mean.js';

/** A problem at a field path inside one object. */
export interface FieldProblem {
  /** Field path inside the object, e.g. `spec.template.spec.containers[0].resources.request`. */
  readonly path: string;
  readonly message: string;
}

/** The client-node model of each workload kind the CLI reads. */
const MODEL_OF_KIND: Readonly<Record<string, string>> = {
  Deployment: 'V1Deployment',
  ReplicaSet: 'V1ReplicaSet',
  ReplicationController: 'V1ReplicationController',
  StatefulSet: 'V1StatefulSet',
  DaemonSet: 'V1DaemonSet',
  Job: 'V1Job',
  CronJob: 'V1CronJob',
  Pod: 'V1Pod',
};

interface Attribute {
  /** The field's JSON name. */
  readonly baseName: string;
  /** `V1PodSpec`, `Array<V1Container>`, `{ [key: string]: string; }`, `string`, `any`, … */
  readonly type: string;
}

const MODELS = models as unknown as Readonly<
  Record<string, { getAttributeTypeMap?: () => readonly Attribute[] } | undefined>
>;
const fieldsCache = new Map<string, ReadonlyMap<string, string> | undefined>();

/** Field name → type of a model, or undefined when `type` is not a model (scalars, `any`). */
function fieldsOf(type: string): ReadonlyMap<string, string> | undefined {
  if (!fieldsCache.has(type)) {
    const attributes = MODELS[type]?.getAttributeTypeMap?.();
    fieldsCache.set(type, attributes && new Map(attributes.map((a) => [a.baseName, a.type])));
  }
  return fieldsCache.get(type);
}

const ARRAY = /^Array<(.+)>$/;
const MAP = /^\{ \[key: string\]: (.+); \}$/;

/**
 * Every field of `object` its kind's API type does not declare, in document order, each with a
 * did-you-mean hint when a declared field is close. `status` is not checked: the system writes
 * it, and a newer cluster's status has fields the 1.34 models lack. Kinds without a model
 * (anything but the workload kinds) have no problems here.
 */
export function unknownFields(object: KubeObject): FieldProblem[] {
  const model = MODEL_OF_KIND[object.kind];
  if (model === undefined) return [];
  const problems: FieldProblem[] = [];
  const walk = (value: unknown, type: string, path: string): void => {
    const array = ARRAY.exec(type);
    if (array) {
      if (Array.isArray(value)) value.forEach((v, i) => walk(v, array[1]!, `${path}[${i}]`));
      return;
    }
    if (!isRecord(value)) return;
    const map = MAP.exec(type);
    if (map) {
      for (const [key, v] of Object.entries(value)) walk(v, map[1]!, `${path}.${key}`);
      return;
    }
    const fields = fieldsOf(type);
    if (!fields) return;
    for (const [key, v] of Object.entries(value)) {
      const at = path ? `${path}.${key}` : key;
      const fieldType = fields.get(key);
      if (fieldType === undefined) {
        const hint = didYouMean(key, fields.keys());
        problems.push({
          path: at,
          message: `unknown field ${JSON.stringify(key)}${hint ? ` (did you mean ${JSON.stringify(hint)}?)` : ''}: the apiserver drops it and returns a warning (its default fieldValidation=Warn); kubectl's default strict validation rejects it`,
        });
      } else if (!(path === '' && key === 'status')) {
        walk(v, fieldType, at);
      }
    }
  };
  walk(object, model, '');
  return problems;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
