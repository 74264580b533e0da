/**
 * `karpenter-ts explain`: for one pod, every NodePool and why it can or cannot host it.
 */
import { Option, type Command } from 'commander';
import type { Runtime } from '../program.js';
import { createCloud } from '../clouds/select.js';
import { explainPod } from '../explain/explain-pod.js';
import { loadManifestsStrict } from '../manifests/load.js';
import { explanationJson, renderExplanation } from '../output/explain-text.js';
import { OUTPUT_FORMATS, toJson, toYaml, type OutputFormat } from '../output/format.js';
import { CLOUD_NAMES, type CloudName } from './options.js';
import { addSimulationOptions, simulationOptions, type SimulationFlags } from './simulate.js';

interface ExplainOptions extends SimulationFlags {
  pod: string;
  cloud: CloudName;
  region?: string;
  output: OutputFormat;
}

/** Adds the `explain` command to `program`. */
export function registerExplain(program: Command, runtime: Runtime): void {
  const command = program
    .command('explain')
    .description('explain, for one pod, why each NodePool can or cannot host it')
    .argument('<paths...>', 'YAML/JSON files or folders with workloads, NodePools and NodeClasses')
    .requiredOption('--pod <name>', 'pod name, NAMESPACE/NAME, or a workload name (its first pod)')
    .addOption(
      new Option('--cloud <cloud>', 'cloud whose catalog to use')
        .choices(CLOUD_NAMES)
        .default('azure'),
    )
    .option('--region <region>', 'region (default: azure eastus, aws us-east-1)')
    .addOption(
      new Option('-o, --output <format>', 'output format').choices(OUTPUT_FORMATS).default('table'),
    );
  addSimulationOptions(command)
    .addHelpText(
      'after',
      '\nExample:\n  karpenter-ts explain examples/workloads/online-boutique-kubernetes-manifests.yaml --pod frontend',
    )
    .action(async (paths: string[], options: ExplainOptions) => {
      const documents = await loadManifestsStrict(paths);
      const cloud = createCloud(options.cloud, options.region);
      const explanation = await explainPod(
        documents,
        cloud,
        options.pod,
        simulationOptions(options),
      );
      if (options.output === 'json') runtime.io.out(toJson(explanationJson(explanation)));
      else if (options.output === 'yaml') runtime.io.out(toYaml(explanationJson(explanation)));
      else runtime.io.out(renderExplanation(explanation));
    });
}
