/**
 * The kube-apiserver's checks (its pod spec validation) on the pod fields the scheduler reads:
 * node selector, node and pod affinity, topology spread constraints, tolerations and container
 * ports. Without them a pod the apiserver refuses (a spread constraint without `topologyKey`)
 * would reach the scheduler and be left pending as an `invalid pod`. Values of the wrong type
 * are left to apiFieldProblems, which reports them.
 */
import { labelValueProblem, qualifiedNameProblem } from '@karpenter-ts/api';
import { keyPath, type FieldProblem } from './api-fields.js';

type Record_ = Record<string, unknown>;
type Add = (path: string, message: string) => void;

const SELECTOR_OPERATORS = ['In', 'NotIn', 'Exists', 'DoesNotExist'] as const;
const NODE_SELECTOR_OPERATORS = [...SELECTOR_OPERATORS, 'Gt', 'Lt'] as const;
const WHEN_UNSATISFIABLE = ['DoNotSchedule', 'ScheduleAnyway'] as const;
const INCLUSION_POLICIES = ['Honor', 'Ignore'] as const;
const TOLERATION_OPERATORS = ['Equal', 'Exists'] as const;
const TAINT_EFFECTS = ['NoSchedule', 'PreferNoSchedule', 'NoExecute'] as const;
const PROTOCOLS = ['TCP', 'UDP', 'SCTP'] as const;

/** Every problem of the scheduling fields of the pod spec `podSpec`, found at field path `at`. */
export function podSchedulingProblems(podSpec: Record_, at: string): FieldProblem[] {
  const problems: FieldProblem[] = [];
  const add: Add = (path, message) => problems.push({ path, message });
  labels(podSpec.nodeSelector, `${at}.nodeSelector`, add);
  const affinity = record(podSpec.affinity);
  if (affinity) {
    nodeAffinity(record(affinity.nodeAffinity), `${at}.affinity.nodeAffinity`, add);
    for (const kind of ['podAffinity', 'podAntiAffinity'] as const)
      podAffinity(record(affinity[kind]), `${at}.affinity.${kind}`, add);
  }
  items(podSpec.topologySpreadConstraints, `${at}.topologySpreadConstraints`, (c, p) =>
    spreadConstraint(c, p, add),
  );
  items(podSpec.tolerations, `${at}.tolerations`, (t, p) => toleration(t, p, add));
  for (const list of ['initContainers', 'containers'] as const)
    items(podSpec[list], `${at}.${list}`, (container, p) =>
      items(container.ports, `${p}.ports`, (port, q) => containerPort(port, q, add)),
    );
  return problems;
}

function nodeAffinity(affinity: Record_ | undefined, at: string, add: Add): void {
  if (!affinity) return;
  const required = record(affinity.requiredDuringSchedulingIgnoredDuringExecution);
  if (required) {
    const path = `${at}.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms`;
    const terms = required.nodeSelectorTerms;
    if (!Array.isArray(terms) || terms.length === 0)
      add(path, 'required: at least one node selector term');
    items(terms, path, (term, p) => nodeSelectorTerm(term, p, add));
  }
  items(
    affinity.preferredDuringSchedulingIgnoredDuringExecution,
    `${at}.preferredDuringSchedulingIgnoredDuringExecution`,
    (preferred, p) => {
      weight(preferred.weight, `${p}.weight`, add);
      const preference = record(preferred.preference);
      if (!preference) add(`${p}.preference`, 'required: a node selector term');
      else nodeSelectorTerm(preference, `${p}.preference`, add);
    },
  );
}

