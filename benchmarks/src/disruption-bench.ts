/**
 * The disruption benchmark (issue 11, "Speed"): the reference diverse workload provisioned into
 * cluster state, a seeded random half of its pods deleted, then disruption passes
 * (`DisruptionController.plan()`: candidates, budgets with `nodes: 100%`, every method in order
 * until one yields a command) until none is left, each command carried out (see
 * `disruption-cluster.ts`). Both solvers plan every pass on the same cluster state, WASM first;
 * the WASM plan's command is applied, after checking that the TS plan is the same decision.
 */
import type { Pod } from '@karpenter-ts/api';
import {
  DisruptionController,
  Provisioner,
  type DisruptionPlan,
  type MethodName,
} from '@karpenter-ts/controllers';
import { Scheduler } from '@karpenter-ts/scheduling';
import { Bench } from 'tinybench';
import {
  applyCommand,
  clusterCost,
  deleteHalf,
  disruptionNodePool,
  emptyCluster,
  provision,
  resourceLowerBound,
  type BenchCluster,
  type ClusterCost,
} from './disruption-cluster.js';

export type Solver = 'wasm' | 'ts';

/**
 * Calls and wall seconds of the disruption simulations (`Provisioner.newScheduler`, which builds
 * a Scheduler over the remaining nodes, and `Scheduler.solve`), counted by wrapping the two
 * prototype methods once per process; the wrappers only read `performance.now()`.
 */
export const simulationCounters = {
  schedulers: 0,
  schedulerSeconds: 0,
  solves: 0,
  solveSeconds: 0,
};

let instrumented = false;

function instrument(): void {
  if (instrumented) return;
  instrumented = true;
  const wrap = (proto: object, method: string, count: (s: number) => void): void => {
    const p = proto as Record<string, (...a: unknown[]) => unknown>;
    const original = p[method] as (...a: unknown[]) => unknown;
    p[method] = function (this: unknown, ...a: unknown[]) {
      const t0 = performance.now();
      try {
        return original.apply(this, a);
      } finally {
        count((performance.now() - t0) / 1000);
      }
    };
  };
  wrap(Provisioner.prototype, 'newScheduler', (s) => {
    simulationCounters.schedulers++;
    simulationCounters.schedulerSeconds += s;
  });
  wrap(Scheduler.prototype, 'solve', (s) => {
    simulationCounters.solves++;
    simulationCounters.solveSeconds += s;
  });
}

/** Nodes, USD/hour and utilization of the running managed nodes. */
export type Cost = ClusterCost;

/** One timed `plan()` with one solver. */
export interface PlanTiming {
  seconds: number;
  /** Process CPU seconds (all threads) during the plan. */
  cpuSeconds: number;
  /** Scheduling simulations run (Scheduler built and solved). */
  simulations: number;
  /** Seconds in `Provisioner.newScheduler` (Scheduler construction over the remaining nodes). */
  schedulerSeconds: number;
  /** Seconds in `Scheduler.solve` (per-solve setup of the existing nodes included). */
  solveSeconds: number;
}

/** One pass of the convergence loop. */
export interface PassRecord {
  pass: number;
  /** The method that yielded the command (undefined: none, the loop ends). */
  method?: MethodName;
  commands: number;
  candidates: number;
  replacements: number;
  wasm?: PlanTiming;
  ts?: PlanTiming;
  /** Seconds to carry the command out (outside the timed pass). */
  applySeconds: number;
  /** See `Applied.provisionerWouldLaunch`. */
  provisionerWouldLaunch?: number;
  /** After the command. */
  nodes: number;
  usdPerHour: number;
}

/** Per method: passes it ended, nodes it removed, replacements it launched. */
export interface MethodTotals {
  commands: number;
  nodesRemoved: number;
  replacements: number;
}

