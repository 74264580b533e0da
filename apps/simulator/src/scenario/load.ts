/**
 * Reading a scenario file: YAML, the schema, the manifests it names (through the CLI's reader,
 * validation and workload expansion, so they mean what they mean to `karpenter-ts simulate`),
 * trace files, and the checks of {@link buildScenario}. Every problem is collected and raised
 * at once as a {@link ScenarioError}; nothing runs on bad input.
 */
import { readFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { dirname, isAbsolute, join, relative } from 'node:path';
import {
  createCloud,
  loadManifests,
  ManifestError,
  validateDocuments,
  type ManifestDocument,
} from '@karpenter-ts/cli';
import { nodeGroupProblems } from '../cluster-autoscaler/node-group-check.js';
import { startingObjects } from '../workloads/starting-objects.js';
import { buildScenario } from './build.js';
import type { ScenarioData } from './document-types.js';
import {
  fieldName,
  formatProblem,
  readErrorText,
  ScenarioError,
  unreadable,
  type ScenarioProblem,
} from './problems.js';
import { schemaFindings } from './schema-check.js';
import { readTrace } from './trace.js';
import type { Scenario } from './types.js';
import { readYaml, type YamlSource } from './yaml-source.js';

/** Options of {@link loadScenario}. */
export interface LoadOptions {
  /**
   * The seed instead of the file's `seed` (0 to 4294967295; `run --seed`): every random draw,
   * those made while reading (spot interruption times) included, comes from it.
   */
  readonly seed?: number;
}

/**
 * Reads and checks the scenario at `file` (paths in it are relative to its folder). Raises
 * {@link ScenarioError} with every problem found, each `file:line field: message`.
 */
export async function loadScenario(file: string, o: LoadOptions = {}): Promise<Scenario> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    throw new ScenarioError([unreadable(file, error)]);
  }
  return parseScenario(text, file, o);
}

/** {@link loadScenario} for text already read (`file` names it and anchors relative paths). */
export async function parseScenario(
  text: string,
  file: string,
  o: LoadOptions = {},
): Promise<Scenario> {
  const source = readYaml(text, file);
  if (source.problems.length > 0) throw new ScenarioError(source.problems);
  const findings = schemaFindings(source);
  const schema = findings.map((f) => f.problem);
  const read = source.data as ScenarioData;
  const data: ScenarioData = o.seed === undefined ? read : { ...read, seed: o.seed };
  if (schema.length === 0) return checkAndBuild(source, data, file, new Set());
  // The schema refused only events or unknown top-level fields: the rest is sound, so the
  // later checks (manifests, names) run too, and their problems come with the schema's.
  const invalidEvents = new Set<number>();
  const rest: Record<string, unknown> = { ...data };
  for (const { path, problem } of findings) {
    if (path[0] === 'events' && typeof path[1] === 'number') invalidEvents.add(path[1]);
    else if (path.length === 1 && problem.message.startsWith('unknown field'))
      delete rest[path[0] as string];
    // Nothing after the schema reads these two, so their problems need not stop the checks.
    else if (path.length === 1 && (path[0] === 'apiVersion' || path[0] === 'kind')) continue;
    else throw new ScenarioError(schema);
  }
  try {
    await checkAndBuild(source, rest as unknown as ScenarioData, file, invalidEvents);
  } catch (error) {
    if (error instanceof ScenarioError) throw new ScenarioError([...schema, ...error.problems]);
    throw error;
  }
  throw new ScenarioError(schema);
}

/**
 * The checks after the schema's (manifests, names, times, trace files) and the scenario built;
 * `invalidEvents`: events the schema refused, of which only the names are checked.
 */
