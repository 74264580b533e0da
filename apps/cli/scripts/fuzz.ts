/**
 * The long fuzz run: `npm run fuzz -- --runs 10000 [--seed S] [--workers 2] [--timeout-s 900]
 * [--max-heap-mib 2048]` (root package.json). Input i is the `manifestInput` of family i mod 3
 * (support/fuzz-families.ts) generated with seed S + i, so `--seed S --only i` rebuilds one and
 * `--seed S --from i` resumes. Each input is checked by support/fuzz-check.ts in one of
 * --workers worker threads (each kept for input after input; replaced only after a timeout or
 * a crash), whose heap is limited to --max-heap-mib and whose run is ended past --timeout-s
 * (both are findings). Inputs finish out of order across workers, so the progress lines name
 * the first input not yet done (where --from resumes). Prints a table per family (inputs,
 * findings, seconds), writes every failing input and its findings to --out (default
 * fuzz-findings/ in the working folder), and exits 1 on any finding.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { Worker } from 'node:worker_threads';
import fc from 'fast-check';
import { describeInput, manifestInput } from '@karpenter-ts/fuzz';
import type { FuzzFinding } from '../test/support/fuzz-check.js';
import { FUZZ_FAMILIES } from '../test/support/fuzz-families.js';

const { values } = parseArgs({
  options: {
    runs: { type: 'string', default: '1000' },
    seed: { type: 'string' },
    only: { type: 'string' },
    from: { type: 'string', default: '0' },
    workers: { type: 'string', default: '2' },
    'timeout-s': { type: 'string', default: '900' },
    'max-heap-mib': { type: 'string', default: '2048' },
    out: { type: 'string', default: 'fuzz-findings' },
  },
});
const runs = Number(values.runs);
const seed = values.seed === undefined ? Math.floor(Math.random() * 2 ** 31) : Number(values.seed);
const timeoutMs = Number(values['timeout-s']) * 1000;
const maxHeapMib = Number(values['max-heap-mib']);
const workers = Number(values.workers);
const out = resolve(values.out);
if (
  ![runs, seed, timeoutMs, maxHeapMib, workers].every(Number.isSafeInteger) ||
  runs < 1 ||
  workers < 1
) {
  console.error(
    'fuzz: --runs, --seed, --workers, --timeout-s and --max-heap-mib take positive integers',
  );
  process.exit(2);
}
console.log(`fuzz: seed ${seed} (--seed ${seed} reproduces), ${runs} inputs, ${workers} workers`);

const workerUrl = new URL('./fuzz-worker.ts', import.meta.url);
const newWorker = () =>
  new Worker(workerUrl, { resourceLimits: { maxOldGenerationSizeMb: maxHeapMib } });

/** One worker thread, kept across inputs; `worker` is undefined after one was ended. */
interface Slot {
  worker: Worker | undefined;
}

/**
 * Checks one file in the slot's worker; a timeout or a dead worker is a finding, and the slot
 * gets a fresh worker for its next input (the old one may be stuck or out of memory).
 */
function check(slot: Slot, file: string, family: string): Promise<FuzzFinding[]> {
  slot.worker ??= newWorker();
  const w = slot.worker;
  return new Promise((done) => {
    const finish = (findings: FuzzFinding[], restart: boolean) => {
      clearTimeout(timer);
      w.off('message', onMessage).off('error', onError).off('exit', onExit);
      if (restart) {
        void w.terminate();
        slot.worker = undefined;
      }
      done(findings);
    };
    const onMessage = (m: { findings: FuzzFinding[] }) => finish(m.findings, false);
    const onError = (e: Error & { code?: string }) =>
      finish([{ run: 'all', problem: e.code ?? 'worker error', output: String(e) }], true);
    const onExit = (code: number) =>
      finish([{ run: 'all', problem: `worker exited ${code}`, output: '' }], true);
    const timer = setTimeout(
      () =>
        finish(
          [{ run: 'all', problem: `no answer within ${timeoutMs / 1000} s`, output: '' }],
          true,
        ),
      timeoutMs,
    );
    w.on('message', onMessage).on('error', onError).on('exit', onExit);
    w.postMessage({ file, family });
  });
}

