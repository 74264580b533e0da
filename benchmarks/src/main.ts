/**
 * `npm run bench` (node dist/main.js [--quick] [--large] [--only <case-prefix>] [--solver wasm|ts]):
 * runs the scheduling benchmark and writes results/scheduling.json. `--quick` keeps the diverse
 * sizes up to 2,000 pods; `--large` adds `diverse-200000`, measured by one cold solve per
 * solver. Exits non-zero when any pod stays unscheduled.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { cpus, totalmem } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { measureCase, type SchedulingCaseResult } from './scheduling-bench.js';
import type { NodePool } from '@karpenter-ts/api';
import {
  DIVERSE_SIZES,
  diversePods,
  LARGE_DIVERSE_SIZE,
  largeBenchmarkNodePool,
  preferencePods,
} from './scheduling-workload.js';

function arg(name: string): string | undefined {
  const i = process.argv.indexOf(name);
  return i >= 0 ? process.argv[i + 1] : undefined;
}

async function main(): Promise<void> {
  const quick = process.argv.includes('--quick');
  const only = arg('--only');
  const solvers = (arg('--solver') ? [arg('--solver')] : ['wasm', 'ts']) as ('wasm' | 'ts')[];
  const sizes = DIVERSE_SIZES.filter((n) => !quick || n <= 2000);
  const large = process.argv.includes('--large');
  const cases: {
    name: string;
    pods: () => ReturnType<typeof diversePods>;
    policy: 'Respect' | 'Ignore';
    nodePool?: NodePool;
    onlyFirstSolve?: boolean;
  }[] = [
    ...sizes.map((n) => ({
      name: `diverse-${n}`,
      pods: () => diversePods(n),
      policy: 'Respect' as const,
    })),
    { name: 'preferences-respect', pods: () => preferencePods(), policy: 'Respect' },
    { name: 'preferences-ignore', pods: () => preferencePods(), policy: 'Ignore' },
    ...(large
      ? [
          {
            name: `diverse-${LARGE_DIVERSE_SIZE}`,
            pods: () => diversePods(LARGE_DIVERSE_SIZE),
            policy: 'Respect' as const,
            nodePool: largeBenchmarkNodePool(),
            onlyFirstSolve: true,
          },
        ]
      : []),
  ];
  const results: SchedulingCaseResult[] = [];
  for (const c of cases) {
    if (only !== undefined && !c.name.startsWith(only)) continue;
    const pods = c.pods();
    for (const solver of solvers) {
      const r = await measureCase(c.name, pods, solver, c.policy, quick ? 1000 : 3000, {
        ...(c.nodePool === undefined ? {} : { nodePool: c.nodePool }),
        ...(c.onlyFirstSolve === true ? { onlyFirstSolve: true } : {}),
      });
      results.push(r);
      console.log(
        `${r.name.padEnd(20)} ${r.solver.padEnd(4)} pods=${String(r.pods).padStart(5)} nodes=${String(r.nodes).padStart(5)} ` +
          `${(r.secondsPerSolve * 1000).toFixed(1).padStart(8)} ms/solve ${Math.round(r.podsPerSecond).toString().padStart(7)} pods/s ` +
          `first=${(r.firstSolveSeconds * 1000).toFixed(0)}ms (cpu ${(r.firstSolveCpuSeconds * 1000).toFixed(0)}ms) ` +
          `heap=${(r.peakHeapBytes / 2 ** 20).toFixed(0)}MiB rss=${(r.maxRssBytes / 2 ** 20).toFixed(0)}MiB`,
      );
    }
  }
  const cpu = cpus()[0];
  const out = {
    machine: {
      cpu: cpu?.model ?? 'unknown',
      cores: cpus().length,
      memoryBytes: totalmem(),
      node: process.version,
      platform: `${process.platform}/${process.arch}`,
    },
    date: new Date().toISOString(),
    quick,
    large,
    cases: results,
  };
  const dir = join(dirname(fileURLToPath(import.meta.url)), '..', 'results');
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'scheduling.json'), `${JSON.stringify(out, null, 2)}\n`);
  console.log(`wrote ${join(dir, 'scheduling.json')}`);
}

main().catch((e: unknown) => {
  console.error(e instanceof Error ? e.message : String(e));
  process.exit(1);
});
