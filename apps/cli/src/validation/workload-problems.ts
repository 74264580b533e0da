/**
 * What the kube-apiserver (with kubectl's strict field validation) would reject in a workload
 * the CLI expands into pods: the shape the expansion needs, replica and parallelism counts,
 * resource quantities, and unknown fields.
 */
import type { Pod } from '@karpenter-ts/api';
import {
  compareQuantities,
  parseQuantity,
  podRequests,
  quantityToMilli,
  quantityToValue,
  type Quantity,
  type ResourceList,
} from '@karpenter-ts/scheduling';
import type { KubeObject } from '../manifests/document.js';
import { applyPodDefaults } from '../workloads/defaulting.js';
import { apiFieldProblems, keyPath, type FieldProblem } from './api-fields.js';
import { podSchedulingProblems } from './pod-scheduling.js';

export type { FieldProblem } from './api-fields.js';

type Spec = Record<string, unknown>;

/**
 * Every problem of one workload object (Deployment, ReplicaSet, ReplicationController,
 * StatefulSet, DaemonSet, Job, CronJob, Pod), paths relative to the object, in this order:
 *
 * - shape: `metadata.name` (or `metadata.generateName`) and `spec`;
 * - counts (`replicas`, `parallelism`, `completions`): non-negative integers;
 * - the pod template (`spec.template`; a CronJob's `spec.jobTemplate.spec.template`) with at
 *   least one container, and StatefulSet volumeClaimTemplate names;
 * - container, init container and pod-level `resources` and pod `overhead`: mappings of
 *   resource name to a valid quantity, never negative, and a request never above the limit
 *   of the same resource (the apiserver's ValidateResourceRequirements); each within
 *   Number.MAX_SAFE_INTEGER of its unit (cpu millicores, memory bytes), and so the pod's
 *   total requests, since the scheduler counts them as exact integers;
 * - the fields the scheduler reads, as the apiserver checks them ({@link podSchedulingProblems}:
 *   spread constraints, affinity, tolerations, node selector, container ports);
 * - fields the kind's API type does not declare, and values of the wrong type for it (a list,
 *   a mapping, a string, an int32, …: {@link apiFieldProblems}); a problem above that lies on,
 *   inside or around a wrong-type field is left out, as the type says it better.
 *
 * Other kinds have no problems. Empty means the expansion can build its pods.
 */
export function workloadProblems(object: KubeObject): FieldProblem[] {
  const problems: FieldProblem[] = [];
  const add = (path: string, message: string) => problems.push({ path, message });
  // `kubectl create` accepts generateName alone: the apiserver makes the name.
  const { name, generateName } = object.metadata ?? {};
  if (!nonEmptyString(name) && !nonEmptyString(generateName))
    add('metadata.name', 'required: a non-empty name or generateName');
  const spec = object.spec;
  switch (object.kind) {
    case 'Deployment':
    case 'ReplicaSet':
    case 'ReplicationController':
    case 'StatefulSet':
    case 'DaemonSet':
      if (!isRecord(spec)) add('spec', 'required: a mapping');
      else {
        if (object.kind !== 'DaemonSet') count(spec, 'replicas', 'spec', add);
        podTemplate(spec, 'spec', add);
        if (object.kind === 'StatefulSet') claimTemplates(spec, add);
      }
      break;
    case 'Job':
      if (!isRecord(spec)) add('spec', 'required: a mapping');
      else job(spec, 'spec', add);
      break;
    case 'CronJob': {
      const jobSpec =
        isRecord(spec) && isRecord(spec.jobTemplate) ? spec.jobTemplate.spec : undefined;
      if (!isRecord(jobSpec)) add('spec.jobTemplate.spec', 'required: a mapping');
      else job(jobSpec, 'spec.jobTemplate.spec', add);
      break;
    }
    case 'Pod':
      if (!isRecord(spec) || !Array.isArray(spec.containers) || spec.containers.length === 0)
        add('spec.containers', 'required: at least one container');
      else checkPodSpec(spec, 'spec', add);
      break;
    default:
      return [];
  }
  const fields = apiFieldProblems(object);
  const wrongTypes = fields.filter((f) => f.rule === 'type').map((f) => f.path);
  // A required field missing because it is misspelt (`maxskew`) is said by its unknown field.
  const misspelt = new Set(fields.flatMap((f) => (f.meant === undefined ? [] : [f.meant])));
  return [
    ...problems.filter(
      (p) => !misspelt.has(p.path) && !wrongTypes.some((path) => overlaps(path, p.path)),
    ),
    ...fields,
  ];
}

