/**
 * `npm run bench:simulator` (node dist/simulator-main.js [--only <case>[,<case>...]]
 * [--out <file>]): runs the simulator on the shipped default scenario (`default`: Azure and AWS)
 * and on 24 h days of about 1,000 and 10,000 pods at the peak (`day-1000-pods`,
 * `day-10000-pods`: AWS), each under Karpenter and the Cluster Autoscaler model, one run after
 * the other, and writes results/simulator.json (with --only, results/simulator-<cases>.json).
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { cpus, totalmem } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { measureScenario, type SimulatorRunResult } from './simulator-bench.js';

const root = fileURLToPath(new URL('..', import.meta.url));
const cases: [string, string][] = [
  ['default', join(root, '../apps/simulator/scenarios/default.yaml')],
  ['day-1000-pods', join(root, 'scenarios/day-1000-pods.yaml')],
  ['day-10000-pods', join(root, 'scenarios/day-10000-pods.yaml')],
];
const flag = (name: string) => {
  const at = process.argv.indexOf(name);
  return at >= 0 ? process.argv[at + 1] : undefined;
};
const only = flag('--only');
const names = only?.split(',');
const results: SimulatorRunResult[] = [];
for (const [name, file] of cases) {
  if (names !== undefined && !names.includes(name)) continue;
  for (const r of await measureScenario(name, file)) {
    results.push(r);
    process.stdout.write(
      `${r.case} ${r.run}: ${r.simulatedSeconds} s simulated in ${r.wallSeconds} s (${r.cpuSeconds} s CPU, ${r.simulatedSecondsPerWallSecond}× real time), ${r.ticks} ticks, ${r.peakPods} pods at the peak, heap ${(r.peakHeapUsedBytes / 2 ** 20).toFixed(0)} MiB, rss ${(r.maxRssBytes / 2 ** 20).toFixed(0)} MiB, load ${r.loadAverage.join(' -> ')}\n`,
    );
  }
}
mkdirSync(join(root, 'results'), { recursive: true });
writeFileSync(
  flag('--out') ??
    join(
      root,
      'results',
      only === undefined ? 'simulator.json' : `simulator-${names!.join('+')}.json`,
    ),
  `${JSON.stringify({ machine: { cpus: cpus().length, totalMemoryBytes: totalmem(), node: process.version }, results }, null, 2)}\n`,
);
