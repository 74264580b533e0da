/**
 * The kill -9 soak: `npm run soak -- --cycles 200 [--provider sim|azure] [--seed S]`.
 *
 * Starts the local control plane (tools/local-cluster, through the controller e2e suites'
 * global setup) and the controller as a child process (their controller-process harness), with
 * `--provider sim` or `--provider azure` against the ARM emulator; creates a NodePool and a
 * Deployment of one-core pods on it; then runs the cycles of a seeded plan. A cycle scales the
 * Deployment to a random size, waits for its kill moment (new node claims appear; a node claim
 * is being deleted; a node is tainted `karpenter.sh/disrupted` by a disruption command, after a
 * scale-down consolidation acts on; or a random delay), waits a random 0-2 s more, SIGKILLs the
 * controller, restarts it and polls the invariants (invariants.ts) until they all hold or the
 * settle bound passes. Last, the Deployment is scaled to zero and everything deleted, and
 * nothing may be left. Prints the seed, a table of cycles and a summary (cycles, kills,
 * violations); keeps every controller's log when any invariant broke (and deletes them when
 * none did); exits 1 on any violation. Bounded: --cycles and --max-minutes; loopback only.
 */
import { mkdirSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import type { TestProject } from 'vitest/node';
import { setup, teardown } from '../../../apps/controller/test/e2e/global-setup.js';
import {
  startController,
  type ControllerProcess,
} from '../../../apps/controller/test/e2e/process/controller-process.js';
import { Workload } from '../../../apps/controller/test/e2e/support.js';
import { cyclePlan, type CyclePlan, type KillPoint } from './cycle-plan.js';
import { DISRUPTED_TAINT, leftovers, readState, violations } from './invariants.js';
import { azureTarget, simTarget, type SoakTarget } from './targets.js';

const { values } = parseArgs({
  options: {
    cycles: { type: 'string', default: '10' },
    provider: { type: 'string', default: 'sim' },
    seed: { type: 'string' },
    'max-replicas': { type: 'string', default: '24' },
    'settle-s': { type: 'string', default: '120' },
    'max-minutes': { type: 'string', default: '180' },
    logs: { type: 'string', default: 'soak-logs' },
  },
});
const cycles = Number(values.cycles);
const provider = values.provider;
const seed = values.seed === undefined ? Math.floor(Math.random() * 2 ** 31) : Number(values.seed);
const maxReplicas = Number(values['max-replicas']);
const settleMs = Number(values['settle-s']) * 1000;
const deadline = Date.now() + Number(values['max-minutes']) * 60_000;
const nums = [cycles, seed, maxReplicas, settleMs, deadline];
if (
  !nums.every(Number.isSafeInteger) ||
  cycles < 1 ||
  (provider !== 'sim' && provider !== 'azure')
) {
  console.error(
    'soak: --cycles, --seed, --max-replicas, --settle-s and --max-minutes take positive integers; --provider sim or azure',
  );
  process.exit(2);
}
const logRoot = join(values.logs, `${provider}-${seed}`);
console.log(
  `soak: provider ${provider}, seed ${seed} (--seed ${seed} reproduces), ${cycles} cycles`,
);

const POOL = `soak-${provider}`;
const plan = cyclePlan(seed, cycles, maxReplicas);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** One row of the table. */
interface CycleResult {
  cycle: number;
  from: number;
  to: number;
  kill: KillPoint;
  /** Whether the kill moment was seen before the controller was killed. */
  seen: boolean;
  settleS: number;
  violations: string[];
}

let target: SoakTarget | undefined;
let controller: ControllerProcess | undefined;
let clusterStarted = false;
const results: CycleResult[] = [];
let finalProblems: string[] = [];

/** Where controller `n` (started by cycle n; 0 before the first) writes its log lines. */
const logDirOf = (n: number) => join(logRoot, `controller-${n}`);

async function start(n: number): Promise<ControllerProcess> {
  mkdirSync(logDirOf(n), { recursive: true });
  process.env['KARPENTER_TS_E2E_LOGS'] = logDirOf(n);
  return startController(`controller-${n}`, target!.controllerArgs(), target!.controllerEnv());
}

async function scale(replicas: number): Promise<void> {
  await target!.api.request('PATCH', `/apis/apps/v1/namespaces/${POOL}/deployments/${POOL}`, {
    body: { spec: { replicas } },
    contentType: 'application/merge-patch+json',
  });
}

/** Polls `probe` every 200 ms until it is true or `ms` pass; says whether it became true. */
async function waitFor(probe: () => Promise<boolean>, ms: number): Promise<boolean> {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    if (await probe().catch(() => false)) return true;
    await sleep(200);
  }
  return false;
}

/** Waits for the cycle's kill moment (at most 30 s); says whether it came. */
async function killMoment(step: CyclePlan, claimsBefore: Set<string>): Promise<boolean> {
  const bound = 30_000;
  switch (step.kill) {
    case 'new-node-claims':
      return waitFor(
        async () =>
          (await readState(target!)).claims.some((c) => !claimsBefore.has(c.metadata.name ?? '')),
        bound,
      );
    case 'termination':
      return waitFor(
        async () =>
          (await readState(target!)).claims.some((c) => c.metadata.deletionTimestamp !== undefined),
        bound,
      );
    case 'disruption':
      return waitFor(
        async () =>
          (await readState(target!)).nodes.some((n) =>
            (n.spec?.taints ?? []).some((t) => t.key === DISRUPTED_TAINT),
          ),
        bound,
      );
    case 'random':
      await sleep(step.delayMs);
      return true;
  }
}