/** Whether one field path is the other or lies inside it (`a.b` and `a.b[0].c`). */
function overlaps(a: string, b: string): boolean {
  const inside = (outer: string, inner: string) =>
    inner === outer || inner.startsWith(`${outer}.`) || inner.startsWith(`${outer}[`);
  return inside(a, b) || inside(b, a);
}

type Add = (path: string, message: string) => void;

/**
 * The problems of a core/v1 Node the simulation reads as existing capacity: values of the wrong
 * type, status included ({@link apiFieldProblems}; fields it does not declare are fine, as a
 * newer cluster's Node has fields the 1.34 models lack), a `metadata.name`, a
 * `status.allocatable` or `status.capacity` (the simulation takes capacity as allocatable when
 * allocatable is unset; `null` is unset) and their quantities (valid, not negative, exactly
 * countable).
 */
export function nodeProblems(object: KubeObject): FieldProblem[] {
  const problems = apiFieldProblems(object).filter((p) => p.rule === 'type');
  const add: Add = (path, message) => problems.push({ path, message });
  requiredName(object, problems, add);
  const status = object.status;
  if (problems.some((p) => p.path === 'status')) return problems;
  const present = (list: string) => isRecord(status) && status[list] != null;
  if (!present('allocatable') && !present('capacity'))
    add('status.allocatable', 'required to simulate an existing node (or status.capacity)');
  if (isRecord(status))
    for (const list of ['allocatable', 'capacity'] as const)
      if (!problems.some((p) => p.path === `status.${list}`))
        quantities(status[list], `status.${list}`, add);
  return problems;
}

/**
 * Every problem of a policy/v1 PodDisruptionBudget: a `metadata.name` (a cluster's objects always
 * have one, and `kubectl apply` refuses generateName), and the field types of its API model.
 */
export function podDisruptionBudgetProblems(object: KubeObject): FieldProblem[] {
  const problems = apiFieldProblems(object).filter((p) => p.rule === 'type');
  requiredName(object, problems, (path, message) => problems.push({ path, message }));
  return problems;
}

/** `metadata.name` must be a non-empty string, unless `metadata` itself was reported. */
function requiredName(object: KubeObject, problems: readonly FieldProblem[], add: Add): void {
  if (problems.some((p) => p.path === 'metadata')) return;
  const metadata: unknown = object.metadata;
  if (!isRecord(metadata) || !nonEmptyString(metadata.name))
    add('metadata.name', 'required: a non-empty string');
}

function job(spec: Spec, at: string, add: Add): void {
  count(spec, 'parallelism', at, add);
  count(spec, 'completions', at, add);
  podTemplate(spec, at, add);
}

function podTemplate(spec: Spec, at: string, add: Add): void {
  const template = spec.template;
  if (!isRecord(template)) return add(`${at}.template`, 'required: a pod template');
  const podSpec = template.spec;
  if (!isRecord(podSpec) || !Array.isArray(podSpec.containers) || podSpec.containers.length === 0)
    return add(`${at}.template.spec.containers`, 'required: at least one container');
  checkPodSpec(podSpec, `${at}.template.spec`, add);
}

/** A pod spec's resources, then the fields the scheduler reads. */
function checkPodSpec(spec: Spec, at: string, add: Add): void {
  podSpecResources(spec, at, add);
  for (const p of podSchedulingProblems(spec, at)) add(p.path, p.message);
}

function count(spec: Spec, key: string, at: string, add: Add): void {
  const value = spec[key];
  if (value === undefined || value === null) return;
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 0)
    add(`${at}.${key}`, `must be a non-negative integer, got ${JSON.stringify(value)}`);
}

function claimTemplates(spec: Spec, add: Add): void {
  if (!Array.isArray(spec.volumeClaimTemplates)) return;
  spec.volumeClaimTemplates.forEach((claim: unknown, i) => {
    const name = isRecord(claim) && isRecord(claim.metadata) ? claim.metadata.name : undefined;
    if (typeof name !== 'string' || name === '')
      add(`spec.volumeClaimTemplates[${i}].metadata.name`, 'required: a non-empty string');
  });
}

/**
 * Resources of init containers, containers and the pod, then the pod's overhead; when they are
 * all valid, the pod's total requests as the scheduler counts them.
 */
function podSpecResources(podSpec: Spec, at: string, add: Add): void {
  let valid = true;
  resourceFields(podSpec, at, (path, message) => {
    valid = false;
    add(path, message);
  });
  if (valid) podTotals(podSpec, at, add);
}

