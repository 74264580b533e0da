/**
 * `karpenter-ts validate`: checks NodePools, NodeClaims, NodeOverlays (the karpenter.sh CRDs'
 * OpenAPI schemas and CEL rules, then NodePool runtime validation), provider NodeClasses
 * (AKSNodeClass, EC2NodeClass) and workloads (Deployments, Pods, …) in files and folders,
 * offline; and objects defined twice.
 */
import { Option, type Command } from 'commander';
import type { Runtime } from '../program.js';
import { createCloud } from '../clouds/select.js';
import { loadManifests } from '../manifests/load.js';
import { toJson } from '../output/format.js';
import { renderReport } from '../output/validation-text.js';
import {
  byLocation,
  validateDocuments,
  type ValidationReport,
} from '../validation/validate-documents.js';
import { snapshotReferenceWarnings } from '../validation/snapshot-references.js';
import { CLOUD_NAMES, type CloudName } from './options.js';

/** Adds the `validate` command to `program`. */
export function registerValidate(program: Command, runtime: Runtime): void {
  program
    .command('validate')
    .description(
      'validate NodePools, NodeClaims, NodeOverlays, NodeClasses (AKSNodeClass, EC2NodeClass) and workloads offline',
    )
    .argument('<paths...>', 'YAML/JSON files or folders (recursive); - reads standard input')
    .addOption(
      new Option('-o, --output <format>', 'output format')
        .choices(['text', 'json'])
        .default('text'),
    )
    .addOption(
      new Option(
        '--cloud <cloud>',
        "judge karpenter.sh objects by the CRDs this cloud's provider installs (default: our own CRDs, every cloud's NodeClasses)",
      ).choices([...CLOUD_NAMES]),
    )
    .addHelpText(
      'after',
      '\nExit status: 0 when every object is valid, 1 when any problem is found, 2 on a usage error.\n\n' +
        'Examples:\n' +
        '  karpenter-ts validate examples/nodepools\n' +
        "  karpenter-ts validate --cloud azure nodepools.yaml   # as the Azure provider's CRDs judge them\n" +
        '  kubectl get nodepools -o yaml | karpenter-ts validate -',
    )
    .action(async (paths: string[], options: { output: 'text' | 'json'; cloud?: CloudName }) => {
      const loaded = await loadManifests(paths);
      const names = options.cloud === undefined ? CLOUD_NAMES : [options.cloud];
      const clouds = names.map((name) => createCloud(name, undefined));
      const result = validateDocuments(loaded.documents, clouds, {
        providerCrds: options.cloud !== undefined,
      });
      const problems = [
        ...loaded.errors.map((e) => ({
          file: e.file,
          document: e.document,
          ...(e.line === undefined ? {} : { line: e.line }),
          field: e.field ?? '',
          message: e.detail,
        })),
        ...result.problems,
      ].sort(byLocation);
      // The snapshot rules read objects as the commands do, which needs every object valid;
      // the commands stop on a validation problem before they reach these rules anyway.
      const references = problems.length === 0 ? snapshotReferenceWarnings(loaded.documents) : [];
      const report: ValidationReport = {
        files: loaded.files.length,
        ...result,
        problems,
        warnings: [...result.warnings, ...references].sort(byLocation),
      };
      if (options.output === 'json') runtime.io.out(toJson(report));
      else runtime.io.out(renderReport(report));
      runtime.exitCode = report.problems.length > 0 ? 1 : 0;
    });
}
