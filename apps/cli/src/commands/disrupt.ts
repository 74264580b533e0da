/**
 * `karpenter-ts disrupt`: what Karpenter's disruption would do to a cluster right now, offline.
 * The snapshot (manifest files or `kubectl get ... -o yaml` output) is loaded into the
 * in-memory cluster and the controllers' disruption pass runs at `--now` without acting
 * (`DisruptionController.plan()`); with `--until-stable`, the controllers run on the clock,
 * carrying out each command (replacements launched, pods rescheduled) until a pass finds none.
 */
import { Option, type Command } from 'commander';
import type { Runtime } from '../program.js';
import { startCluster } from '../cluster/cluster-loop.js';
import { createCloud } from '../clouds/select.js';
import { runDisruptionPass } from '../disrupt/disruption-pass.js';
import { CommandLog, runUntilStable } from '../disrupt/until-stable.js';
import { loadManifestsStrict } from '../manifests/load.js';
import { renderDisruption } from '../output/disruption-table.js';
import { renderStabilization } from '../output/stabilization-table.js';
import { OUTPUT_FORMATS, toJson, toYaml, type OutputFormat } from '../output/format.js';
import { readSnapshot } from '../snapshot/read-snapshot.js';
import { snapshotCloud } from '../snapshot/snapshot-cloud.js';
import { nextTick, startProgress } from '../spinner.js';
import { CLOUD_NAMES, parseNow, type CloudName } from './options.js';
import { addGateOptions, type GateFlags } from './gate-options.js';
import { addPolicyOptions, type PolicyFlags } from './policy-options.js';

interface DisruptOptions extends PolicyFlags, GateFlags {
  cloud?: CloudName;
  region?: string;
  now?: Date;
  untilStable?: boolean;
  output: OutputFormat;
  failOnCommand?: boolean;
  solver: 'wasm' | 'ts';
  spotToSpot?: boolean;
}

/** Adds the `disrupt` command to `program`. */
export function registerDisrupt(program: Command, runtime: Runtime): void {
  const command = program
    .command('disrupt')
    .description(
      "show what Karpenter's disruption (emptiness, drift, consolidation) would do to a cluster snapshot now",
    )
    .argument(
      '<snapshot...>',
      'kubectl get ... -o yaml output or manifest files/folders (Nodes, Pods, NodeClaims, NodePools, ...); - reads standard input',
    )
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
    .option('--now <time>', 'the time of the pass, RFC 3339 (default: now)', parseNow)
    .option('--until-stable', 'carry out each command and run passes until one finds nothing to do')
    .addOption(
      new Option('-o, --output <format>', 'output format').choices(OUTPUT_FORMATS).default('table'),
    )
    .option(
      '--fail-on-command',
      'exit with status 1 when the pass would disrupt a node (for CI gates)',
    )
    .option('--spot-to-spot', 'enable the SpotToSpotConsolidation feature gate')
    .addOption(
      new Option('--solver <solver>', 'scheduler hot path: WebAssembly or TypeScript')
        .choices(['wasm', 'ts'])
        .default('wasm'),
    );
  addGateOptions(addPolicyOptions(command))
    .addHelpText(
      'after',
      '\nExamples:\n' +
        '  kubectl get nodes,pods,nodeclaims,nodepools,aksnodeclasses,ec2nodeclasses,daemonsets,pdb,pv,pvc,storageclasses,deployments,replicasets,statefulsets,jobs -A -o yaml > cluster.yaml\n' +
        '  karpenter-ts disrupt cluster.yaml\n' +
        '  karpenter-ts disrupt cluster.yaml --now 2026-12-01T10:00:00Z -o json\n' +
        '  karpenter-ts disrupt cluster.yaml --until-stable --fail-on-command',
    )
    .action(async (paths: string[], options: DisruptOptions) => {
      const progress = startProgress('Reading the snapshot');
      try {
        const documents = await loadManifestsStrict(paths);
        const inferred = snapshotCloud(documents);
        const cloudName = options.cloud ?? inferred.cloud ?? 'azure';
        const region =
          options.region ?? (options.cloud === undefined ? inferred.region : undefined);
        const cloud = createCloud(cloudName, region);
        const now = options.now ?? new Date();
        const read = readSnapshot(documents, cloud, {
          now,
          unknownKinds: 'error',
          clusterSnapshot: true,
          ...(options.nodeOverlay === true ? { nodeOverlay: true } : {}),
        });
        progress.update(`Loading the cluster on ${cloud.name} ${cloud.region}`);
        await nextTick();
        const log = options.untilStable ? new CommandLog() : undefined;
        const cluster = await startCluster(read, cloud, {
          now,
          solver: options.solver,
          ...(options.preferencePolicy ? { preferencePolicy: options.preferencePolicy } : {}),
          ...(options.minValuesPolicy ? { minValuesPolicy: options.minValuesPolicy } : {}),
          ...(options.spotToSpot ? { spotToSpotConsolidation: true } : {}),
          ...(options.nodeOverlay === true ? { nodeOverlay: true } : {}),
          ...(log ? { disruptionObserver: log.observer } : {}),
        });
        let acted: boolean;
        let text: string;
        let report: unknown;
        if (log) {
          progress.update('Running disruption passes until stable');
          const result = await runUntilStable(cluster, read, cloud, log);
          acted = result.commands.length > 0;
          report = result;
          text = renderStabilization(result);
        } else {
          progress.update('Computing the disruption pass');
          const result = await runDisruptionPass(cluster, read, cloud);
          acted = result.commands.length > 0;
          report = result;
          text = renderDisruption(result);
        }
        progress.stop();
        if (options.output === 'json') runtime.io.out(toJson(report));
        else if (options.output === 'yaml') runtime.io.out(toYaml(report));
        else runtime.io.out(text);
        if (options.failOnCommand && acted) runtime.exitCode = 1;
      } finally {
        progress.stop();
      }
    });
}
