/**
 * `npm run bench:existing-nodes -w @karpenter-ts/benchmarks` (node dist/existing-nodes-main.js
 * [--nodes N[,N...]] [--baseline <scheduling dist index.js>] [--out <file name>]): placing pods
 * onto existing nodes when most nodes turn them away, as the kube-scheduler stand-in does in a
 * simulation of thousands of new nodes. N nodes each run a pod holding host port 8080; N/2 more
 * are empty; N/2 pending pods want port 8080 and a zone spread (ScheduleAnyway), so each finds a
 * node only among the empty ones. No NodePool. Measured with tinybench; writes
 * results/existing-nodes.json (default). `--baseline` measures another build of
 * @karpenter-ts/scheduling interleaved with this one and prints the ratios.
 */
import type { Pod } from '@karpenter-ts/api';
import { Scheduler, type SchedulerOptions } from '@karpenter-ts/scheduling';
import { existingNode, pod, unschedulablePods } from '@karpenter-ts/scheduling/testing';
import { Bench } from 'tinybench';
import { baselineScheduler, cliArg, resultsFile, writeSideBySide } from './side-by-side.js';

type SchedulerClass = new (options: SchedulerOptions) => { solve(pods: Pod[]): unknown };

/** One measured case, as written to results/existing-nodes.json. */
interface ExistingNodesResult {
  /** Nodes holding a port-8080 pod. */
  busyNodes: number;
  /** Empty nodes, and pending pods. */
  pendingPods: number;
  build: 'current' | 'baseline';
  /** Median seconds of one solve (Scheduler built and solved). */
  secondsPerSolve: number;
  iterations: number;
}

const ZONES = ['zone-a', 'zone-b', 'zone-c'];

function workload(busy: number): { options: SchedulerOptions; pending: Pod[] } {
  const node = (i: number, pods: Pod[]) =>
    existingNode({
      name: `node-${i}`,
      labels: { 'topology.kubernetes.io/zone': ZONES[i % ZONES.length]! },
      pods,
    });
  const running = (i: number) =>
    pod({
      name: `running-${i}`,
      requests: { cpu: '250m' },
      hostPorts: [{ port: 8080 }],
      phase: 'Running',
    });
  const empty = Math.floor(busy / 2);
  const existingNodes = [
    ...Array.from({ length: busy }, (_, i) => node(i, [running(i)])),
    ...Array.from({ length: empty }, (_, i) => node(busy + i, [])),
  ];
  const pending = unschedulablePods(empty, {
    labels: { app: 'web' },
    requests: { cpu: '250m' },
    hostPorts: [{ port: 8080 }],
    topologySpreadConstraints: [
      {
        topologyKey: 'topology.kubernetes.io/zone',
        maxSkew: 1,
        whenUnsatisfiable: 'ScheduleAnyway',
        labelSelector: { matchLabels: { app: 'web' } },
      },
    ],
  });
  return { options: { nodePools: [], instanceTypes: new Map(), existingNodes }, pending };
}

async function measure(
  Build: SchedulerClass,
  build: ExistingNodesResult['build'],
  busy: number,
): Promise<ExistingNodesResult> {
  const { options, pending } = workload(busy);
  const bench = new Bench({ iterations: 3, time: 0, warmupIterations: 1, warmupTime: 0 });
  bench.add(`${busy}/${build}`, () => {
    new Build(options).solve(pending);
  });
  await bench.run();
  const p50 = (bench.tasks[0]?.result as { latency?: { p50?: number } } | undefined)?.latency?.p50;
  if (p50 === undefined) throw new Error(`${busy} nodes (${build}): tinybench gave no latency`);
  return {
    busyNodes: busy,
    pendingPods: pending.length,
    build,
    secondsPerSolve: p50 / 1000,
    iterations: (bench.tasks[0]?.runs as number | undefined) ?? 0,
  };
}

async function main(): Promise<void> {
  const counts = (cliArg('--nodes') ?? '1000,3000').split(',').map(Number);
  const out = resultsFile(cliArg('--out') ?? 'existing-nodes.json');
  const baselinePath = cliArg('--baseline');
  const builds: [SchedulerClass, ExistingNodesResult['build']][] = [
    [Scheduler as unknown as SchedulerClass, 'current'],
  ];
  if (baselinePath !== undefined) {
    builds.push([await baselineScheduler<SchedulerClass>(baselinePath), 'baseline']);
  }
  const results: ExistingNodesResult[] = [];
  const ratios: Record<string, number> = {};
  for (const busy of counts) {
    for (const [Build, build] of builds) {
      const r = await measure(Build, build, busy);
      results.push(r);
      console.log(
        `${String(busy).padStart(6)} busy nodes ${String(r.pendingPods).padStart(6)} pending ${build.padEnd(8)} ${(r.secondsPerSolve * 1000).toFixed(0).padStart(7)} ms/solve`,
      );
    }
    const [current, baseline] = results.slice(-2);
    if (baselinePath !== undefined && current && baseline) {
      ratios[String(busy)] = baseline.secondsPerSolve / current.secondsPerSolve;
      console.log(`      baseline / current = ${ratios[String(busy)]?.toFixed(2)}x`);
    }
  }
  writeSideBySide(out, baselinePath, ratios, results);
  console.log(`wrote ${out}`);
}

await main();