async function checkAndBuild(
  source: YamlSource,
  data: ScenarioData,
  file: string,
  invalidEvents: ReadonlySet<number>,
): Promise<Scenario> {
  const dir = dirname(file);
  const resolve = (p: string) => (isAbsolute(p) ? p : join(dir, p));
  const problems: ScenarioProblem[] = [];

  const readAll = async (paths: readonly string[], field: (i: number) => (string | number)[]) => {
    const documents: ManifestDocument[] = [];
    for (const [i, path] of paths.entries()) {
      try {
        const loaded = await loadManifests([path]);
        documents.push(...loaded.documents);
        problems.push(...loaded.errors.map(manifestProblem));
      } catch (error) {
        problems.push({
          file,
          line: source.lineOf(field(i)),
          field: fieldName(field(i)),
          message: (error as Error).message,
        });
      }
    }
    return documents;
  };
  const manifestPaths = data.manifests.map(resolve);
  const documents = await readAll(manifestPaths, (i) => ['manifests', i]);
  const cloudEntries = data.clouds ?? [{ cloud: 'azure' as const }];
  // Regions first: their problems come with the manifests' in one report.
  const clouds = cloudEntries.map((c, k) => {
    try {
      // Named as the scenario's field, not as the CLI's `--region`.
      return createCloud(c.cloud, c.region, `clouds[${k}].region`);
    } catch (error) {
      problems.push({
        file,
        line: source.lineOf(['clouds', k, 'region']),
        field: '',
        message: (error as Error).message,
      });
      return undefined;
    }
  });
  const cloudManifests: { paths: string[]; documents: ManifestDocument[] }[] = [];
  for (const [k, c] of cloudEntries.entries()) {
    const paths = (c.manifests ?? []).map(resolve);
    cloudManifests.push({
      paths,
      documents: await readAll(paths, (i) => ['clouds', k, 'manifests', i]),
    });
  }
  if (problems.length > 0) throw new ScenarioError(problems);

  for (const [k, cloud] of clouds.entries()) {
    if (cloud === undefined) continue;
    const checked = [...documents, ...(cloudManifests[k]?.documents ?? [])].filter(
      (d) => d.object.kind !== 'Node',
    );
    for (const p of validateDocuments(checked, [cloud], { nodeClassRefs: false }).problems) {
      const problem = {
        file: p.file,
        line: p.line ?? lineOfDocument(p.file, p.document),
        field: p.field,
        message: p.message,
      };
      if (!problems.some((q) => formatProblem(q) === formatProblem(problem)))
        problems.push(problem);
    }
  }
  let workloadKeys: string[] = [];
  try {
    workloadKeys = startingObjects(documents, new Date(0)).scalable.map((w) => w.key);
  } catch (error) {
    if (!(error instanceof ManifestError)) throw error;
    problems.push(manifestProblem(error));
  }
  if (problems.length > 0) throw new ScenarioError(problems);

  const everything = [...documents, ...cloudManifests.flatMap((c) => c.documents)];
  const names = (kinds: readonly string[]) => {
    const found = everything
      .filter((d) => kinds.includes(d.object.kind))
      .map((d) => d.object.metadata?.name ?? '');
    return found.length > 0 ? [...new Set(found)] : ['default'];
  };
  const built = buildScenario(data, {
    source,
    documents,
    manifestPaths,
    cloudManifests,
    workloadKeys,
    nodePoolNames: names(['NodePool']),
    nodeClassNames: names(['AKSNodeClass', 'EC2NodeClass', 'SimNodeClass']),
    invalidEvents,
    readTrace: (name) => {
      const path = resolve(name);
      let csv: string;
      try {
        csv = readFileSync(path, 'utf8');
      } catch (error) {
        return {
          error: `cannot read ${name}: ${readErrorText(error)}`,
        };
      }
      const shown = isAbsolute(name) ? name : relative(process.cwd(), path) || path;
      return { path: shown, ...readTrace(csv, shown) };
    },
  });
  if (built.scenario === undefined) throw new ScenarioError(built.problems);
  const scenario = built.scenario;
  const specs = scenario.clusterAutoscaler.nodeGroups;
  if (specs !== undefined && scenario.autoscalers.includes('cluster-autoscaler')) {
    const groupProblems = nodeGroupProblems(
      specs,
      scenario.clouds.map((c) => ({
        cloud: c.cloud,
        ...(c.region === undefined ? {} : { region: c.region }),
        documents: [...scenario.documents, ...c.documents],
      })),
    );
    if (groupProblems.length > 0)
      throw new ScenarioError(
        groupProblems.map((g) => ({
          file,
          line: source.lineOf(g.path),
          field: fieldName(g.path),
          message: g.message,
        })),
      );
  }
  return scenario;
}

/** A manifest reader's error as a problem (its line when the YAML had one, else the document's). */
function manifestProblem(e: ManifestError): ScenarioProblem {
  return {
    file: e.file,
    line: e.line ?? lineOfDocument(e.file, e.document),
    field: e.field ?? '',
    message: e.detail,
  };
}

/** The first line of the `document`-th `---` section of a file (1 when it cannot tell). */
function lineOfDocument(file: string, document: number): number {
  if (document <= 1) return 1;
  try {
    const lines = readFileSync(file, 'utf8').split('\n');
    let seen = 1;
    for (let i = 0; i < lines.length; i++) {
      if (/^---(\s|$)/.test(lines[i] ?? '') && i > 0) {
        seen++;
        if (seen === document) return i + 2;
      }
    }
  } catch {
    // fall through
  }
  return 1;
}
