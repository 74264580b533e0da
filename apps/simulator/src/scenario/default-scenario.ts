/**
 * Where the shipped default scenario is: `scenarios/default.yaml` in this package (Online
 * Boutique and Sock Shop through a day, on Azure eastus and AWS us-east-1).
 */
import { fileURLToPath } from 'node:url';

/** Absolute path of the default scenario file. */
export const DEFAULT_SCENARIO = fileURLToPath(
  new URL('../../scenarios/default.yaml', import.meta.url),
);
