/**
 * `karpenter-ts-sim validate <scenario>`: reads and checks a scenario (its manifests and trace
 * files too) without running it. Prints `ok: <name> ...` or one line per problem.
 */
import type { Command } from 'commander';
import type { Runtime } from '../runtime.js';
import { loadScenario } from '../scenario/load.js';
import { formatSeconds } from '../scenario/durations.js';
import { defaultScenarioPath } from '../scenario/default-scenario.js';

/** Adds the `validate` command to `program`. */
export function registerValidate(program: Command, runtime: Runtime): void {
  program
    .command('validate')
    .description('check a scenario, its manifests and trace files, without running it')
    .argument('[scenario]', 'scenario YAML file', defaultScenarioPath())
    .action(async (file: string) => {
      const scenario = await loadScenario(file);
      runtime.io.out(
        `ok: ${scenario.name}: ${formatSeconds(scenario.durationSeconds)}, ${scenario.events.length} event(s), ${scenario.documents.length} object(s) from ${scenario.manifests.length} manifest path(s), on ${scenario.clouds.map((c) => `${c.cloud}${c.region ? `:${c.region}` : ''}`).join(', ')}, under ${scenario.autoscalers.join(', ')}\n`,
      );
    });
}
