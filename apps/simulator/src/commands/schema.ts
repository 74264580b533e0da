/**
 * `karpenter-ts-sim schema`: prints the scenario JSON Schema (for editors and validators).
 */
import type { Command } from 'commander';
import type { Runtime } from '../runtime.js';
import { SCENARIO_SCHEMA } from '../scenario/schema.js';

/** Adds the `schema` command to `program`. */
export function registerSchema(program: Command, runtime: Runtime): void {
  program
    .command('schema')
    .description('print the JSON Schema of scenario files')
    .action(() => {
      runtime.io.out(`${JSON.stringify(SCENARIO_SCHEMA, null, 2)}\n`);
    });
}
