/**
 * `karpenter-ts validate`: checks NodePools, NodeClaims, NodeOverlays (the karpenter.sh CRDs'
 * OpenAPI schemas and CEL rules, then NodePool runtime validation) and provider NodeClasses
 * (AKSNodeClass, EC2NodeClass) in files and folders, offline.
 */
import { Option, type Command } from 'commander';
import { validate, validateNodePoolRuntime, type NodePool } from '@karpenter-ts/api';
import pc from 'picocolors';
import type { Runtime } from '../program.js';
import { createCloud } from '../clouds/select.js';
import type { Cloud } from '../clouds/cloud.js';
import { fieldPath, location, type ManifestDocument } from '../manifests/document.js';
import { apiGroup } from '../manifests/inventory.js';
import { loadManifests } from '../manifests/load.js';
import { toJson } from '../output/format.js';
import { CLOUD_NAMES } from './options.js';

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
  /** `Kind/name` of the object, when known. */
  object?: string;
}

/** What `validate` checked and found. */
export interface ValidationReport {
  files: number;
  /** Objects validated, by kind. */
  checked: Record<string, number>;
  /** Objects of kinds validate does not check (Deployments, Services, …). */
  skipped: number;
  problems: Problem[];
}

const KARPENTER_GROUPS: ReadonlySet<string> = new Set(['karpenter.sh']);

/**
 * Validates every object of `documents` this command knows; other kinds are counted as skipped.
 * karpenter.sh objects go through the CRD validation of @karpenter-ts/api; NodePools that pass it
 * also through runtime validation (with the label rules of the provider their nodeClassRef
 * names); NodeClasses through their provider's validation. Objects in a provider's API group
 * with an unknown kind are reported.
 */
export function validateDocuments(
  documents: readonly ManifestDocument[],
  clouds: readonly Cloud[],
): Omit<ValidationReport, 'files'> {
  const report: Omit<ValidationReport, 'files'> = { checked: {}, skipped: 0, problems: [] };
  for (const doc of documents) {
    const { kind, apiVersion } = doc.object;
    const group = apiGroup(apiVersion);
    const provider = clouds.find((c) => c.nodeClassKind.group === group);
    if (!KARPENTER_GROUPS.has(group) && !provider) {
      report.skipped++;
      continue;
    }
    report.checked[kind] = (report.checked[kind] ?? 0) + 1;
    const add = (path: string, message: string) =>
      report.problems.push({
        file: doc.file,
        document: doc.document,
        field: fieldPath(doc, path),
        message,
        object: `${kind}/${doc.object.metadata?.name ?? ''}`,
      });
    if (provider && kind === provider.nodeClassKind.kind) {
      for (const p of provider.validateNodeClass(doc.object)) add(p.path, p.message);
      continue;
    }
    const violations = validate(doc.object);
    for (const v of violations) add(v.path, v.message);
    if (violations.length === 0 && group === 'karpenter.sh' && kind === 'NodePool') {
      const nodePool = doc.object as unknown as NodePool;
      const ref = clouds.find(
        (c) => c.nodeClassKind.group === nodePool.spec.template.spec.nodeClassRef.group,
      );
      const runtime = validateNodePoolRuntime(nodePool, {
        ...(ref
          ? {
              extraWellKnownLabels: ref.wellKnownLabels,
              extraRestrictedDomains: ref.restrictedLabelDomains,
            }
          : {}),
      });
      for (const v of runtime) add(v.path, v.message);
    }
  }
  return report;
}

/** `file:document[:line] field: message`, the one-line form of a problem. */
export function formatProblem(p: Problem): string {
  const where = `${location(p)}${p.line === undefined ? '' : `:${p.line}`}`;
  return `${where} ${p.field ? `${p.field}: ` : ''}${p.message}`;
}

/** Adds the `validate` command to `program`. */
export function registerValidate(program: Command, runtime: Runtime): void {
  program
    .command('validate')
    .description(
      'validate NodePools, NodeClaims, NodeOverlays and NodeClasses (AKSNodeClass, EC2NodeClass) offline',
    )
    .argument('<paths...>', 'YAML/JSON files or folders (recursive); - reads standard input')
    .addOption(
      new Option('-o, --output <format>', 'output format')
        .choices(['text', 'json'])
        .default('text'),
    )
    .addHelpText(
      'after',
      '\nExit status: 0 when every object is valid, 1 when any problem is found, 2 on a usage error.\n\n' +
        'Examples:\n' +
        '  karpenter-ts validate examples/nodepools\n' +
        '  kubectl get nodepools -o yaml | karpenter-ts validate -',
    )
    .action(async (paths: string[], options: { output: 'text' | 'json' }) => {
      const loaded = await loadManifests(paths);
      const clouds = CLOUD_NAMES.map((name) => createCloud(name, undefined));
      const result = validateDocuments(loaded.documents, clouds);
      const report: ValidationReport = {
        files: loaded.files.length,
        ...result,
        problems: [
          ...loaded.errors.map((e) => ({
            file: e.file,
            document: e.document,
            ...(e.line === undefined ? {} : { line: e.line }),
            field: e.field ?? '',
            message: e.detail,
          })),
          ...result.problems,
        ].sort(byLocation),
      };
      if (options.output === 'json') runtime.io.out(toJson(report));
      else runtime.io.out(renderReport(report));
      runtime.exitCode = report.problems.length > 0 ? 1 : 0;
    });
}

function byLocation(a: Problem, b: Problem): number {
  return a.file < b.file ? -1 : a.file > b.file ? 1 : a.document - b.document;
}

function renderReport(report: ValidationReport): string {
  const lines = report.problems.map(formatProblem);
  const total = Object.values(report.checked).reduce((a, b) => a + b, 0);
  const kinds = Object.entries(report.checked)
    .map(([kind, n]) => `${n} ${kind}`)
    .join(', ');
  const files = `${report.files} file${report.files === 1 ? '' : 's'}`;
  const skipped =
    report.skipped > 0
      ? `; ${report.skipped} other object${report.skipped === 1 ? '' : 's'} skipped`
      : '';
  if (report.problems.length > 0) {
    const bad = new Set(report.problems.map((p) => `${p.file}:${p.document}:${p.object ?? ''}`))
      .size;
    lines.push(
      pc.red(
        `✗ ${report.problems.length} problem${report.problems.length === 1 ? '' : 's'} in ${bad} document${bad === 1 ? '' : 's'} (${total} object${total === 1 ? '' : 's'} checked in ${files}${skipped})`,
      ),
    );
  } else if (total === 0) {
    lines.push(`no NodePool, NodeClaim, NodeOverlay or NodeClass found in ${files}${skipped}`);
  } else {
    lines.push(
      pc.green(`✓ ${total} object${total === 1 ? '' : 's'} valid (${kinds}) in ${files}${skipped}`),
    );
  }
  return `${lines.join('\n')}\n`;
}
