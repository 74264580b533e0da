/**
 * From scenario data that passed the schema to a {@link Scenario}: times into seconds, names
 * resolved against the manifests, trace files read, and every check the schema cannot make (a time before 0 or after the end, a window that
 * ends before it starts, a curve point outside its period, a workload or NodePool the manifests
 * do not have, a negative request), each a {@link ScenarioProblem} on its line.
 */
import { parseQuantity } from '@karpenter-ts/scheduling';
import type { ManifestDocument } from '@karpenter-ts/cli';
import { resolveWorkloadRef } from '../workloads/workload-refs.js';
import type { DurationValue, EventData, ScenarioData } from './document-types.js';
import { durationSeconds, formatSeconds } from './durations.js';
import { fieldName, type ScenarioProblem } from './problems.js';
import { parseStartTime } from './start-time.js';
import type {
  Curve,
  NodeSelector,
  NodeStartup,
  PodShape,
  Scenario,
  ScenarioEvent,
  SourceRef,
  TraceRow,
} from './types.js';
import type { YamlSource } from './yaml-source.js';

/** The longest scenario (seconds): 31 days; longer runs would only exhaust memory. */
export const MaxScenarioSeconds = 31 * 86400;

/** Default time 0: Monday 2025-01-06 00:00 UTC. */
export const DEFAULT_START = '2025-01-06T00:00:00Z';
/** Default seconds between samples of the measures. */
export const DEFAULT_SAMPLE_SECONDS = 300;
/** Default seed. */
export const DEFAULT_SEED = 1;

/** What {@link buildScenario} checks names and reads files against. */
export interface BuildContext {
  readonly source: YamlSource;
  /** The manifests, read. */
  readonly documents: readonly ManifestDocument[];
  /** Resolved manifest paths (same order as the data's). */
  readonly manifestPaths: readonly string[];
  /** Per entry of `clouds` (same order): its own manifests, resolved and read. */
  readonly cloudManifests: readonly {
    readonly paths: readonly string[];
    readonly documents: readonly ManifestDocument[];
  }[];
  /** `namespace/name` of the manifests' scalable workloads. */
  readonly workloadKeys: readonly string[];
  /** NodePool names a change may name (the manifests', or `default` when they have none). */
  readonly nodePoolNames: readonly string[];
  /** NodeClass names a change may name (likewise). */
  readonly nodeClassNames: readonly string[];
  /**
   * Indices of events the schema refused: only their names (workloads, NodePool, NodeClass) are
   * checked, so those problems come with the schema's instead of after they are fixed.
   */
  readonly invalidEvents?: ReadonlySet<number>;
  /** Reads a trace file named in the scenario: rows and problems (with the trace's own lines). */
  readonly readTrace: (
    file: string,
  ) => { path: string; rows: TraceRow[]; problems: ScenarioProblem[] } | { error: string };
}

type Path = (string | number)[];