/** Polls the invariants until they hold or the settle bound passes; returns the last violations. */
async function settle(replicas: number): Promise<{ ms: number; found: string[] }> {
  const startAt = Date.now();
  let found: string[] = ['not checked'];
  while (Date.now() - startAt < settleMs) {
    found = violations(await readState(target!), replicas);
    if (found.length === 0) break;
    await sleep(1000);
  }
  return { ms: Date.now() - startAt, found };
}

async function run(): Promise<void> {
  let kubeconfig = '';
  // The e2e global setup hands the kubeconfig to vitest's provide; here it is caught directly.
  const project = { provide: (_key: string, value: string) => (kubeconfig = value) };
  await setup(project as unknown as TestProject);
  clusterStarted = true;
  target =
    provider === 'sim' ? await simTarget(kubeconfig, POOL) : await azureTarget(kubeconfig, POOL);
  rmSync(logRoot, { recursive: true, force: true });
  controller = await start(0);
  await target.createPool();
  const workload = new Workload(target.api, POOL, 0);
  await workload.poolReady();
  await workload.deploy();

  let replicas = 0;
  for (const step of plan) {
    if (Date.now() > deadline) {
      console.log(`soak: --max-minutes reached after ${results.length} cycles`);
      break;
    }
    const claimsBefore = new Set(
      (await readState(target)).claims.map((c) => c.metadata.name ?? ''),
    );
    // New node claims need a scale-up; termination and disruption a scale-down that
    // consolidation acts on (from at least 4 pods, reached first when fewer run).
    const down = step.kill === 'termination' || step.kill === 'disruption';
    if (down && replicas < 4) {
      const up = Math.max(4, step.replicas);
      await scale(up);
      await settle(up);
      replicas = up;
    }
    const to =
      step.kill === 'new-node-claims'
        ? Math.max(step.replicas, replicas + 4)
        : down
          ? Math.min(step.replicas, Math.floor(replicas / 4))
          : step.replicas;
    const from = replicas;
    await scale(to);
    replicas = to;
    const seen = await killMoment(step, claimsBefore);
    await sleep(step.afterMs);
    await controller!.crash();
    controller = await start(step.cycle);
    const { ms, found } = await settle(replicas);
    results.push({
      cycle: step.cycle,
      from,
      to,
      kill: step.kill,
      seen,
      settleS: ms / 1000,
      violations: found,
    });
    const row = results[results.length - 1]!;
    console.log(
      `${String(row.cycle).padStart(5)}  ${`${from}->${to}`.padEnd(8)} ${row.kill.padEnd(16)} ${(seen ? 'seen' : 'not seen').padEnd(9)} ${row.settleS.toFixed(1).padStart(6)} s  ${found.length === 0 ? 'ok' : found.join('; ')}`,
    );
  }

  // Scale to zero, delete everything while a controller runs, and nothing may be left.
  await scale(0);
  await settle(0);
  await workload.remove().catch((err: unknown) => finalProblems.push(`clean-up: ${String(err)}`));
  const end = Date.now() + settleMs;
  let left = leftovers(await readState(target));
  while (left.length > 0 && Date.now() < end) {
    await sleep(1000);
    left = leftovers(await readState(target));
  }
  finalProblems = [...finalProblems, ...left];
  if (finalProblems.length > 0) printClaimLog(finalProblems.join(' '));
}

/**
 * Prints every controller's log lines about the node claims a failed clean-up names (at most
 * 80, the last ones, each with its controller), so a CI log shows why they stayed; the logs are
 * kept (every controller's, until a soak passes).
 */
function printClaimLog(problems: string): void {
  const claims = [...problems.matchAll(/NodeClaim (\S+) left/g)].map((m) => m[1]!);
  const lines: string[] = [];
  for (const n of [0, ...results.map((r) => r.cycle)]) {
    const dir = logDirOf(n);
    let files: string[] = [];
    try {
      files = readdirSync(dir).map((f) => join(dir, f));
    } catch {
      continue;
    }
    for (const f of files)
      for (const l of readFileSync(f, 'utf8').split('\n'))
        if (claims.some((c) => l.includes(c))) lines.push(`controller-${n}: ${l}`);
  }
  console.log(
    `log lines about ${claims.join(', ') || 'the leftovers'} (last ${Math.min(lines.length, 80)} of ${lines.length}; the logs are kept in ${logRoot}):`,
  );
  for (const l of lines.slice(-80)) console.log(`  ${l}`);
}

let failed = false;
try {
  console.log('cycle  replicas kill point       moment    settle  invariants');
  await run();
} catch (err) {
  failed = true;
  console.error(`soak: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`);
} finally {
  await controller?.stop().catch(() => {});
  await target?.stop().catch(() => {});
  if (clusterStarted) await teardown();
}

const broken = results.filter((r) => r.violations.length > 0);
const kills = results.length;
const total = broken.reduce((n, r) => n + r.violations.length, 0) + finalProblems.length;
if (finalProblems.length > 0)
  console.log(`after scale-to-zero and deletion: ${finalProblems.join('; ')}`);
console.log(
  `soak: provider ${provider}, seed ${seed}: ${results.length} cycles, ${kills} kills, ${total} violations` +
    (broken.length > 0
      ? ` (controller logs of cycles ${broken.map((r) => r.cycle).join(', ')} in ${logRoot})`
      : ''),
);
if (broken.length === 0 && finalProblems.length === 0 && !failed)
  rmSync(logRoot, { recursive: true, force: true });
process.exit(failed || total > 0 ? 1 : 0);
