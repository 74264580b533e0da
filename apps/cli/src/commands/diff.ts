/**
 * `karpenter-ts diff`: a what-if of NodePool changes. The snapshot is run to a stable state by the
 * controllers (provisioning, drift, consolidation) under its own NodePools and NodeClasses and
 * under the proposed ones, and the two ends are compared.
 */
import { Option, type Command } from 'commander';
import type { Runtime } from '../program.js';
import { createCloud } from '../clouds/select.js';
import { diffReport } from '../diff/diff-report.js';
import { UsageError } from '../errors.js';
import { loadManifestsStrict } from '../manifests/load.js';
import { renderDiff } from '../output/diff-table.js';
import { OUTPUT_FORMATS, toJson, toYaml, type OutputFormat } from '../output/format.js';
import { snapshotCloud } from '../snapshot/snapshot-cloud.js';
import { nextTick, startProgress } from '../spinner.js';
import { CLOUD_NAMES, parseNow, type CloudName } from './options.js';
import { addGateOptions, type GateFlags } from './gate-options.js';
import { addPolicyOptions, type PolicyFlags } from './policy-options.js';

interface DiffOptions extends PolicyFlags, GateFlags {
  nodepools?: string[];
  cloud?: CloudName;
  region?: string;
  now?: Date;
  output: OutputFormat;
  solver: 'wasm' | 'ts';
}

/** Adds the `diff` command to `program`. */
export function registerDiff(program: Command, runtime: Runtime): void {
  const command = program
    .command('diff')
    .description(
      "what if these NodePools (and NodeClasses) replaced the cluster's: both run to a stable state, compared",
    )
    .argument(
      '<snapshot...>',
      'kubectl get ... -o yaml output or manifest files/folders of the cluster',
    )
    .option('--nodepools <paths...>', 'the proposed NodePools and NodeClasses (files or folders)')
    .addOption(
      new Option(
        '--cloud <cloud>',
        "catalog and prices (default: the snapshot's NodeClass kind, else azure)",
      ).choices(CLOUD_NAMES),
    )
    .option(
      '--region <region>',
      "region (default: the Nodes' topology.kubernetes.io/region, else the cloud's default)",
    )
    .option('--now <time>', 'when both runs start, RFC 3339 (default: now)', parseNow)
    .addOption(
      new Option('-o, --output <format>', 'output format').choices(OUTPUT_FORMATS).default('table'),
    )
    .addOption(
      new Option('--solver <solver>', 'scheduler hot path: WebAssembly or TypeScript')
        .choices(['wasm', 'ts'])
        .default('wasm'),
    );
  addGateOptions(addPolicyOptions(command))
    .addHelpText(
      'after',
      '\nExample:\n  karpenter-ts diff examples/snapshots/sim-cluster.yaml --nodepools examples/snapshots/narrower-nodepool.yaml --now 2026-12-01T10:00:00Z',
    )
    .action(async (paths: string[], options: DiffOptions) => {
      if (!options.nodepools || options.nodepools.length === 0)
        throw new UsageError(
          '--nodepools: name the files with the proposed NodePools (see karpenter-ts diff --help)',
        );
      const progress = startProgress('Reading the snapshot');
      try {
        const snapshot = await loadManifestsStrict(paths);
        const proposal = await loadManifestsStrict(options.nodepools);
        const inferred = snapshotCloud(snapshot);
        const cloud = createCloud(
          options.cloud ?? inferred.cloud ?? 'azure',
          options.region ?? (options.cloud === undefined ? inferred.region : undefined),
        );
        progress.update(`Running both sides on ${cloud.name} ${cloud.region} until stable`);
        await nextTick();
        const report = await diffReport(snapshot, proposal, cloud, {
          now: options.now ?? new Date(),
          solver: options.solver,
          ...(options.preferencePolicy ? { preferencePolicy: options.preferencePolicy } : {}),
          ...(options.minValuesPolicy ? { minValuesPolicy: options.minValuesPolicy } : {}),
          ...(options.nodeOverlay === true ? { nodeOverlay: true } : {}),
        });
        progress.stop();
        if (options.output === 'json') runtime.io.out(toJson(report));
        else if (options.output === 'yaml') runtime.io.out(toYaml(report));
        else runtime.io.out(renderDiff(report));
      } finally {
        progress.stop();
      }
    });
}