/** Builds the scenario, or returns every problem found. */
export function buildScenario(
  data: ScenarioData,
  ctx: BuildContext,
): { scenario: Scenario; problems: [] } | { scenario?: undefined; problems: ScenarioProblem[] } {
  const problems: ScenarioProblem[] = [];
  const { source } = ctx;
  const ref = (path: Path): SourceRef => ({
    file: source.file,
    line: source.lineOf(path),
    field: fieldName(path),
  });
  const problem = (path: Path, message: string) => problems.push({ ...ref(path), message });
  const seconds = (path: Path, value: DurationValue): number => {
    const s = durationSeconds(value);
    if (Number.isNaN(s)) problem(path, `not a duration: ${JSON.stringify(value)}`);
    return s;
  };
  const positive = (path: Path, value: DurationValue): number => {
    const s = seconds(path, value);
    if (s <= 0) problem(path, `must be longer than 0s; got ${JSON.stringify(value)}`);
    return s;
  };

  const durationSecondsValue = positive(['duration'], data.duration);
  if (durationSecondsValue > MaxScenarioSeconds) {
    problem(
      ['duration'],
      `must be at most ${MaxScenarioSeconds / 86400}d (a month of simulated time); got ${JSON.stringify(data.duration)}`,
    );
  }
  const end = durationSecondsValue;
  /** A time on the timeline: not before 0, and (`withinRun`) before the end. */
  const time = (path: Path, value: DurationValue, withinRun = true): number => {
    const s = seconds(path, value);
    if (s < 0) problem(path, `${displayed(value)} is before time 0 (the scenario starts at 0s)`);
    else if (withinRun && s >= end && end > 0)
      problem(path, `${displayed(value)} is not before the scenario's end (${formatSeconds(end)})`);
    return s;
  };
  const sampleSeconds =
    data.sample === undefined ? DEFAULT_SAMPLE_SECONDS : positive(['sample'], data.sample);
  const startText = data.start ?? DEFAULT_START;
  const start = parseStartTime(startText);
  if (typeof start !== 'number') problem(['start'], start.problem);
  const startMs = typeof start === 'number' ? start : NaN;
  const seed = data.seed ?? DEFAULT_SEED;

  const nodeStartup: Record<string, Partial<NodeStartup>> = {};
  for (const [cloud, s] of Object.entries(data.nodeStartup ?? {})) {
    const out: Record<string, number> = {};
    for (const [part, key] of [
      ['launch', 'launchSeconds'],
      ['boot', 'bootSeconds'],
      ['registration', 'registrationSeconds'],
    ] as const) {
      const v = s[part];
      if (v === undefined) continue;
      const n = seconds(['nodeStartup', cloud, part], v);
      if (n < 0) problem(['nodeStartup', cloud, part], `must not be negative; got ${displayed(v)}`);
      out[key] = n;
    }
    nodeStartup[cloud] = out;
  }

  const workloads = (path: Path, refs: readonly string[]): string[] => {
    const keys: string[] = [];
    refs.forEach((r, i) => {
      const resolved = resolveWorkloadRef(r, ctx.workloadKeys);
      if ('error' in resolved)
        problem(
          refs.length === 1 && path.at(-1) === 'workload' ? path : [...path, i],
          resolved.error,
        );
      else for (const k of resolved.keys) if (!keys.includes(k)) keys.push(k);
    });
    return keys;
  };

  const events: ScenarioEvent[] = [];
  (data.events ?? []).forEach((e, i) => {
    const at = (field: string) => ['events', i, field];
    if (ctx.invalidEvents?.has(i)) {
      checkNames(e as unknown, at);
      return;
    }
    const built = buildEvent(e, i, at);
    if (built !== undefined) events.push(built);
  });

  function buildEvent(e: EventData, i: number, at: (f: string) => Path): ScenarioEvent | undefined {
    const source = ref(['events', i]);
    switch (e.type) {
      case 'replicas': {
        if ((e.workload === undefined) === (e.workloads === undefined)) {
          problem(['events', i], 'needs exactly one of workload and workloads');
          return undefined;
        }
        const refs = e.workload !== undefined ? [e.workload] : (e.workloads ?? []);
        return {
          type: 'replicas',
          atSeconds: time(at('at'), e.at),
          workloads: workloads(e.workload !== undefined ? at('workload') : at('workloads'), refs),
          replicas: e.replicas,
          source,
        };
      }
      case 'replicasCurve': {
        const fromSeconds = e.from === undefined ? 0 : time(at('from'), e.from);
        const toSeconds = e.to === undefined ? end : time(at('to'), e.to, false);
        if (toSeconds <= fromSeconds)
          problem(at('to'), `must be after from (${formatSeconds(fromSeconds)})`);
        const everySeconds = e.every === undefined ? 900 : positive(at('every'), e.every);
        const curve = buildCurve(e.curve, [...at('curve')]);
        if (
          e.maxReplicas !== undefined &&
          e.minReplicas !== undefined &&
          e.maxReplicas < e.minReplicas
        )
          problem(at('maxReplicas'), `must be at least minReplicas (${e.minReplicas})`);
        return {
          type: 'replicasCurve',
          workloads: workloads(at('workloads'), e.workloads),
          fromSeconds,
          toSeconds,
          everySeconds,
          curve,
          minReplicas: e.minReplicas ?? 0,
          maxReplicas: e.maxReplicas,
          source,
        };
      }
      case 'jobs': {
        const completions = e.completions ?? 1;
        return {
          type: 'jobs',
          name: e.name,
          atSeconds: time(at('at'), e.at),
          repeatSeconds: e.repeat === undefined ? undefined : positive(at('repeat'), e.repeat),
          count: e.count ?? 1,
          completions,
          parallelism: e.parallelism ?? completions,
          runSeconds: nonNegative(at('runTime'), e.runTime),
          runJitter: e.runTimeJitter ?? 0,
          pod: podShape(e, at),
          source,
        };
      }
      case 'trace': {
        const read = ctx.readTrace(e.file);
        if ('error' in read) {
          problem(at('file'), read.error);
          return undefined;
        }
        problems.push(...read.problems);
        return { type: 'trace', file: read.path, rows: read.rows, source };
      }
      case 'spotInterruptions': {
        if ((e.ratePerHour === undefined) === (e.at === undefined)) {
          problem(['events', i], 'needs exactly one of ratePerHour and at');
          return undefined;
        }
        const times = (e.at ?? []).map((v, k) => time([...at('at'), k], v)).sort((a, b) => a - b);
        if (e.at !== undefined && (e.from !== undefined || e.to !== undefined))
          problem(
            at(e.from !== undefined ? 'from' : 'to'),
            'a window applies to ratePerHour, not to given times',
          );
        const fromSeconds = e.from === undefined ? 0 : time(at('from'), e.from);
        const toSeconds = e.to === undefined ? end : time(at('to'), e.to, false);
        if (toSeconds <= fromSeconds)
          problem(at('to'), `must be after from (${formatSeconds(fromSeconds)})`);
        return {
          type: 'spotInterruptions',
          atSeconds: times,
          ratePerHour: e.ratePerHour,
          fromSeconds,
          toSeconds,
          noticeSeconds: e.notice === undefined ? undefined : nonNegative(at('notice'), e.notice),
          selector: selector(e),
          source,
        };
      }
      case 'capacityError': {
        const fromSeconds = time(at('from'), e.from);
        const toSeconds = time(at('to'), e.to, false);
        if (toSeconds <= fromSeconds)
          problem(at('to'), `must be after from (${formatSeconds(fromSeconds)})`);
        return {
          type: 'capacityError',
          instanceType: e.instanceType,
          zone: e.zone,
          capacityType: e.capacityType,
          fromSeconds,
          toSeconds,
          source,
        };
      }
      case 'nodePoolChange':
      case 'nodeClassChange': {
        const pool = e.type === 'nodePoolChange';
        const name = pool ? e.nodePool : e.nodeClass;
        const names = pool ? ctx.nodePoolNames : ctx.nodeClassNames;
        if (!names.includes(name))
          problem(
            at(pool ? 'nodePool' : 'nodeClass'),
            `no ${pool ? 'NodePool' : 'NodeClass'} named ${name} (there are: ${names.join(', ')})`,
          );
        return { type: e.type, atSeconds: time(at('at'), e.at), name, patch: e.patch, source };
      }
      case 'nodeFailure':
        return {
          type: 'nodeFailure',
          atSeconds: time(at('at'), e.at),
          count: e.count ?? 1,
          selector: selector(e),
          source,
        };
    }
  }

  /** The names an event the schema refused refers to, where they have the right type. */
  function checkNames(e: unknown, at: (f: string) => Path): void {
    if (typeof e !== 'object' || e === null) return;
    const { type, workload, workloads: refs, nodePool, nodeClass } = e as Record<string, unknown>;
    if (typeof workload === 'string') workloads(at('workload'), [workload]);
    if (Array.isArray(refs) && refs.length > 0 && refs.every((r) => typeof r === 'string'))
      workloads(at('workloads'), refs as string[]);
    for (const [kind, name, names, field] of [
      ['NodePool', nodePool, ctx.nodePoolNames, 'nodePool'],
      ['NodeClass', nodeClass, ctx.nodeClassNames, 'nodeClass'],
    ] as const)
      if (type === `${field}Change` && typeof name === 'string' && !names.includes(name))
        problem(at(field), `no ${kind} named ${name} (there are: ${names.join(', ')})`);
  }

  function nonNegative(path: Path, value: DurationValue): number {
    const s = seconds(path, value);
    if (s < 0) problem(path, `must not be negative; got ${displayed(value)}`);
    return s;
  }

  function buildCurve(
    c: Extract<EventData, { type: 'replicasCurve' }>['curve'],
    path: Path,
  ): Curve {
    const periodSeconds = c.period === undefined ? 86_400 : positive([...path, 'period'], c.period);
    const points = c.points.map((p, k) => {
      const atSeconds = seconds([...path, 'points', k, 'at'], p.at);
      if (atSeconds < 0 || atSeconds >= periodSeconds)
        problem(
          [...path, 'points', k, 'at'],
          `${displayed(p.at)} is outside the curve's period (0s up to ${formatSeconds(periodSeconds)})`,
        );
      return { atSeconds, value: p.value };
    });
    points.sort((a, b) => a.atSeconds - b.atSeconds);
    for (let k = 1; k < points.length; k++)
      if (points[k]?.atSeconds === points[k - 1]?.atSeconds)
        problem([...path, 'points'], `two points at ${formatSeconds(points[k]?.atSeconds ?? 0)}`);
    return { shape: c.shape ?? 'sine', periodSeconds, points, noise: c.noise ?? 0 };
  }

  function podShape(e: Extract<EventData, { type: 'jobs' }>, at: (f: string) => Path): PodShape {
    const requests: Record<string, string> = {};
    for (const [name, value] of Object.entries(e.requests)) {
      const path = [...at('requests'), name];
      try {
        if (parseQuantity(value).nanos < 0n)
          problem(path, `negative request ${JSON.stringify(value)}`);
        else requests[name] = String(value);
      } catch (error) {
        problem(path, `not a quantity: ${JSON.stringify(value)} (${(error as Error).message})`);
      }
    }
    return {
      namespace: e.namespace ?? 'default',
      requests,
      labels: e.labels ?? {},
      nodeSelector: e.nodeSelector ?? {},
      tolerations: e.tolerations ?? [],
    };
  }

  // The baseline's node groups name NodePools; one no manifest has would fail the run at its start.
  (data.clusterAutoscaler?.nodeGroups ?? []).forEach((g, i) => {
    if (!ctx.nodePoolNames.includes(g.nodePool))
      problem(
        ['clusterAutoscaler', 'nodeGroups', i, 'nodePool'],
        `no NodePool named ${g.nodePool} (there are: ${ctx.nodePoolNames.join(', ')})`,
      );
  });

  if (problems.length > 0) return { problems };
  return {
    problems: [],
    scenario: {
      name: data.name,
      file: source.file,
      seed,
      startMs,
      durationSeconds: durationSecondsValue,
      sampleSeconds,
      clouds: (data.clouds ?? [{ cloud: 'azure' as const }]).map((c, k) => ({
        cloud: c.cloud,
        region: c.region,
        manifests: ctx.cloudManifests[k]?.paths ?? [],
        documents: ctx.cloudManifests[k]?.documents ?? [],
      })),
      manifests: ctx.manifestPaths,
      documents: ctx.documents,
      nodeStartup,
      karpenter: {
        spotToSpotConsolidation: data.karpenter?.spotToSpotConsolidation ?? false,
        nodeRepair: data.karpenter?.nodeRepair ?? false,
        nodeOverlay: data.karpenter?.nodeOverlay ?? false,
      },
      autoscalers: data.autoscalers ?? ['karpenter'],
      clusterAutoscaler: {
        expander: data.clusterAutoscaler?.expander ?? 'random',
        ...(data.clusterAutoscaler?.nodeGroups !== undefined
          ? { nodeGroups: data.clusterAutoscaler.nodeGroups }
          : {}),
      },
      events,
    },
  };
}

function selector(e: { instanceType?: string; zone?: string; nodePool?: string }): NodeSelector {
  return {
    ...(e.instanceType !== undefined ? { instanceType: e.instanceType } : {}),
    ...(e.zone !== undefined ? { zone: e.zone } : {}),
    ...(e.nodePool !== undefined ? { nodePool: e.nodePool } : {}),
  };
}

function displayed(value: DurationValue): string {
  return typeof value === 'number' ? `${value}s` : value;
}
