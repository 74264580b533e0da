/**
 * `karpenter-ts compare`: the same workload simulated on several clouds, side by side.
 */
import { Option, type Command } from 'commander';
import type { Runtime } from '../program.js';
import type { Cloud } from '../clouds/cloud.js';
import { createCloud } from '../clouds/select.js';
import { loadManifestsStrict } from '../manifests/load.js';
import { OUTPUT_FORMATS, toJson, toYaml, type OutputFormat } from '../output/format.js';
import { renderComparison } from '../output/compare-table.js';
import { comparisonRow, type ComparisonRow } from '../simulation/comparison.js';
import { simulate } from '../simulation/simulate.js';
import { nextTick, startProgress } from '../spinner.js';
import { parseCloudTargets, type CloudTarget } from './options.js';
import { addSimulationOptions, simulationOptions, type SimulationFlags } from './simulate.js';
import { cloudPlace } from '../output/cloud-place.js';

/** Adds the `compare` command to `program`. */
export function registerCompare(program: Command, runtime: Runtime): void {
  const command = program
    .command('compare')
    .description(
      'simulate the same workload on several clouds and compare nodes, cost and utilization',
    )
    .argument('<paths...>', 'YAML/JSON files or folders with workloads and (optionally) NodePools')
    .addOption(
      new Option('--clouds <list>', 'clouds to compare, as CLOUD[:REGION],...')
        .argParser(parseCloudTargets)
        // Help shows the default as the flag would be written, not as the parsed objects' JSON.
        .default(
          [
            { cloud: 'azure', region: 'eastus' },
            { cloud: 'aws', region: 'us-east-1' },
          ] satisfies CloudTarget[],
          'azure:eastus,aws:us-east-1',
        ),
    )
    .addOption(
      new Option('-o, --output <format>', 'output format').choices(OUTPUT_FORMATS).default('table'),
    );
  addSimulationOptions(command)
    .addHelpText(
      'after',
      "\nNodePools written for one cloud are reused on the others with that cloud's default NodeClass (see docs/cli.md).\n\n" +
        'Example:\n  karpenter-ts compare examples/workloads --clouds azure:eastus,aws:us-east-1,azure:westeurope --scale 10',
    )
    .action(
      async (
        paths: string[],
        options: SimulationFlags & { clouds: CloudTarget[]; output: OutputFormat },
      ) => {
        // Every CLOUD:REGION is checked before any work, so a typo fails fast.
        const clouds = uniqueClouds(
          options.clouds.map((t) => createCloud(t.cloud, t.region, '--clouds')),
          runtime,
        );
        const progress = startProgress('Reading manifests');
        try {
          const documents = await loadManifestsStrict(paths);
          const rows: ComparisonRow[] = [];
          const now = new Date();
          for (const cloud of clouds) {
            progress.update(`Simulating on ${cloudPlace(cloud)}`);
            await nextTick();
            rows.push(
              comparisonRow(
                await simulate(documents, cloud, { ...simulationOptions(options), now }),
              ),
            );
          }
          progress.stop();
          if (options.output === 'json') runtime.io.out(toJson(rows));
          else if (options.output === 'yaml') runtime.io.out(toYaml(rows));
          else runtime.io.out(renderComparison(rows, { paths, scale: options.scale }));
        } finally {
          progress.stop();
        }
      },
    );
}

/**
 * `clouds` without repeats of the same cloud and region (`azure` and `azure:eastus` are one),
 * first occurrence kept; a note on stderr names each repeat.
 */
function uniqueClouds(clouds: readonly Cloud[], runtime: Runtime): Cloud[] {
  const seen = new Set<string>();
  const unique: Cloud[] = [];
  for (const cloud of clouds) {
    const key = `${cloud.name}:${cloud.region}`;
    if (seen.has(key)) {
      runtime.io.err(`karpenter-ts: note: --clouds names ${key} more than once; running it once\n`);
      continue;
    }
    seen.add(key);
    unique.push(cloud);
  }
  return unique;
}
