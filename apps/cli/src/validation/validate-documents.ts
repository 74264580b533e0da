/**
 * Offline validation of NodePools, NodeClaims, NodeOverlays (the karpenter.sh CRDs' OpenAPI
 * schemas and CEL rules, then NodePool runtime validation), provider NodeClasses
 * (AKSNodeClass, EC2NodeClass) and the workloads the CLI expands into pods, located in their
 * files; and objects the input defines twice.
 */
import {
  formatPath,
  objectMetaViolations,
  validate,
  validateNodeOverlayRuntime,
  validateNodePoolRuntime,
  type NodeOverlay,
  type NodePool,
  type Violation,
  didYouMean,
} from '@karpenter-ts/api';
import { AwsWellKnownValues, awsKarpenterValidators } from '@karpenter-ts/provider-aws';
import { AzureWellKnownValues, azureKarpenterValidators } from '@karpenter-ts/provider-azure';
import type { CrdValidator } from '@karpenter-ts/api';
import type { Cloud } from '../clouds/cloud.js';
import { fieldPath, location, objectName, type ManifestDocument } from '../manifests/document.js';
import { apiGroup, NODE_CLASS_GROUPS } from '../manifests/inventory.js';
import { unservedNodeClassRef } from '../clouds/node-class-ref.js';
import { WORKLOAD_KINDS } from '../workloads/expand.js';
import { budgetScheduleWarnings } from './budget-schedules.js';
import { duplicateObjects } from './duplicates.js';
import { nodePoolLimitProblems } from './node-pool-limits.js';
import {
  nodeProblems,
  podDisruptionBudgetProblems,
  workloadProblems,
} from './workload-problems.js';
import { workloadWarnings } from './workload-warnings.js';

/** One problem found by `validate`, located in its file. */
export interface Problem {
  file: string;
  /** 1-based document number in the file. */
  document: number;
  /** File line, for YAML syntax errors. */
  line?: number;
  /** Field path inside the document (`''` for the whole document). */
  field: string;
  message: string;
  /** `Kind/name` (`Kind/namespace/name` when a namespace is set) of the object, when known. */
  object?: string;
}

/** What `validate` checked and found. */
export interface ValidationReport {
  files: number;
  /** Objects validated, by kind. */
  checked: Record<string, number>;
  /** Objects of kinds validate does not check (Services, ConfigMaps, …). */
  skipped: number;
  problems: Problem[];
  /**
   * What the API server accepts but the CLI cannot use, such as a NodePool for a NodeClass kind
   * no provider here serves (KWOKNodeClass): reported, and the exit status stays 0.
   */
  warnings: Problem[];
}

const KARPENTER_GROUPS: ReadonlySet<string> = new Set(['karpenter.sh']);

/**
 * Validates every object of `documents` this command knows; other kinds are counted as skipped.
 * karpenter.sh objects go through the CRD validation of @karpenter-ts/api; NodePools and
 * NodeOverlays also through runtime validation (with the label rules of the provider their nodeClassRef names),
 * leaving out runtime problems on fields the schema already reported, and negative limits
 * (see nodePoolLimitProblems); NodeClasses through their
 * provider's validation; workloads (Deployments, Pods, …) through {@link workloadProblems};
 * core/v1 Nodes through {@link nodeProblems}; policy/v1 PodDisruptionBudgets through
 * {@link podDisruptionBudgetProblems}.
 * Every checked object's `metadata`, when present, must be a mapping, and its owner references
 * complete (the API server's ObjectMeta rule).
 * Objects in a provider's API group
 * with an unknown kind are reported. A NodePool whose nodeClassRef names a kind no cloud serves
 * is reported unless `options.nodeClassRefs` is false (`simulate` leaves such pools out instead).
 * An object defined a second time (see duplicateObjects) is a problem on the later definition's
 * `metadata.name`.
 */