/** One size, as written to results/disruption.json. */
export interface DisruptionCaseResult {
  name: string;
  pods: number;
  /** Pods left after the deletion. */
  podsKept: number;
  solvers: Solver[];
  /** Node claims of the provisioning solve. */
  provisionedNodes: number;
  /** Seconds to provision (one solve, NodeClaims brought up, pods bound). */
  provisionSeconds: number;
  /** After the deletion, before any disruption. */
  before: Cost;
  /**
   * The first pass on that state, timed with tinybench per solver (median of `iterations`
   * plans; `plan()` has no side effects), with its decision.
   */
  firstPass: {
    method?: MethodName;
    candidates: number;
    replacements: number;
    wasm?: PlanTiming & { iterations: number };
    ts?: PlanTiming & { iterations: number };
  };
  convergence: {
    /** True when a pass found no command; false when a cap stopped the loop. */
    converged: boolean;
    stoppedBy: 'no-command' | 'max-passes' | 'max-seconds';
    /** Passes run (the last one found nothing when converged). */
    passes: number;
    commands: number;
    byMethod: Partial<Record<MethodName, MethodTotals>>;
    /** Per solver: Σ, median and max seconds per pass, simulations per pass (mean). */
    wasm?: PassStats;
    ts?: PassStats;
    /** Wall seconds of the whole loop (both solvers' plans and the applies). */
    wallSeconds: number;
    applySeconds: number;
    /** WASM and TS plans made the same decision in every pass. */
    solversAgree: boolean;
    /** Σ `Applied.provisionerWouldLaunch` over the commands. */
    provisionerWouldLaunch: number;
  };
  after: Cost;
  /** One provisioning solve of the kept pods on an empty cluster. */
  fromScratch: Cost & { seconds: number };
  /** after.usdPerHour / fromScratch.usdPerHour. */
  costRatio: number;
  /** USD/hour no packing of the kept pods can beat (see `resourceLowerBound`). */
  lowerBoundUsdPerHour: number;
  maxRssBytes: number;
  passes: PassRecord[];
}

/** Seconds-per-pass statistics of one solver over the convergence loop. */
export interface PassStats {
  totalSeconds: number;
  medianSeconds: number;
  maxSeconds: number;
  /** Pass (index) of the slowest one. */
  maxPass: number;
  simulationsPerPass: number;
  /** Σ seconds / Σ simulations over the passes that ran simulations. */
  secondsPerSimulation: number;
  /** Shares of Σ seconds: Scheduler construction, solves. */
  schedulerShare: number;
  solveShare: number;
}

/** Plans once with the controller, timing it and its simulations. */
async function timedPlan(
  controller: DisruptionController,
): Promise<{ plan: DisruptionPlan; t: PlanTiming }> {
  const c0 = { ...simulationCounters };
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  const plan = await controller.plan();
  const seconds = (performance.now() - t0) / 1000;
  const cpu = process.cpuUsage(cpu0);
  return {
    plan,
    t: {
      seconds,
      cpuSeconds: (cpu.user + cpu.system) / 1e6,
      simulations: simulationCounters.solves - c0.solves,
      schedulerSeconds: simulationCounters.schedulerSeconds - c0.schedulerSeconds,
      solveSeconds: simulationCounters.solveSeconds - c0.solveSeconds,
    },
  };
}

/** A plan's decision, for comparing solvers: method and each command's nodes and replacement options. */
function decisionOf(plan: DisruptionPlan): string {
  return JSON.stringify([
    plan.method ?? null,
    plan.commands.map((cmd) => [
      cmd.candidates.map((x) => x.name),
      cmd.replacements.map((r) => r.instanceTypeOptions.map((it) => it.name)),
    ]),
  ]);
}

function median(xs: readonly number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  if (s.length === 0) return 0;
  const m = Math.floor(s.length / 2);
  return s.length % 2 === 1 ? (s[m] as number) : ((s[m - 1] as number) + (s[m] as number)) / 2;
}

function passStats(passes: readonly PassRecord[], solver: Solver): PassStats | undefined {
  const ts = passes.map((p) => p[solver]).filter((t): t is PlanTiming => t !== undefined);
  if (ts.length === 0) return undefined;
  const seconds = ts.map((t) => t.seconds);
  const total = seconds.reduce((a, b) => a + b, 0);
  let maxPass = 0;
  seconds.forEach((s, i) => {
    if (s > (seconds[maxPass] as number)) maxPass = i;
  });
  const sims = ts.reduce((n, t) => n + t.simulations, 0);
  const simSeconds = ts
    .filter((t) => t.simulations > 0)
    .reduce((n, t) => n + t.schedulerSeconds + t.solveSeconds, 0);
  return {
    totalSeconds: total,
    medianSeconds: median(seconds),
    maxSeconds: seconds[maxPass] as number,
    maxPass,
    simulationsPerPass: sims / ts.length,
    secondsPerSimulation: sims === 0 ? 0 : simSeconds / sims,
    schedulerShare: total === 0 ? 0 : ts.reduce((n, t) => n + t.schedulerSeconds, 0) / total,
    solveShare: total === 0 ? 0 : ts.reduce((n, t) => n + t.solveSeconds, 0) / total,
  };
}

