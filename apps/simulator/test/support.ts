/**
 * Builders for the simulator's specifications: scenario files written to a temporary folder next
 * to the repository's example workloads, and the problems loading them reports.
 */
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadScenario, ScenarioError, type RunOutput, type TimelineEvent } from '../src/index.js';
import { runScenario } from '../src/engine/run.js';

/** The repository's examples/ folder. */
export const EXAMPLES = resolve(fileURLToPath(new URL('../../../examples', import.meta.url)));
/** Online Boutique's manifests. */
export const BOUTIQUE = join(EXAMPLES, 'workloads/online-boutique-kubernetes-manifests.yaml');

/** Writes `files` (relative path → text) to a fresh temporary folder; returns the folder. */
export function writeFiles(files: Record<string, string>): string {
  const dir = mkdtempSync(join(tmpdir(), 'karpenter-ts-sim-'));
  for (const [name, text] of Object.entries(files)) {
    mkdirSync(dirname(join(dir, name)), { recursive: true });
    writeFileSync(join(dir, name), text);
  }
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

/** An AWS NodePool file: `name`, these instance types, capacity types, consolidation after `consolidateAfter`. */
export function awsNodePool(
  name: string,
  o: { instanceTypes: string[]; capacityTypes?: string[]; consolidateAfter?: string },
): string {
  return `apiVersion: karpenter.sh/v1
kind: NodePool
metadata:
  name: ${name}
spec:
  template:
    spec:
      nodeClassRef: {group: karpenter.k8s.aws, kind: EC2NodeClass, name: default}
      expireAfter: Never
      requirements:
        - {key: node.kubernetes.io/instance-type, operator: In, values: [${o.instanceTypes.join(', ')}]}
        - {key: karpenter.sh/capacity-type, operator: In, values: [${(o.capacityTypes ?? ['on-demand']).join(', ')}]}
  disruption:
    consolidationPolicy: WhenEmptyOrUnderutilized
    consolidateAfter: ${o.consolidateAfter ?? '30s'}
`;
}

/** Loads the scenario at `path` and runs it on its first cloud (the TypeScript solver, in this thread). */
export async function runFirstCloud(
  path: string,
  o: { fastForward?: boolean } = {},
): Promise<RunOutput> {
  const scenario = await loadScenario(path);
  return runScenario(scenario, scenario.clouds[0]!, { solver: 'ts', ...o });
}

/** Instance type → count of the instances running at the end of a run. */
export function finalNodes(run: RunOutput): Record<string, number> {
  const out: Record<string, number> = {};
  for (const [type, byCapacity] of Object.entries(run.summary.finalNodesByInstanceType))
    out[type] = Object.values(byCapacity).reduce((a, b) => a + (b ?? 0), 0);
  return out;
}

/** The run's events of one type. */
export function eventsOf<T extends TimelineEvent['type']>(
  run: RunOutput,
  type: T,
): Extract<TimelineEvent, { type: T }>[] {
  return run.events.filter((e): e is Extract<TimelineEvent, { type: T }> => e.type === type);
}