export function validateDocuments(
  documents: readonly ManifestDocument[],
  clouds: readonly Cloud[],
  options: { nodeClassRefs?: boolean; providerCrds?: boolean } = {},
): Omit<ValidationReport, 'files'> {
  // With one cloud chosen, karpenter.sh objects are judged by the CRDs that cloud's provider
  // installs (its extra label rules), as a cluster running that provider would judge them.
  const crdValidators =
    options.providerCrds && clouds.length === 1 ? providerKarpenterValidators(clouds[0]!) : [];
  const report: Omit<ValidationReport, 'files'> = {
    checked: {},
    skipped: 0,
    problems: [],
    warnings: [],
  };
  for (const doc of documents) {
    const { kind, apiVersion } = doc.object;
    const group = apiGroup(apiVersion);
    const provider = clouds.find((c) => c.nodeClassKind.group === group);
    const workload = WORKLOAD_KINDS.has(kind) && !KARPENTER_GROUPS.has(group) && !provider;
    const node = group === '' && kind === 'Node';
    const pdb = group === 'policy' && kind === 'PodDisruptionBudget';
    if (!KARPENTER_GROUPS.has(group) && !provider && !workload && !node && !pdb) {
      report.skipped++;
      continue;
    }
    report.checked[kind] = (report.checked[kind] ?? 0) + 1;
    const add = metadataFirst(doc, problemAdder(report.problems, doc));
    if (workload || node || pdb) {
      const problems = node
        ? nodeProblems(doc.object)
        : pdb
          ? podDisruptionBudgetProblems(doc.object)
          : workloadProblems(doc.object);
      for (const p of problems) add(p.path, p.message);
      if (workload)
        for (const w of workloadWarnings(doc.object))
          problemAdder(report.warnings, doc)(w.path, w.message);
      // The API server checks every object's owner references; the snapshot reader follows
      // them to the workload that owns a pod.
      for (const [path, message] of objectMetaViolations(doc.object.metadata))
        if (path[1] === 'ownerReferences') add(formatPath(path), message);
      continue;
    }
    if (provider && kind === provider.nodeClassKind.kind) {
      for (const p of provider.validateNodeClass(doc.object)) add(p.path, p.message);
      continue;
    }
    const violations = validate(doc.object, { validators: crdValidators });
    for (const v of violations) add(v.path, v.message + providerKindHint(v, kind, provider));
    if (group === 'karpenter.sh' && kind === 'NodeOverlay') {
      // An overlay names no NodeClass: the label rules of every cloud checked apply.
      const runtime = validateNodeOverlayRuntime(doc.object as unknown as NodeOverlay, {
        extraWellKnownLabels: clouds.flatMap((c) => [...c.wellKnownLabels]),
        extraRestrictedDomains: clouds.flatMap((c) => [...c.restrictedLabelDomains]),
      });
      const reported = violations.map((v) => v.path);
      for (const v of runtime)
        if (!reported.some((path) => overlaps(path, v.path))) add(v.path, v.message);
    }
    if (group === 'karpenter.sh' && kind === 'NodePool') {
      // Runtime checks run even when the schema found problems, so one pass reports everything;
      // they overlap the CRD rules, so a runtime problem on a field the schema already reported
      // (or inside it, or around it) is left out.
      const nodePool = doc.object as unknown as NodePool;
      const ref = clouds.find(
        (c) => c.nodeClassKind.group === nodePool.spec?.template?.spec?.nodeClassRef?.group,
      );
      const runtime = validateNodePoolRuntime(nodePool, {
        ...(ref
          ? {
              extraWellKnownLabels: ref.wellKnownLabels,
              extraRestrictedDomains: ref.restrictedLabelDomains,
              wellKnownValues: providerWellKnownValues(ref),
            }
          : {}),
      });
      const unserved = options.nodeClassRefs === false ? undefined : unservedNodeClassRef(nodePool);
      const foreign = unserved ? foreignNodeClassRef(nodePool) : undefined;
      const reported = violations.map((v) => v.path);
      const extra = [
        ...runtime,
        ...(unserved && !foreign ? [unserved] : []),
        ...nodePoolLimitProblems(nodePool),
      ];
      for (const v of extra)
        if (!reported.some((path) => overlaps(path, v.path))) add(v.path, v.message);
      if (foreign) problemAdder(report.warnings, doc)(foreign.path, foreign.message);
      for (const w of budgetScheduleWarnings(nodePool))
        problemAdder(report.warnings, doc)(w.path, w.message);
    }
  }
  for (const d of duplicateObjects(documents))
    problemAdder(report.problems, d.document)('metadata.name', d.message);
  return report;
}

/**
 * `; did you mean "AKSNodeClass"?` for an unknown kind in a provider's group that is a near miss
 * of its NodeClass kind (`AKSNodeclass`); the api package's hint knows only karpenter.sh kinds.
 */
