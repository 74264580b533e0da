/**
 * Where the shipped default scenario is: `scenarios/default.yaml` in this package (Online
 * Boutique and Sock Shop through a day, on Azure eastus and AWS us-east-1).
 */
import { relative } from 'node:path';
import { fileURLToPath } from 'node:url';

/** Absolute path of the default scenario file. */
export const DEFAULT_SCENARIO = fileURLToPath(
  new URL('../../scenarios/default.yaml', import.meta.url),
);

/** The default scenario's path relative to the working folder (as outputs name it). */
export function defaultScenarioPath(): string {
  return relative(process.cwd(), DEFAULT_SCENARIO) || DEFAULT_SCENARIO;
}
