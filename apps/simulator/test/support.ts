/**
 * Builders for the simulator's specifications: scenario files written to a temporary folder next
 * to the repository's example workloads, and the problems loading them reports.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadScenario, ScenarioError } from '../src/index.js';

/** The repository's examples/ folder. */
export const EXAMPLES = resolve(fileURLToPath(new URL('../../../examples', import.meta.url)));
/** Online Boutique's manifests. */
export const BOUTIQUE = join(EXAMPLES, 'workloads/online-boutique-kubernetes-manifests.yaml');

/** Writes `files` (name → text) to a fresh temporary folder; returns the folder. */
export function writeFiles(files: Record<string, string>): string {
  const dir = mkdtempSync(join(tmpdir(), 'karpenter-ts-sim-'));
  for (const [name, text] of Object.entries(files)) writeFileSync(join(dir, name), text);
  return dir;
}

/** Writes `scenario.yaml` (and `files`) and returns its path. */
export function writeScenario(yaml: string, files: Record<string, string> = {}): string {
  return join(writeFiles({ 'scenario.yaml': yaml, ...files }), 'scenario.yaml');
}

/** The one-line problems loading the scenario at `path` reports, with the folder cut off. */
export async function problemsOf(path: string): Promise<string[]> {
  try {
    await loadScenario(path);
  } catch (error) {
    if (!(error instanceof ScenarioError)) throw error;
    const dir = path.slice(0, path.lastIndexOf('/') + 1);
    return error.message.split('\n').map((l) => l.replaceAll(dir, ''));
  }
  return [];
}

/** A scenario header (apiVersion, kind, name, duration, the Boutique manifests) plus `rest`. */
export function scenarioYaml(
  rest: string,
  o: { duration?: string; manifests?: string[] } = {},
): string {
  const manifests = (o.manifests ?? [BOUTIQUE]).map((m) => `  - ${m}`).join('\n');
  return `apiVersion: sim.karpenter-ts.io/v1alpha1
kind: Scenario
name: test
duration: ${o.duration ?? '2h'}
manifests:
${manifests}
${rest}`;
}