function nodeSelectorTerm(term: Record_, at: string, add: Add): void {
  items(term.matchExpressions, `${at}.matchExpressions`, (expression, p) => {
    labelKey(expression.key, `${p}.key`, add);
    const operator = oneOf(expression.operator, NODE_SELECTOR_OPERATORS, `${p}.operator`, add);
    const values = Array.isArray(expression.values) ? expression.values : [];
    if (operator === 'In' || operator === 'NotIn') {
      if (values.length === 0) add(`${p}.values`, `required: at least one value for ${operator}`);
    } else if (operator === 'Exists' || operator === 'DoesNotExist') {
      if (values.length > 0) add(`${p}.values`, `must be empty for ${operator}`);
    } else if (operator === 'Gt' || operator === 'Lt') {
      if (values.length !== 1 || !/^-?[0-9]+$/.test(String(values[0])))
        add(`${p}.values`, `must be exactly one integer for ${operator}`);
    }
  });
  items(term.matchFields, `${at}.matchFields`, (field, p) => {
    if (field.key !== 'metadata.name')
      add(`${p}.key`, `must be "metadata.name", got ${JSON.stringify(field.key)}`);
    const operator = oneOf(field.operator, NODE_SELECTOR_OPERATORS, `${p}.operator`, add);
    if (operator !== undefined && operator !== 'In' && operator !== 'NotIn')
      add(`${p}.operator`, `must be "In" or "NotIn" for metadata.name, got "${operator}"`);
    else if (!Array.isArray(field.values) || field.values.length !== 1)
      add(`${p}.values`, 'must be exactly one node name');
  });
}

function podAffinity(affinity: Record_ | undefined, at: string, add: Add): void {
  if (!affinity) return;
  const required = `${at}.requiredDuringSchedulingIgnoredDuringExecution`;
  items(affinity.requiredDuringSchedulingIgnoredDuringExecution, required, (term, p) =>
    podAffinityTerm(term, p, add),
  );
  const preferred = `${at}.preferredDuringSchedulingIgnoredDuringExecution`;
  items(affinity.preferredDuringSchedulingIgnoredDuringExecution, preferred, (weighted, p) => {
    weight(weighted.weight, `${p}.weight`, add);
    const term = record(weighted.podAffinityTerm);
    if (!term) add(`${p}.podAffinityTerm`, 'required: a pod affinity term');
    else podAffinityTerm(term, `${p}.podAffinityTerm`, add);
  });
}

function podAffinityTerm(term: Record_, at: string, add: Add): void {
  labelKey(term.topologyKey, `${at}.topologyKey`, add);
  labelSelector(record(term.labelSelector), `${at}.labelSelector`, add);
  labelSelector(record(term.namespaceSelector), `${at}.namespaceSelector`, add);
}

function spreadConstraint(constraint: Record_, at: string, add: Add): void {
  const { maxSkew, minDomains } = constraint;
  if (maxSkew === undefined || maxSkew === null)
    add(`${at}.maxSkew`, 'required: an integer of at least 1');
  else if (typeof maxSkew === 'number' && maxSkew < 1)
    add(`${at}.maxSkew`, `must be at least 1, got ${maxSkew}`);
  labelKey(constraint.topologyKey, `${at}.topologyKey`, add);
  const when = oneOf(
    constraint.whenUnsatisfiable,
    WHEN_UNSATISFIABLE,
    `${at}.whenUnsatisfiable`,
    add,
  );
  if (typeof minDomains === 'number') {
    if (minDomains < 1) add(`${at}.minDomains`, `must be at least 1, got ${minDomains}`);
    else if (when !== undefined && when !== 'DoNotSchedule')
      add(`${at}.minDomains`, 'may only be set with whenUnsatisfiable DoNotSchedule');
  }
  for (const policy of ['nodeAffinityPolicy', 'nodeTaintsPolicy'] as const)
    if (constraint[policy] !== undefined && constraint[policy] !== null)
      oneOf(constraint[policy], INCLUSION_POLICIES, `${at}.${policy}`, add);
  labelSelector(record(constraint.labelSelector), `${at}.labelSelector`, add);
}

function toleration(t: Record_, at: string, add: Add): void {
  const key = typeof t.key === 'string' ? t.key : '';
  if (key !== '') labelKey(key, `${at}.key`, add);
  const operator =
    t.operator === undefined || t.operator === null || t.operator === ''
      ? 'Equal'
      : oneOf(t.operator, TOLERATION_OPERATORS, `${at}.operator`, add);
  if (key === '' && operator === 'Equal')
    add(`${at}.operator`, 'must be "Exists" when the key is empty (it then tolerates every taint)');
  if (operator === 'Exists' && typeof t.value === 'string' && t.value !== '')
    add(`${at}.value`, 'must be empty when the operator is "Exists"');
  else if (typeof t.value === 'string' && t.value !== '') labelValue(t.value, `${at}.value`, add);
  const effect =
    t.effect === undefined || t.effect === null || t.effect === '' ? undefined : t.effect;
  if (effect !== undefined) oneOf(effect, TAINT_EFFECTS, `${at}.effect`, add);
  if (typeof t.tolerationSeconds === 'number' && effect !== 'NoExecute')
    add(`${at}.tolerationSeconds`, 'may only be set with effect NoExecute');
}

