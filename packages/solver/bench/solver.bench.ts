// Micro-benchmark of the solver hot path, WASM core against its TypeScript twin.
// Run: npm run build && npm run bench (from packages/solver). Writes bench/results.json.
import { writeFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { fileURLToPath } from 'node:url';
import { Bench } from 'tinybench';
import { createSolver, type Solver, type SolverKind } from '@karpenter-ts/solver';
import { benchCatalog, benchClaims, benchPods, type BenchPod } from './workload.js';

const ROWS = 400;
const CLAIMS = 4000;
const PODS = 20_000;

const catalog = benchCatalog(ROWS);
const claims = benchClaims(ROWS, CLAIMS, 1);
const pods = benchPods(ROWS, PODS, 2);
const maskWords = Math.ceil(ROWS / 32);

interface Outcome {
  placed: number;
  missed: number;
  opened: number;
  /** Sum of chosen claim ids: equal across solvers iff they chose the same claims. */
  checksum: number;
}

function prefill(solver: Solver): void {
  solver.load(catalog);
  for (const c of claims) solver.openClaim(c.requests, c.mask);
}

// 4,000 claims exist up front; each pod goes to the first claim findClaim offers.
function placeOnPrefilled(solver: Solver, batch: readonly BenchPod[]): Outcome {
  const out = new Uint32Array(maskWords);
  const o: Outcome = { placed: 0, missed: 0, opened: 0, checksum: 0 };
  for (const pod of batch) {
    const c = solver.findClaim(pod.requests, pod.mask, -1);
    if (c < 0) {
      o.missed++;
      continue;
    }
    solver.claimFit(c, pod.requests, pod.mask, out);
    solver.commit(c, pod.requests, out);
    o.placed++;
    o.checksum += c;
  }
  return o;
}

// Like the scheduler: claims are opened on demand (with a claim's option mask) when no claim fits.
function placeOnDemand(solver: Solver, batch: readonly BenchPod[]): Outcome {
  const out = new Uint32Array(maskWords);
  const o: Outcome = { placed: 0, missed: 0, opened: 0, checksum: 0 };
  let next = 0;
  for (const pod of batch) {
    let c = solver.findClaim(pod.requests, pod.mask, -1);
    if (c < 0) {
      const template = claims[next++ % claims.length]!;
      c = solver.openClaim(template.requests, template.mask);
      o.opened++;
    }
    if (solver.claimFit(c, pod.requests, pod.mask, out) === 0) {
      o.missed++;
      continue;
    }
    solver.commit(c, pod.requests, out);
    o.placed++;
    o.checksum += c;
  }
  return o;
}

const scenarios = {
  'prefilled 4,000 claims': { setup: prefill, run: placeOnPrefilled },
  'claims opened on demand': { setup: (s: Solver) => s.load(catalog), run: placeOnDemand },
} as const;

const kinds: SolverKind[] = ['wasm', 'ts'];
const outcomes: Record<string, Outcome> = {};
const bench = new Bench({ iterations: 10, time: 0, warmupIterations: 3, warmupTime: 0 });
for (const [scenario, { setup, run }] of Object.entries(scenarios)) {
  for (const kind of kinds) {
    const solver = createSolver(kind);
    bench.add(
      `${scenario} (${kind})`,
      () => {
        outcomes[`${scenario} (${kind})`] = run(solver, pods);
      },
      { beforeEach: () => setup(solver) },
    );
  }
}
await bench.run();

const tasks = bench.tasks.map((task) => {
  const r = task.result;
  if (r.state !== 'completed') throw new Error(`benchmark ${task.name} ${r.state}`);
  return {
    name: task.name,
    meanMs: round(r.latency.mean),
    p75Ms: round(r.latency.p75),
    minMs: round(r.latency.min),
    samples: r.latency.samples?.length ?? r.latency.df + 1,
    nsPerPod: round((r.latency.mean * 1e6) / PODS),
    outcome: outcomes[task.name],
  };
});

const comparisons = Object.keys(scenarios).map((scenario) => {
  const wasm = tasks.find((t) => t.name === `${scenario} (wasm)`)!;
  const ts = tasks.find((t) => t.name === `${scenario} (ts)`)!;
  if (JSON.stringify(wasm.outcome) !== JSON.stringify(ts.outcome)) {
    throw new Error(`${scenario}: wasm and ts placed pods differently`);
  }
  return {
    scenario,
    tsOverWasm: round(ts.meanMs / wasm.meanMs),
    // the fastest sample is the least disturbed by other load on the machine
    tsOverWasmMin: round(ts.minMs / wasm.minMs),
    wasmFaster: wasm.meanMs < ts.meanMs,
  };
});

const results = {
  benchmark: 'solver findClaim + claimFit + commit',
  date: new Date().toISOString(),
  node: process.version,
  cpu: cpus()[0]?.model ?? 'unknown',
  // other processes share the machine; a high load average inflates and blurs every figure
  loadAverage1m: round(loadavg()[0]!),
  catalogRows: ROWS,
  resources: catalog.resourceNames,
  claims: CLAIMS,
  pods: PODS,
  tasks,
  comparisons,
};
const file = fileURLToPath(new URL('../../bench/results.json', import.meta.url));
writeFileSync(file, JSON.stringify(results, null, 2) + '\n');
console.table(tasks.map(({ outcome: _o, ...t }) => t));
console.table(comparisons);
console.log(`wrote ${file}`);

function round(x: number): number {
  return Math.round(x * 1000) / 1000;
}
