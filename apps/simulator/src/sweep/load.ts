/**
 * Reading a sweep file: its scenarios (each read and checked as `run` reads one), the clouds and
 * autoscalers to run them on (default: each scenario's own), and the NodePool variants, each a
 * JSON merge patch (RFC 7396, with the json-merge-patch library) per NodePool name applied to the
 * scenario's manifests before the run. Every problem is raised at once as a ScenarioError, each
 * `file:line field: message`; nothing runs on bad input.
 */
import { readFile } from 'node:fs/promises';
import { dirname, isAbsolute, join } from 'node:path';
import { apply } from 'json-merge-patch';
import { createCloud, validateDocuments, type ManifestDocument } from '@karpenter-ts/cli';
import { parseCloudArgument } from '../scenario/cloud-argument.js';
import { loadScenario } from '../scenario/load.js';
import { ScenarioError, unreadable, type ScenarioProblem } from '../scenario/problems.js';
import { schemaProblems } from '../scenario/schema-check.js';
import type { AutoscalerName, CloudRun, Scenario } from '../scenario/types.js';
import { readYaml } from '../scenario/yaml-source.js';
import { SWEEP_SCHEMA } from './schema.js';

/** One NodePool variant: a name and merge patches by NodePool name. */
export interface SweepVariant {
  readonly name: string;
  readonly nodePools: Readonly<Record<string, object>>;
}

/** A sweep, read and checked. */
export interface Sweep {
  readonly name: string;
  readonly file: string;
  readonly scenarios: readonly Scenario[];
  /** undefined: each scenario's clouds. */
  readonly clouds: readonly string[] | undefined;
  /** undefined: each scenario's autoscalers. */
  readonly autoscalers: readonly AutoscalerName[] | undefined;
  /** At least one (`as-written` with no patch when the file has none). */
  readonly variants: readonly SweepVariant[];
}

interface SweepData {
  name: string;
  scenarios: string[];
  clouds?: string[];
  autoscalers?: AutoscalerName[];
  variants?: { name: string; nodePools?: Record<string, object> }[];
}

/** Reads and checks the sweep at `file`. Raises ScenarioError with every problem. */
export async function loadSweep(file: string): Promise<Sweep> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    throw new ScenarioError([unreadable(file, error)]);
  }
  const source = readYaml(text, file);
  if (source.problems.length > 0) throw new ScenarioError(source.problems);
  const schema = schemaProblems(source, SWEEP_SCHEMA);
  if (schema.length > 0) throw new ScenarioError(schema);
  const data = source.data as SweepData;
  const problems: ScenarioProblem[] = [];
  const scenarios: Scenario[] = [];
  for (const path of data.scenarios) {
    const resolved = isAbsolute(path) ? path : join(dirname(file), path);
    try {
      scenarios.push(await loadScenario(resolved));
    } catch (error) {
      if (!(error instanceof ScenarioError)) throw error;
      problems.push(...error.problems);
    }
  }
  const names = new Map<string, number>();
  for (const [i, s] of scenarios.entries()) {
    const before = names.get(s.name);
    if (before !== undefined)
      problems.push({
        file,
        line: source.lineOf(['scenarios', i]),
        field: `scenarios[${i}]`,
        message: `scenario name ${s.name} is also the name of scenarios[${before}] (results are kept per scenario name)`,
      });
    names.set(s.name, i);
  }
  const variants: SweepVariant[] = (data.variants ?? [{ name: 'as-written' }]).map((v) => ({
    name: v.name,
    nodePools: v.nodePools ?? {},
  }));
  const seenVariants = new Set<string>();
  for (const [i, v] of variants.entries()) {
    if (seenVariants.has(v.name))
      problems.push({
        file,
        line: source.lineOf(['variants', i, 'name']),
        field: `variants[${i}].name`,
        message: `${v.name} is named twice`,
      });
    seenVariants.add(v.name);
    for (const pool of Object.keys(v.nodePools)) {
      const missing = scenarios.filter((s) => !allDocuments(s).some((d) => isNodePool(d, pool)));
      if (missing.length > 0)
        problems.push({
          file,
          line: source.lineOf(['variants', i, 'nodePools', pool]),
          field: `variants[${i}].nodePools.${pool}`,
          message: `no NodePool ${pool} in the manifests of scenario ${missing.map((s) => s.name).join(', ')}`,
        });
    }
  }
  const sweep: Sweep = {
    name: data.name,
    file,
    scenarios,
    clouds: data.clouds,
    autoscalers: data.autoscalers,
    variants,
  };
  // A patched NodePool must still be a valid NodePool on every cloud it runs on.
  for (const [i, v] of variants.entries()) {
    const pools = Object.keys(v.nodePools);
    if (pools.length === 0) continue;
    for (const scenario of scenarios) {
      const patched = withVariant(scenario, v);
      for (const run of sweepClouds(sweep, patched)) {
        const docs = [...patched.documents, ...run.documents].filter(
          (d) => d.object.kind === 'NodePool' && pools.includes(d.object.metadata?.name ?? ''),
        );
        for (const p of validateDocuments(docs, [createCloud(run.cloud, run.region)], {
          nodeClassRefs: false,
        }).problems)
          problems.push({
            file,
            line: source.lineOf(['variants', i, 'nodePools']),
            field: `variants[${i}].nodePools`,
            message: `scenario ${scenario.name} on ${run.cloud}: NodePool ${p.field}: ${p.message}`,
          });
      }
    }
  }
  if (problems.length > 0) throw new ScenarioError(problems);
  return sweep;
}

/** The scenario with the variant's NodePool patches applied to its manifests (a new object). */
export function withVariant(scenario: Scenario, variant: SweepVariant): Scenario {
  if (Object.keys(variant.nodePools).length === 0) return scenario;
  const patch = (docs: readonly ManifestDocument[]) =>
    docs.map((d) => {
      const name = d.object.metadata?.name;
      if (d.object.kind !== 'NodePool' || name === undefined) return d;
      const p = variant.nodePools[name];
      return p === undefined
        ? d
        : { ...d, object: apply(structuredClone(d.object), p) as ManifestDocument['object'] };
    });
  return {
    ...scenario,
    documents: patch(scenario.documents),
    clouds: scenario.clouds.map((c) => ({ ...c, documents: patch(c.documents) })),
  };
}

/** The clouds a case list runs `scenario` on: the sweep's (with the scenario's own manifests for each) or its own. */
export function sweepClouds(sweep: Sweep, scenario: Scenario): readonly CloudRun[] {
  return sweep.clouds === undefined
    ? scenario.clouds
    : sweep.clouds.map((c) => parseCloudArgument(c, scenario, 'clouds'));
}

function allDocuments(s: Scenario): ManifestDocument[] {
  return [...s.documents, ...s.clouds.flatMap((c) => c.documents)];
}

function isNodePool(d: ManifestDocument, name: string): boolean {
  return d.object.kind === 'NodePool' && d.object.metadata?.name === name;
}