function containerPort(port: Record_, at: string, add: Add): void {
  const { containerPort: number, hostPort } = port;
  if (number === undefined || number === null)
    add(`${at}.containerPort`, 'required: a port number from 1 to 65535');
  else if (typeof number === 'number' && (number < 1 || number > 65535))
    add(`${at}.containerPort`, `must be a port number from 1 to 65535, got ${number}`);
  if (typeof hostPort === 'number' && hostPort !== 0 && (hostPort < 1 || hostPort > 65535))
    add(`${at}.hostPort`, `must be a port number from 1 to 65535, got ${hostPort}`);
  if (port.protocol !== undefined && port.protocol !== null)
    oneOf(port.protocol, PROTOCOLS, `${at}.protocol`, add);
}

function labelSelector(selector: Record_ | undefined, at: string, add: Add): void {
  if (!selector) return;
  labels(selector.matchLabels, `${at}.matchLabels`, add);
  items(selector.matchExpressions, `${at}.matchExpressions`, (expression, p) => {
    labelKey(expression.key, `${p}.key`, add);
    const operator = oneOf(expression.operator, SELECTOR_OPERATORS, `${p}.operator`, add);
    const values = Array.isArray(expression.values) ? expression.values : [];
    if ((operator === 'In' || operator === 'NotIn') && values.length === 0)
      add(`${p}.values`, `required: at least one value for ${operator}`);
    if ((operator === 'Exists' || operator === 'DoesNotExist') && values.length > 0)
      add(`${p}.values`, `must be empty for ${operator}`);
  });
}

/** A mapping of label keys to label values (nodeSelector, matchLabels). */
function labels(map: unknown, at: string, add: Add): void {
  const entries = record(map);
  if (!entries) return;
  for (const [key, value] of Object.entries(entries)) {
    const path = keyPath(at, key);
    const keyProblem = qualifiedNameProblem(key);
    if (keyProblem) add(path, `label key ${JSON.stringify(key)} is invalid: ${keyProblem}`);
    else if (typeof value === 'string') labelValue(value, path, add);
  }
}

function labelKey(key: unknown, at: string, add: Add): void {
  if (key === undefined || key === null || key === '')
    return add(at, 'required: a non-empty label key');
  if (typeof key !== 'string') return;
  const problem = qualifiedNameProblem(key);
  if (problem) add(at, `label key ${JSON.stringify(key)} is invalid: ${problem}`);
}

function labelValue(value: string, at: string, add: Add): void {
  const problem = labelValueProblem(value);
  if (problem) add(at, `label value ${JSON.stringify(value)} is invalid: ${problem}`);
}

function weight(value: unknown, at: string, add: Add): void {
  if (value === undefined || value === null) add(at, 'required: an integer from 1 to 100');
  else if (typeof value === 'number' && (value < 1 || value > 100))
    add(at, `must be an integer from 1 to 100, got ${value}`);
}

/** `value` when it is one of `allowed`, else undefined after reporting it (missing or not). */
function oneOf<T extends string>(
  value: unknown,
  allowed: readonly T[],
  at: string,
  add: Add,
): T | undefined {
  if ((allowed as readonly unknown[]).includes(value)) return value as T;
  const choices = allowed.map((a) => JSON.stringify(a)).join(', ');
  if (value === undefined || value === null || value === '') add(at, `required: one of ${choices}`);
  else if (typeof value === 'string')
    add(at, `must be one of ${choices}; got ${JSON.stringify(value)}`);
  return undefined;
}

/** Calls `each` with every item of `list` that is a mapping, and its path. */
function items(list: unknown, at: string, each: (item: Record_, path: string) => void): void {
  if (!Array.isArray(list)) return;
  list.forEach((item: unknown, i) => {
    const entry = record(item);
    if (entry) each(entry, `${at}[${i}]`);
  });
}

function record(value: unknown): Record_ | undefined {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
    ? (value as Record_)
    : undefined;
}