function resourceFields(podSpec: Spec, at: string, add: Add): void {
  for (const list of ['initContainers', 'containers'] as const) {
    const containers = podSpec[list];
    if (containers === undefined || containers === null) continue;
    if (!Array.isArray(containers)) {
      add(`${at}.${list}`, 'must be a list of containers');
      continue;
    }
    containers.forEach((container: unknown, i) => {
      if (!isRecord(container)) add(`${at}.${list}[${i}]`, 'must be a container mapping');
      else resourceRequirements(container.resources, `${at}.${list}[${i}].resources`, add);
    });
  }
  resourceRequirements(podSpec.resources, `${at}.resources`, add);
  if (podSpec.overhead !== undefined && podSpec.overhead !== null)
    quantities(podSpec.overhead, `${at}.overhead`, add);
}

/** `requests` and `limits`: valid, non-negative quantities, each request at most its limit. */
function resourceRequirements(resources: unknown, at: string, add: Add): void {
  if (resources === undefined || resources === null) return;
  if (!isRecord(resources)) return add(at, 'must be a mapping');
  const requests = quantities(resources.requests, `${at}.requests`, add);
  const limits = quantities(resources.limits, `${at}.limits`, add);
  for (const [name, request] of requests) {
    const limit = limits.get(name);
    if (limit && compareQuantities(request.quantity, limit.quantity) > 0)
      add(
        keyPath(`${at}.requests`, name),
        `must not exceed the limit (${keyPath('limits', name)} is ${JSON.stringify(limit.text)}), got ${JSON.stringify(request.text)}`,
      );
  }
}

interface Written {
  readonly quantity: Quantity;
  /** As written, for messages. */
  readonly text: string | number | null;
}

/** Parses a resource list, reporting malformed and negative quantities; returns the good ones. */
function quantities(list: unknown, at: string, add: Add): Map<string, Written> {
  const good = new Map<string, Written>();
  if (list === undefined || list === null) return good;
  if (!isRecord(list)) {
    add(at, 'must be a mapping of resource name to quantity');
    return good;
  }
  for (const [name, value] of Object.entries(list)) {
    const field = keyPath(at, name);
    // The apiserver decodes a null quantity as zero (resource.Quantity's UnmarshalJSON).
    if (value === null) {
      good.set(name, { quantity: parseQuantity(0), text: null });
      continue;
    }
    if (typeof value !== 'string' && typeof value !== 'number') {
      add(field, `must be a quantity (e.g. "500m", "1Gi"), got ${JSON.stringify(value)}`);
      continue;
    }
    let quantity: Quantity;
    try {
      quantity = parseQuantity(value);
    } catch (error) {
      add(field, (error as Error).message);
      continue;
    }
    if (quantity.nanos < 0n)
      add(field, `must be a non-negative quantity, got ${JSON.stringify(value)}`);
    else if (!countable(name, quantity)) {
      const { max, unit } = exactRange(name);
      add(
        field,
        `must be at most ${max} (Number.MAX_SAFE_INTEGER ${unit}, the most karpenter-ts counts exactly), got ${JSON.stringify(value)}`,
      );
    } else good.set(name, { quantity, text: value });
  }
  return good;
}

const MEMORY_LIKE = /^(memory|ephemeral-storage|storage|hugepages-.+)$/;

/** Whether the scheduler can hold `quantity` of resource `name` as an exact integer of its unit. */
function countable(name: string, quantity: Quantity): boolean {
  try {
    if (name === 'cpu') quantityToMilli(quantity);
    else quantityToValue(quantity);
    return true;
  } catch {
    return false;
  }
}

/** The largest amount of resource `name` the scheduler counts exactly, and its unit. */
function exactRange(name: string): { max: string; unit: string } {
  const max = String(Number.MAX_SAFE_INTEGER);
  if (name === 'cpu') return { max: `${max}m`, unit: 'millicores' };
  return { max, unit: MEMORY_LIKE.test(name) ? 'bytes' : 'units' };
}

/**
 * The pod's requests as the scheduler adds them up (containers, sidecars, init containers,
 * overhead, after the apiserver's defaulting) must stay exact integers too.
 */
function podTotals(podSpec: Spec, at: string, add: Add): void {
  let totals: ResourceList;
  try {
    const pod = { spec: structuredClone(podSpec) } as unknown as Pod;
    totals = podRequests(applyPodDefaults(pod, 'default'));
  } catch {
    return; // the per-field checks report what does not parse
  }
  for (const [name, amount] of Object.entries(totals)) {
    if (Number.isSafeInteger(amount)) continue;
    const unit = exactRange(name).unit;
    add(
      at,
      `the pod requests ${BigInt(amount)} ${unit} of ${name} in all (containers, init containers, overhead), beyond ${Number.MAX_SAFE_INTEGER} (Number.MAX_SAFE_INTEGER), the most karpenter-ts counts exactly`,
    );
  }
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function nonEmptyString(value: unknown): value is string {
  return typeof value === 'string' && value !== '';
}