function providerKindHint(v: Violation, kind: string, provider: Cloud | undefined): string {
  if (v.rule !== 'unknown-kind' || provider === undefined) return '';
  const near = didYouMean(kind, [provider.nodeClassKind.kind]);
  return near === undefined ? '' : `; did you mean ${JSON.stringify(near)}?`;
}

/** The karpenter.sh validators with the rules `cloud`'s provider adds to its CRDs (none for sim). */
function providerKarpenterValidators(cloud: Cloud): readonly CrdValidator[] {
  if (cloud.name === 'azure') return azureKarpenterValidators();
  if (cloud.name === 'aws') return awsKarpenterValidators();
  return [];
}

/**
 * The known values of `cloud`'s well-known requirement keys its NodePool validation checks
 * (Azure: capacity type on-demand or spot, `kubernetes.azure.com/mode`, …; AWS:
 * `instance-tenancy`); sim keeps Karpenter's own (capacity type only).
 */
function providerWellKnownValues(cloud: Cloud): Readonly<Record<string, readonly string[]>> {
  if (cloud.name === 'azure') return AzureWellKnownValues;
  if (cloud.name === 'aws') return AwsWellKnownValues;
  return {};
}

/**
 * The warning for a NodePool whose `nodeClassRef` names a group no provider here serves (such as
 * `karpenter.kwok.sh` KWOKNodeClass, which upstream's own test NodePools use): the API server
 * and that group's provider accept it, so it is not a problem; but no cloud here launches from
 * it. A wrong kind in a group served here (`AKSNodeClas`) stays a problem: it is a typo.
 */
function foreignNodeClassRef(nodePool: NodePool): { path: string; message: string } | undefined {
  const ref = nodePool.spec?.template?.spec?.nodeClassRef as
    { group?: unknown; kind?: unknown } | undefined;
  if (typeof ref?.group !== 'string' || typeof ref.kind !== 'string') return undefined;
  if (Object.values(NODE_CLASS_GROUPS).includes(ref.group)) return undefined;
  return {
    path: 'spec.template.spec.nodeClassRef',
    message: `no provider here serves ${ref.kind} (group ${ref.group}): the NodePool is valid, but simulate, explain and compare leave it out`,
  };
}

/**
 * `add`, after a problem on `metadata` when `doc`'s object has one that is not a mapping (every
 * kind's objects have a metadata mapping with a name; the API server's decoder refuses any other
 * value): then no other problem at or inside `metadata` is added, as that one says it.
 */
function metadataFirst(
  doc: ManifestDocument,
  add: (path: string, message: string) => void,
): (path: string, message: string) => void {
  const metadata: unknown = doc.object.metadata;
  if (metadata === undefined || isMapping(metadata)) return add;
  add('metadata', `must be a mapping with a name, got ${JSON.stringify(metadata)}`);
  return (path, message) => {
    if (!overlaps('metadata', path)) add(path, message);
  };
}

function isMapping(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Adds a problem at a field path of `doc`'s object to `problems`. */
function problemAdder(
  problems: Problem[],
  doc: ManifestDocument,
): (path: string, message: string) => void {
  return (path, message) =>
    problems.push({
      file: doc.file,
      document: doc.document,
      field: fieldPath(doc, path),
      message,
      object: objectName(doc.object),
    });
}

/** Whether one field path is the other or lies inside it (`a.b` and `a.b[0].c`; `''` is the whole object). */
function overlaps(a: string, b: string): boolean {
  const inside = (outer: string, inner: string) =>
    outer === '' ||
    inner === outer ||
    inner.startsWith(`${outer}.`) ||
    inner.startsWith(`${outer}[`);
  return inside(a, b) || inside(b, a);
}

/** `file:document[:line] field: message`, the one-line form of a problem. */
export function formatProblem(p: Problem): string {
  const where = `${location(p)}${p.line === undefined ? '' : `:${p.line}`}`;
  return `${where} ${p.field ? `${p.field}: ` : ''}${p.message}`;
}

/** `file:document field: warning: message`, the one-line form of a warning. */
export function formatWarning(p: Problem): string {
  return formatProblem({ ...p, message: `warning: ${p.message}` });
}

/** Orders problems by file, then document. */
export function byLocation(a: Problem, b: Problem): number {
  return a.file < b.file ? -1 : a.file > b.file ? 1 : a.document - b.document;
}
