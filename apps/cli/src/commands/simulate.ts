/**
 * `karpenter-ts simulate`: schedules the pending pods of manifests onto a cloud's real
 * instance-type catalog with the NodePools in the input (or the cloud's default NodePool), and
 * prints the node claims Karpenter would launch.
 */
import { Option, type Command } from 'commander';
import type { Runtime } from '../program.js';
import { createCloud } from '../clouds/select.js';
import { loadManifestsStrict } from '../manifests/load.js';
import { OUTPUT_FORMATS, toJson, toYaml, type OutputFormat } from '../output/format.js';
import { renderSimulation } from '../output/simulation-table.js';
import { simulationReport } from '../simulation/report.js';
import { simulate, type SimulateOptions } from '../simulation/simulate.js';
import { nextTick, startProgress } from '../spinner.js';
import { CLOUD_NAMES, parseScale, type CloudName } from './options.js';
import { addGateOptions, type GateFlags } from './gate-options.js';
import { addPolicyOptions, type PolicyFlags } from './policy-options.js';

/** Options every simulation command shares. */
export interface SimulationFlags extends PolicyFlags, GateFlags {
  scale: number;
  solver: 'wasm' | 'ts';
}

/** The simulate() options the shared flags set. */
export function simulationOptions(flags: SimulationFlags): SimulateOptions {
  return {
    scale: flags.scale,
    solver: flags.solver,
    ...(flags.preferencePolicy ? { preferencePolicy: flags.preferencePolicy } : {}),
    ...(flags.minValuesPolicy ? { minValuesPolicy: flags.minValuesPolicy } : {}),
    ...(flags.nodeOverlay === true ? { nodeOverlay: true } : {}),
  };
}

/** Adds `--scale`, `--solver`, `--preference-policy`, `--min-values-policy` and `--node-overlay` to a command. */
export function addSimulationOptions(command: Command): Command {
  return addGateOptions(addPolicyOptions(command))
    .option(
      '--scale <factor>',
      'multiply workload replicas by factor (rounded up per workload)',
      parseScale,
      1,
    )
    .addOption(
      new Option('--solver <solver>', 'scheduler hot path: WebAssembly or TypeScript')
        .choices(['wasm', 'ts'])
        .default('wasm'),
    );
}

/** Adds the `simulate` command to `program`. */
export function registerSimulate(program: Command, runtime: Runtime): void {
  const command = program
    .command('simulate')
    .description(
      'simulate the node claims Karpenter would launch for the pending pods in manifests',
    )
    .argument(
      '<paths...>',
      'YAML/JSON files or folders with workloads, NodePools and NodeClasses; - reads standard input',
    )
    .addOption(
      new Option('--cloud <cloud>', 'cloud whose catalog and prices to use')
        .choices(CLOUD_NAMES)
        .default('azure'),
    )
    .option('--region <region>', 'region (default: azure eastus, aws us-east-1)')
    .addOption(
      new Option('-o, --output <format>', 'output format').choices(OUTPUT_FORMATS).default('table'),
    )
    .option('--fail-on-pending', 'exit with status 1 when any pod stays pending');
  addSimulationOptions(command)
    .addHelpText(
      'after',
      "\nWithout a NodePool in the input, the cloud's default NodePool and NodeClass are used (see docs/cli.md).\n\n" +
        'Examples:\n' +
        '  karpenter-ts simulate examples/workloads/online-boutique-kubernetes-manifests.yaml\n' +
        '  karpenter-ts simulate examples/workloads/sock-shop-complete-demo.yaml --cloud aws --scale 50 -o json',
    )
    .action(
      async (
        paths: string[],
        options: SimulationFlags & {
          cloud: CloudName;
          region?: string;
          output: OutputFormat;
          failOnPending?: boolean;
        },
      ) => {
        const progress = startProgress('Reading manifests');
        try {
          const documents = await loadManifestsStrict(paths);
          const cloud = createCloud(options.cloud, options.region);
          progress.update(`Simulating on ${cloud.name} ${cloud.region}`);
          await nextTick();
          const simulation = await simulate(documents, cloud, simulationOptions(options));
          progress.stop();
          if (options.output === 'json') runtime.io.out(toJson(simulationReport(simulation)));
          else if (options.output === 'yaml') runtime.io.out(toYaml(simulationReport(simulation)));
          else runtime.io.out(renderSimulation(simulation));
          if (options.failOnPending && simulation.podErrors.length > 0) runtime.exitCode = 1;
        } finally {
          progress.stop();
        }
      },
    );
}