const dir = mkdtempSync(join(tmpdir(), 'karpenter-ts-fuzz-run-'));
const stats = new Map(FUZZ_FAMILIES.map((f) => [f.name, { inputs: 0, failing: 0, ms: 0 }]));
const started = Date.now();
// --from N resumes a run of the same seed at input N.
const from = Number(values.from);
const indices =
  values.only === undefined
    ? Array.from({ length: runs - from }, (_, i) => from + i)
    : [Number(values.only)];
let failing = 0;
let done = 0;
const slowest: { i: number; family: string; ms: number; bytes: number }[] = [];
// Inputs done, to name the first one not done yet (the --from that resumes without a gap).
const finished = new Set<number>();
let next = 0;
let firstNotDone = indices[0] ?? from;

async function runInput(slot: Slot, i: number): Promise<void> {
  const family = FUZZ_FAMILIES[i % FUZZ_FAMILIES.length]!;
  const [input] = fc.sample(manifestInput(family.documents), { seed: seed + i, numRuns: 1 });
  const file = join(dir, `${family.name}-${i}.yaml`);
  writeFileSync(file, input!.bytes);
  const t = Date.now();
  const findings = await check(slot, file, family.name);
  const s = stats.get(family.name)!;
  s.inputs++;
  s.ms += Date.now() - t;
  slowest.push({ i, family: family.name, ms: Date.now() - t, bytes: input!.bytes.length });
  slowest.sort((a, b) => b.ms - a.ms).splice(5);
  if (findings.length > 0) {
    s.failing++;
    failing++;
    mkdirSync(out, { recursive: true });
    writeFileSync(join(out, `${family.name}-${seed}-${i}.yaml`), input!.bytes);
    writeFileSync(
      join(out, `${family.name}-${seed}-${i}.json`),
      JSON.stringify(
        { seed, index: i, input: JSON.parse(describeInput(input!)), findings },
        null,
        2,
      ),
    );
    console.log(
      `input ${i} (${family.name}): ${findings.map((f) => `${f.run}: ${f.problem}`).join('; ')}`,
    );
  }
  rmSync(file);
  finished.add(i);
  while (finished.delete(firstNotDone)) firstNotDone++;
  if (++done % 250 === 0)
    console.log(
      `  ${done} inputs, ${failing} failing, ${Math.round((Date.now() - started) / 1000)} s (every input below ${firstNotDone} done: --from ${firstNotDone} resumes)`,
    );
}

/** One worker's share: the next input not yet taken, until none is left. */
async function drain(slot: Slot): Promise<void> {
  while (next < indices.length) await runInput(slot, indices[next++]!);
  await slot.worker?.terminate();
}

await Promise.all(
  Array.from({ length: Math.min(workers, indices.length) }, () => drain({ worker: undefined })),
);
rmSync(dir, { recursive: true, force: true });

console.log(
  `\nslowest: ${slowest.map((x) => `input ${x.i} (${x.family}, ${x.bytes} bytes) ${(x.ms / 1000).toFixed(1)} s`).join('; ')}`,
);
console.log('family     inputs  failing  seconds');
for (const [name, s] of stats)
  console.log(
    `${name.padEnd(10)} ${String(s.inputs).padStart(6)}  ${String(s.failing).padStart(7)}  ${String(Math.round(s.ms / 1000)).padStart(7)}`,
  );
console.log(
  `total      ${String(indices.length).padStart(6)}  ${String(failing).padStart(7)}  ${String(Math.round((Date.now() - started) / 1000)).padStart(7)}  (seed ${seed}${failing > 0 ? `, failing inputs in ${out}` : ''})`,
);
process.exit(failing > 0 ? 1 : 0);
