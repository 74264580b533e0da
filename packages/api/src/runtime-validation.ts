/**
 * NodePool runtime validation (karpenter-core 1.3 "Runtime validation"): the checks the NodePool
 * validation controller runs on stored NodePools and reports through the `ValidationSucceeded`
 * condition. They overlap the CRD rules on purpose (objects may predate a CRD rule) and add what
 * CEL cannot express, notably duplicate taint (key, effect) pairs across taints and startupTaints,
 * label key syntax, and the capacity-type value check. Violations carry `apiServer: 'accept'`:
 * the apiserver stores such a NodePool, but Karpenter will not use it.
 */
import { parseDuration } from './duration.js';
import { closestMatch } from 'leven';
import {
  CapacityTypes,
  isRestrictedLabel,
  Labels,
  normalizeLabelKey,
  WellKnownLabels,
} from './labels.js';
import { NodeSelectorOperators } from './types/common.js';
import type { NodeSelectorRequirementWithMinValues } from './types/common.js';
import type { Taint } from './types/core.js';
import type { NodePool } from './types/nodepool.js';
import type { NodeOverlay } from './types/nodeoverlay.js';
import type { Violation } from './validation/violation.js';

/** Options for {@link validateNodePoolRuntime}: provider additions to the label rules. */
export interface RuntimeValidationOptions {
  /** Provider well-known labels (e.g. `karpenter.azure.com/sku-family`), exempt from domain restrictions. */
  extraWellKnownLabels?: Iterable<string>;
  /** Provider-restricted label domains (e.g. `karpenter.azure.com`). */
  extraRestrictedDomains?: Iterable<string>;
  /**
   * Known values of well-known requirement keys, added to (or replacing) Karpenter's
   * `karpenter.sh/capacity-type: on-demand, spot, reserved`: an `In` requirement on such a key
   * needs at least one of them (and, with minValues, that many), compared case-sensitively, as
   * upstream's providers extend `WellKnownValuesForRequirements` (Azure: capacity types
   * `on-demand` and `spot` only, `kubernetes.azure.com/mode` `system` or `user`, …).
   */
  wellKnownValues?: Readonly<Record<string, readonly string[]>>;
}