/** Options of {@link measureDisruption}. */
export interface DisruptionCaseOptions {
  solvers: readonly Solver[];
  /** Stop the convergence loop after this many passes. */
  maxPasses: number;
  /** Stop the convergence loop once its wall time exceeds this (checked after each pass). */
  maxSeconds: number;
  /** Timed iterations of the first pass (tinybench), per solver. */
  firstPassIterations: number;
  log: (line: string) => void;
}

function unbound(pods: readonly Pod[]): Pod[] {
  return pods.map((p) => structuredClone(p));
}

/** Measures one size (see the module comment). */
export async function measureDisruption(
  name: string,
  pods: readonly Pod[],
  o: DisruptionCaseOptions,
): Promise<DisruptionCaseResult> {
  instrument();
  const [primary] = o.solvers;
  if (primary === undefined) throw new Error('no solver');
  const c: BenchCluster = await emptyCluster(primary, disruptionNodePool(pods.length));
  const provisioned = await provision(c, pods);
  const kept = await deleteHalf(c, pods);
  const before = clusterCost(c);
  o.log(
    `${name}: provisioned ${pods.length} pods on ${provisioned.nodes} nodes in ${provisioned.seconds.toFixed(1)} s; ` +
      `${kept.length} pods kept; ${before.nodes} nodes, ${before.usdPerHour.toFixed(2)} USD/h`,
  );
  const controllers = new Map<Solver, DisruptionController>();
  for (const solver of o.solvers) {
    controllers.set(
      solver,
      solver === primary
        ? c.disruption
        : new DisruptionController({
            client: c.client,
            cluster: c.cluster,
            provisioner: new Provisioner({
              client: c.client,
              cluster: c.cluster,
              cloudProvider: c.cloud,
              clock: c.clock,
              solver,
            }),
            clock: c.clock,
          }),
    );
  }

  // First pass, tinybench per solver.
  const firstPass: DisruptionCaseResult['firstPass'] = { candidates: 0, replacements: 0 };
  let firstDecision: string | undefined;
  for (const [solver, controller] of controllers) {
    const timings: PlanTiming[] = [];
    let last: DisruptionPlan | undefined;
    const bench = new Bench({
      iterations: o.firstPassIterations,
      time: 0,
      warmupIterations: 0,
      warmupTime: 0,
    });
    bench.add(`${name}/${solver}/first-pass`, async () => {
      const r = await timedPlan(controller);
      timings.push(r.t);
      last = r.plan;
    });
    await bench.run();
    const task = bench.tasks[0];
    const result = task?.result as { latency?: { p50?: number } } | undefined;
    const medianMs = result?.latency?.p50;
    if (medianMs === undefined || last === undefined)
      throw new Error(`${name}: tinybench produced no latency`);
    const decision = decisionOf(last);
    if (firstDecision !== undefined && decision !== firstDecision) {
      throw new Error(`${name}: first pass: ${solver} decides ${decision}, not ${firstDecision}`);
    }
    firstDecision = decision;
    const cmd = last.commands[0];
    if (last.method !== undefined) firstPass.method = last.method;
    firstPass.candidates = cmd?.candidates.length ?? 0;
    firstPass.replacements = cmd?.replacements.length ?? 0;
    firstPass[solver] = {
      seconds: medianMs / 1000,
      cpuSeconds: median(timings.map((t) => t.cpuSeconds)),
      simulations: median(timings.map((t) => t.simulations)),
      schedulerSeconds: median(timings.map((t) => t.schedulerSeconds)),
      solveSeconds: median(timings.map((t) => t.solveSeconds)),
      iterations: timings.length,
    };
    o.log(
      `${name} ${solver.padEnd(4)} first pass: ${(medianMs / 1000).toFixed(3)} s (median of ${timings.length}), ` +
        `${last.method ?? 'no command'}, ${firstPass.candidates} candidates`,
    );
  }

  // Convergence.
  const passes: PassRecord[] = [];
  const byMethod: Partial<Record<MethodName, MethodTotals>> = {};
  let solversAgree = true;
  let stoppedBy: DisruptionCaseResult['convergence']['stoppedBy'] = 'max-passes';
  let applySeconds = 0;
  let provisionerWouldLaunch = 0;
  const loop0 = performance.now();
  for (let pass = 0; pass < o.maxPasses; pass++) {
    let primaryPlan: DisruptionPlan | undefined;
    const record: PassRecord = {
      pass,
      commands: 0,
      candidates: 0,
      replacements: 0,
      applySeconds: 0,
      nodes: 0,
      usdPerHour: 0,
    };
    for (const [solver, controller] of controllers) {
      const { plan, t } = await timedPlan(controller);
      record[solver] = t;
      if (primaryPlan === undefined) primaryPlan = plan;
      else if (decisionOf(plan) !== decisionOf(primaryPlan)) {
        solversAgree = false;
        o.log(
          `${name} pass ${pass}: ${solver} decides ${decisionOf(plan)}, ${primary} ${decisionOf(primaryPlan)}`,
        );
      }
    }
    const plan = primaryPlan as DisruptionPlan;
    const cmd = plan.commands[0];
    if (plan.method !== undefined) record.method = plan.method;
    record.commands = plan.commands.length;
    record.candidates = cmd?.candidates.length ?? 0;
    record.replacements = cmd?.replacements.length ?? 0;
    if (cmd !== undefined) {
      const a0 = performance.now();
      const applied = await applyCommand(c, cmd);
      record.applySeconds = (performance.now() - a0) / 1000;
      applySeconds += record.applySeconds;
      const m = (byMethod[cmd.method] ??= { commands: 0, nodesRemoved: 0, replacements: 0 });
      m.commands++;
      m.nodesRemoved += applied.removed;
      m.replacements += applied.launched;
      record.provisionerWouldLaunch = applied.provisionerWouldLaunch;
      provisionerWouldLaunch += applied.provisionerWouldLaunch;
      if (applied.provisionerWouldLaunch > 0) {
        o.log(
          `${name} pass ${pass}: the provisioner's own scheduling of the candidates' pods would launch ${applied.provisionerWouldLaunch} node claim(s)`,
        );
      }
    }
    const cost = clusterCost(c);
    record.nodes = cost.nodes;
    record.usdPerHour = cost.usdPerHour;
    passes.push(record);
    o.log(
      `${name} pass ${String(pass).padStart(3)}: ${(plan.method ?? 'no command').padEnd(25)} ` +
        `${String(record.candidates).padStart(3)} node(s), ${record.replacements} replacement(s); ` +
        o.solvers
          .map((s) => {
            const t = record[s] as PlanTiming;
            return `${s} ${t.seconds.toFixed(2)} s (${t.simulations} sims)`;
          })
          .join(', ') +
        `; apply ${record.applySeconds.toFixed(2)} s; ${cost.nodes} nodes, ${cost.usdPerHour.toFixed(2)} USD/h`,
    );
    if (cmd === undefined) {
      stoppedBy = 'no-command';
      break;
    }
    if ((performance.now() - loop0) / 1000 > o.maxSeconds) {
      stoppedBy = 'max-seconds';
      break;
    }
  }
  const wallSeconds = (performance.now() - loop0) / 1000;
  const after = clusterCost(c);
  const left = await c.client.list('Pod');
  const bound = left.filter((p) => p.spec?.nodeName).length;
  if (left.length !== kept.length || bound !== kept.length) {
    throw new Error(`${name}: ${bound} of ${left.length} pods bound, ${kept.length} kept`);
  }
  c.stop();

  // From scratch: the kept pods on an empty cluster, one provisioning solve.
  const scratch = await emptyCluster(primary, disruptionNodePool(pods.length));
  const fresh = await provision(scratch, unbound(kept));
  const fromScratch = { ...clusterCost(scratch), seconds: fresh.seconds };
  scratch.stop();
  const convergence: DisruptionCaseResult['convergence'] = {
    converged: stoppedBy === 'no-command',
    stoppedBy,
    passes: passes.length,
    commands: passes.reduce((n, p) => n + p.commands, 0),
    byMethod,
    wallSeconds,
    applySeconds,
    solversAgree,
    provisionerWouldLaunch,
  };
  for (const solver of o.solvers) {
    const stats = passStats(passes, solver);
    if (stats !== undefined) convergence[solver] = stats;
  }
  return {
    name,
    pods: pods.length,
    podsKept: kept.length,
    solvers: [...o.solvers],
    provisionedNodes: provisioned.nodes,
    provisionSeconds: provisioned.seconds,
    before,
    firstPass,
    convergence,
    after,
    fromScratch,
    costRatio: after.usdPerHour / fromScratch.usdPerHour,
    lowerBoundUsdPerHour: resourceLowerBound(kept),
    maxRssBytes: process.resourceUsage().maxRSS * 1024,
    passes,
  };
}
