/**
 * `npm run bench` (node dist/main.js [--quick] [--only <case-prefix>] [--solver wasm|ts]):
 * runs the scheduling benchmark and writes results/scheduling.json. `--quick` keeps the diverse
 * sizes up to 2,000 pods. Exits non-zero when any pod stays unscheduled.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { cpus, totalmem } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { measureCase, type SchedulingCaseResult } from './scheduling-bench.js';
import { DIVERSE_SIZES, diversePods, preferencePods } from './scheduling-workload.js';

function arg(name: string): string | undefined {
  const i = process.argv.indexOf(name);
  return i >= 0 ? process.argv[i + 1] : undefined;
}

async function main(): Promise<void> {
  const quick = process.argv.includes('--quick');
  const only = arg('--only');
  const solvers = (arg('--solver') ? [arg('--solver')] : ['wasm', 'ts']) as ('wasm' | 'ts')[];
  const sizes = DIVERSE_SIZES.filter((n) => !quick || n <= 2000);
  const cases: {
    name: string;
    pods: () => ReturnType<typeof diversePods>;
    policy: 'Respect' | 'Ignore';
  }[] = [
    ...sizes.map((n) => ({
      name: `diverse-${n}`,
      pods: () => diversePods(n),
      policy: 'Respect' as const,
    })),
    { name: 'preferences-respect', pods: () => preferencePods(), policy: 'Respect' },
    { name: 'preferences-ignore', pods: () => preferencePods(), policy: 'Ignore' },
  ];
  const results: SchedulingCaseResult[] = [];
  for (const c of cases) {
    if (only !== undefined && !c.name.startsWith(only)) continue;
    const pods = c.pods();
    for (const solver of solvers) {
      const r = await measureCase(c.name, pods, solver, c.policy, quick ? 1000 : 3000);
      results.push(r);
      console.log(
        `${r.name.padEnd(20)} ${r.solver.padEnd(4)} pods=${String(r.pods).padStart(5)} nodes=${String(r.nodes).padStart(5)} ` +
          `${(r.secondsPerSolve * 1000).toFixed(1).padStart(8)} ms/solve ${Math.round(r.podsPerSecond).toString().padStart(7)} pods/s ` +
          `first=${(r.firstSolveSeconds * 1000).toFixed(0)}ms heap=${(r.peakHeapBytes / 2 ** 20).toFixed(0)}MiB`,
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