const DNS1123_SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;
const QUALIFIED_NAME_PART = /^([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]$/;
const LABEL_VALUE = /^(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?$/;
const TAINT_EFFECTS = new Set(['NoSchedule', 'PreferNoSchedule', 'NoExecute']);

/** Why `key` is not a Kubernetes qualified name, or `undefined` when it is. */
export function qualifiedNameProblem(key: string): string | undefined {
  const parts = key.split('/');
  if (parts.length > 2) return 'a qualified name has at most one "/"';
  const name = parts.length === 2 ? (parts[1] ?? '') : key;
  if (parts.length === 2) {
    const prefix = parts[0] ?? '';
    if (prefix.length === 0) return 'the prefix before "/" must not be empty';
    if (prefix.length > 253 || !DNS1123_SUBDOMAIN.test(prefix))
      return `prefix ${JSON.stringify(prefix)} is not a DNS subdomain`;
  }
  if (name.length === 0) return 'the name part must not be empty';
  if (name.length > 63) return 'the name part must be at most 63 characters';
  if (!QUALIFIED_NAME_PART.test(name))
    return `name ${JSON.stringify(name)} must be letters, digits, "-", "_", "." and start and end with a letter or digit`;
  return undefined;
}

/** Why `value` is not a label value, or `undefined` when it is. */
export function labelValueProblem(value: string): string | undefined {
  if (value.length > 63) return 'a label value must be at most 63 characters';
  if (!LABEL_VALUE.test(value))
    return 'a label value must be letters, digits, "-", "_", "." and start and end with a letter or digit (or be empty)';
  return undefined;
}

/** The items of `value` that are mappings when it is a list; nothing otherwise. */
function mappingItems<T>(value: unknown): Array<[T, number]> {
  if (!Array.isArray(value)) return [];
  const out: Array<[T, number]> = [];
  value.forEach((item: unknown, i) => {
    if (typeof item === 'object' && item !== null && !Array.isArray(item)) out.push([item as T, i]);
  });
  return out;
}

/**
 * Runs the runtime checks on a NodePool and returns every violation (`rule` is `runtime:<check>`).
 * Never throws for malformed input: missing lists count as empty, and a list, map or item of the
 * wrong type (`requirements: Gte`) is left to the CRD schema, which reports it.
 * A restricted label or requirement key within two edits of a well-known label (ours or the
 * provider's) gets a `; did you mean <label>?` hint (upstream gives none).
 */
export function validateNodePoolRuntime(
  nodePool: NodePool,
  options: RuntimeValidationOptions = {},
): Violation[] {
  const name = nodePool?.metadata?.name ?? '';
  const out: Violation[] = [];
  const add = (path: string, check: string, message: string): void => {
    out.push({
      kind: 'NodePool',
      name,
      path,
      rule: `runtime:${check}`,
      message,
      apiServer: 'accept',
    });
  };
  const restricted = (key: string): boolean =>
    isRestrictedLabel(key, {
      ...(options.extraWellKnownLabels ? { extraWellKnown: options.extraWellKnownLabels } : {}),
      ...(options.extraRestrictedDomains ? { extraDomains: options.extraRestrictedDomains } : {}),
    });
  // A restricted key one or two edits from a well-known label is almost always its typo.
  const wellKnown = [...WellKnownLabels, ...(options.extraWellKnownLabels ?? [])];
  const restrictedMessage = (what: string, key: string): string => {
    const hint = closestMatch(key, wellKnown, { maxDistance: 2 });
    return `${what} ${key} is restricted (its domain is reserved)${hint ? `; did you mean ${hint}?` : ''}`;
  };
  const template = nodePool?.spec?.template;

  const labels: unknown = template?.metadata?.labels;
  const labelMap = typeof labels === 'object' && labels !== null && !Array.isArray(labels);
  for (const [key, value] of Object.entries(labelMap ? labels : {})) {
    const path = `spec.template.metadata.labels[${key}]`;
    if (key === Labels.NodePool)
      add(path, 'labels', `label ${key} is set by Karpenter and cannot be set on a NodePool`);
    const keyProblem = qualifiedNameProblem(key);
    if (keyProblem)
      add(path, 'labels', `label key ${JSON.stringify(key)} is invalid: ${keyProblem}`);
    const valueProblem =
      typeof value === 'string' ? labelValueProblem(value) : 'a label value must be a string';
    if (valueProblem)
      add(path, 'labels', `label value ${JSON.stringify(value)} is invalid: ${valueProblem}`);
    if (key !== Labels.NodePool && restricted(key))
      add(path, 'labels', restrictedMessage('label', key));
  }

  const seen = new Map<string, string>();
  const taintLists: Array<[string, unknown]> = [
    ['taints', template?.spec?.taints],
    ['startupTaints', template?.spec?.startupTaints],
  ];
  for (const [field, list] of taintLists) {
    for (const [taint, i] of mappingItems<Taint>(list)) {
      const path = `spec.template.spec.${field}[${i}]`;
      const keyProblem =
        typeof taint?.key === 'string' ? qualifiedNameProblem(taint.key) : 'the key is required';
      if (keyProblem)
        add(
          `${path}.key`,
          'taints',
          `taint key ${JSON.stringify(taint?.key)} is invalid: ${keyProblem}`,
        );
      if (taint?.value !== undefined && taint.value !== '') {
        const valueProblem = labelValueProblem(String(taint.value));
        if (valueProblem)
          add(
            `${path}.value`,
            'taints',
            `taint value ${JSON.stringify(taint.value)} is invalid: ${valueProblem}`,
          );
      }
      if (!TAINT_EFFECTS.has(String(taint?.effect))) {
        add(
          `${path}.effect`,
          'taints',
          `taint effect ${JSON.stringify(taint?.effect)} must be NoSchedule, PreferNoSchedule or NoExecute`,
        );
      }
      const id = `${String(taint?.key)}:${String(taint?.effect)}`;
      const first = seen.get(id);
      if (first)
        add(
          path,
          'taints',
          `duplicate taint ${id}: the same key and effect already appear at ${first}`,
        );
      else seen.set(id, path);
    }
  }

  const requirements = mappingItems<NodeSelectorRequirementWithMinValues>(
    template?.spec?.requirements,
  );
  const knownValues: Readonly<Record<string, readonly string[]>> = {
    [Labels.CapacityType]: CapacityTypes,
    ...options.wellKnownValues,
  };
  checkDurations(nodePool, add);
  const wellKnownKeys = new Set(wellKnown);
  for (const [req, i] of requirements) {
    const path = `spec.template.spec.requirements[${i}]`;
    checkRequirement(req, path, add, restricted, (key) =>
      restrictedMessage('requirement key', key),
    );
    checkKnownValues(req, path, add, knownValues, wellKnownKeys);
  }
  return out;
}

/**
 * Durations the CRD pattern admits but upstream cannot read (longer than Go's `time.Duration`),
 * and budget `nodes` integers beyond int32, which upstream's budget math refuses (so the
 * budget would allow 0 disruptions).
 */
function checkDurations(
  nodePool: NodePool,
  add: (path: string, check: string, message: string) => void,
): void {
  const spec = nodePool?.spec;
  const fields: [string, unknown][] = [
    ['spec.disruption.consolidateAfter', spec?.disruption?.consolidateAfter],
    ['spec.template.spec.expireAfter', spec?.template?.spec?.expireAfter],
    ['spec.template.spec.terminationGracePeriod', spec?.template?.spec?.terminationGracePeriod],
  ];
  const budgets: unknown = spec?.disruption?.budgets;
  for (const [budget, i] of mappingItems<Record<string, unknown>>(
    Array.isArray(budgets) ? budgets : [],
  )) {
    fields.push([`spec.disruption.budgets[${i}].duration`, budget?.['duration']]);
    const nodes = budget?.['nodes'];
    if (typeof nodes === 'string' && /^[0-9]+$/.test(nodes) && Number(nodes) > 2_147_483_647) {
      add(
        `spec.disruption.budgets[${i}].nodes`,
        'budgets',
        `nodes ${nodes} is larger than upstream's budget math reads (2147483647): the budget would allow 0 disruptions`,
      );
    }
  }
  for (const [path, value] of fields) {
    if (typeof value !== 'string' || !/^([0-9]+[hms])+$/.test(value)) continue;
    try {
      parseDuration(value);
    } catch (err) {
      add(path, 'duration', (err as Error).message);
    }
  }
}

/**
 * Upstream's well-known value check (NodePool validation): an `In` requirement on a well-known
 * key that has known values must name at least one of them, and, with minValues, at least that
 * many; other values are only logged upstream.
 */
function checkKnownValues(
  req: NodeSelectorRequirementWithMinValues,
  path: string,
  add: (path: string, check: string, message: string) => void,
  knownValues: Readonly<Record<string, readonly string[]>>,
  wellKnownKeys: ReadonlySet<string>,
): void {
  const key = normalizeLabelKey(String(req?.key ?? ''));
  if (req?.operator !== 'In' || !Array.isArray(req.values) || !wellKnownKeys.has(key)) return;
  if (!Object.hasOwn(knownValues, key)) return;
  const known = knownValues[key] as readonly string[];
  const valid = new Set(req.values.map(String).filter((v) => known.includes(v)));
  if (valid.size === 0) {
    add(`${path}.values`, 'requirements', `${key} In needs at least one of ${known.join(', ')}`);
  } else if (req.minValues !== undefined && valid.size < req.minValues) {
    add(
      `${path}.minValues`,
      'requirements',
      `${key} has only ${valid.size} known value${valid.size === 1 ? '' : 's'} (${[...valid].join(', ')}), fewer than minValues ${req.minValues}`,
    );
  }
}

/**
 * Runs the runtime checks upstream's NodeOverlay validation controller reports in its
 * `ValidationSucceeded` condition: each requirement's operator, key (not restricted, a
 * qualified name: a name part of at most 63 characters, which the CRD's 316-character key does
 * not ensure) and values, `In` with values, `Gt`/`Lt`/`Gte`/`Lte` with one integer. Violations
 * carry `apiServer: 'accept'` and `rule` `runtime:requirements`. Never throws for malformed
 * input (the CRD schema reports wrong types).
 */
export function validateNodeOverlayRuntime(
  nodeOverlay: NodeOverlay,
  options: RuntimeValidationOptions = {},
): Violation[] {
  const name = nodeOverlay?.metadata?.name ?? '';
  const out: Violation[] = [];
  const add = (path: string, check: string, message: string): void => {
    out.push({
      kind: 'NodeOverlay',
      name,
      path,
      rule: `runtime:${check}`,
      message,
      apiServer: 'accept',
    });
  };
  const restricted = (key: string): boolean =>
    isRestrictedLabel(key, {
      ...(options.extraWellKnownLabels ? { extraWellKnown: options.extraWellKnownLabels } : {}),
      ...(options.extraRestrictedDomains ? { extraDomains: options.extraRestrictedDomains } : {}),
    });
  const requirements = mappingItems<NodeSelectorRequirementWithMinValues>(
    nodeOverlay?.spec?.requirements,
  );
  for (const [req, i] of requirements) {
    checkRequirement(
      req,
      `spec.requirements[${i}]`,
      add,
      restricted,
      (key) => `requirement key ${key} is restricted (its domain is reserved)`,
      { nodePool: false },
    );
  }
  return out;
}

function checkRequirement(
  req: NodeSelectorRequirementWithMinValues,
  path: string,
  add: (path: string, check: string, message: string) => void,
  restricted: (key: string) => boolean,
  restrictedMessage: (key: string) => string,
  { nodePool }: { nodePool: boolean } = { nodePool: true },
): void {
  const key = normalizeLabelKey(String(req?.key ?? ''));
  // Values that are not a list are the schema's to report; the checks on them would only echo it.
  const listed = req?.values === undefined || Array.isArray(req.values);
  const values = Array.isArray(req?.values) ? req.values.map(String) : [];
  if (!NodeSelectorOperators.includes(req?.operator)) {
    add(
      `${path}.operator`,
      'requirements',
      `operator ${JSON.stringify(req?.operator)} is not supported (use ${NodeSelectorOperators.join(', ')})`,
    );
  }
  if (key === Labels.NodePool && nodePool)
    add(`${path}.key`, 'requirements', `a NodePool cannot require ${key} (Karpenter sets it)`);
  else if (restricted(key)) add(`${path}.key`, 'requirements', restrictedMessage(key));
  const keyProblem = qualifiedNameProblem(key);
  if (keyProblem)
    add(
      `${path}.key`,
      'requirements',
      `requirement key ${JSON.stringify(key)} is invalid: ${keyProblem}`,
    );
  if (!listed) return;
  values.forEach((v, j) => {
    const problem = labelValueProblem(v);
    if (problem)
      add(
        `${path}.values[${j}]`,
        'requirements',
        `value ${JSON.stringify(v)} is invalid: ${problem}`,
      );
  });
  if (req?.operator === 'In' && values.length === 0)
    add(`${path}.values`, 'requirements', 'operator In needs at least one value');
  if (req?.minValues !== undefined && values.length < req.minValues && req.operator === 'In') {
    add(
      `${path}.minValues`,
      'requirements',
      `minValues ${req.minValues} is more than the ${values.length} values given`,
    );
  }
  if (['Gt', 'Lt', 'Gte', 'Lte'].includes(req?.operator)) {
    if (values.length !== 1 || !/^[0-9]+$/.test(values[0] ?? '')) {
      add(
        `${path}.values`,
        'requirements',
        `operator ${req.operator} needs exactly one value, a non-negative integer`,
      );
    }
  }
}
