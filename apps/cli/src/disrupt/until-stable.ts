/**
 * `disrupt --until-stable`: the controllers run on the cluster's clock (every controller of the
 * ControllerLoop, one-second ticks), so each disruption command is carried out as in a cluster:
 * validated after 15 s, replacements launched by the sim cloud and initialized, candidates
 * drained (evicted pods of ReplicaSets come back pending and are bound again) and deleted. It
 * stops once the cluster is quiet (no command in flight or waiting, no NodeClaim launching or
 * deleting, no node nominated for pods), a disruption pass computed after that finds no command,
 * no node's `consolidateAfter` is still running and no scheduled budget that is active now ends
 * (while one does, the clock jumps to the earliest such end: nothing else would happen
 * meanwhile), or after {@link MaxStabilizeSeconds} of clock time.
 */
import {
  budgetActive,
  consolidatableAt,
  consolidateAfterSeconds,
  isTrue,
  planDisruptionNow,
  type Command,
  type ControllerLoop,
  type DisruptionObserver,
  type ManualClock,
} from '@karpenter-ts/controllers';
import { Labels, type Budget } from '@karpenter-ts/api';
import type { Cloud } from '../clouds/cloud.js';
import type { RunningCluster } from '../cluster/cluster-loop.js';
import { roundUsd } from '../output/units.js';
import type { SnapshotRead } from '../snapshot/read-snapshot.js';
import { commandReport, type CommandReport, type LaunchReport } from './commands-report.js';
import { disruptionReport, type DisruptionReport } from './disruption-report.js';
import { rfc3339 } from './nodes-report.js';

/** Clock seconds after which the run gives up (2 h). */
export const MaxStabilizeSeconds = 7200;

/** A command the controllers started, and what its replacements launched as. */
export interface StartedCommand extends CommandReport {
  /** When it started, RFC 3339. */
  readonly at: string;
  /** The replacement NodeClaims as the sim cloud launched them. */
  readonly launched: readonly (LaunchReport & { readonly nodeClaim: string })[];
}

/** The result of a run. Prices in USD/hour. */
export interface StabilizationReport {
  readonly start: string;
  readonly end: string;
  /** False when {@link MaxStabilizeSeconds} passed first. */
  readonly stable: boolean;
  readonly commands: readonly StartedCommand[];
  /** Σ prices of the managed nodes at the start and at the end. */
  readonly costBefore: number;
  readonly costAfter: number;
  /** The last pass, over the cluster as it ended. */
  readonly final: DisruptionReport;
}

/** A command as it started: when, and the names of its replacement NodeClaims. */
interface LoggedCommand {
  readonly command: Command;
  readonly at: number;
  readonly replacements: readonly string[];
}

/**
 * Records every command the disruption queue starts (a delete may start and finish within one
 * tick, so the queue alone does not show them all): pass {@link observer} to the ControllerLoop,
 * then {@link attach} the loop.
 */
export class CommandLog {
  readonly started: LoggedCommand[] = [];
  #loop: ControllerLoop | undefined;
  #clock: ManualClock | undefined;

  /** The hooks to give the loop's disruption controller. */
  readonly observer: DisruptionObserver = {
    commandStarted: (command) => {
      // The queue holds the command (with its replacements' names) when it calls this hook.
      const queued = this.#loop?.disruption.queue.commands().find((q) => q.command === command);
      this.started.push({
        command,
        at: this.#clock?.now() ?? 0,
        replacements: queued?.replacements ?? [],
      });
    },
  };

  /** Where the commands run. */
  attach(loop: ControllerLoop, clock: ManualClock): void {
    this.#loop = loop;
    this.#clock = clock;
  }
}

/**
 * Runs the loop until stable (see the module comment); `log` must be the one whose observer the
 * cluster's loop was built with.
 */
export async function runUntilStable(
  cluster: RunningCluster,
  read: SnapshotRead,
  cloud: Cloud,
  log: CommandLog,
): Promise<StabilizationReport> {
  const { loop, client, clock } = cluster;
  log.attach(loop, clock);
  const start = clock.now();
  const costBefore = cost(cluster);
  const seen = new Map<LoggedCommand, StartedCommand>();
  let checkedPlan: unknown;
  // The pods pending in the snapshot reach the provisioner at the first tick and are provisioned
  // once its batch window closes: not stable before that pass (else a pending pod that fits a
  // NodePool would be reported pending).
  const firstProvisioning = start + (loop.provisioner.batcher.idleSeconds + 1) * 1000;
  const quiet = async () => {
    if (clock.now() <= firstProvisioning) return false;
    if (loop.disruption.queue.commands().length > 0 || loop.disruption.pendingCommand) return false;
    for (const nc of await client.list('NodeClaim')) {
      if (nc.metadata.deletionTimestamp !== undefined || !isTrue(nc, 'Initialized')) return false;
    }
    // A node the provisioner just nominated for pods is not a candidate until that passes.
    return !loop.cluster.nodes().some((n) => n.nominated(clock.now()));
  };
  const stable = await loop.runUntil(async () => {
    for (const q of log.started) {
      if (!seen.has(q))
        seen.set(q, { ...commandReport(q.command, cloud), at: rfc3339(q.at), launched: [] });
      for (const name of q.replacements) await recordLaunch(cluster, seen.get(q)!, name);
    }
    const last = loop.disruption.lastPlan;
    if (last === undefined || last === checkedPlan || last.commands.length > 0) return false;
    if (!(await quiet())) return false;
    checkedPlan = last;
    // Methods an unchanged cluster lets the controller skip are run here in full.
    if ((await planDisruptionNow(loop, client)).commands.length > 0) return false;
    // Nothing to do now; a node still inside its consolidateAfter may have something to do
    // then: move the clock there (nothing else would happen meanwhile) and look again.
    const limit = start + MaxStabilizeSeconds * 1000;
    const consolidatable = await nextConsolidatable(cluster, limit);
    const windowEnds = await nextBudgetWindowEnd(cluster, limit);
    const next = earliest(consolidatable.at, windowEnds.at);
    if (next !== undefined) {
      clock.set(next);
      return false;
    }
    // Something happens only past the limit: not stable; let the clock run out.
    if (consolidatable.beyond || windowEnds.beyond) {
      if (clock.now() < limit) clock.set(limit);
      return false;
    }
    return true;
  }, MaxStabilizeSeconds);
  for (const q of log.started)
    for (const name of q.replacements) await recordLaunch(cluster, seen.get(q)!, name);
  const final = await disruptionReport(await planDisruptionNow(loop, client), cluster, read, cloud);
  return {
    start: rfc3339(start),
    end: rfc3339(clock.now()),
    stable,
    commands: [...seen.values()],
    costBefore: roundUsd(costBefore),
    costAfter: roundUsd(cost(cluster)),
    final,
  };
}

async function recordLaunch(cluster: RunningCluster, started: StartedCommand, name: string) {
  if (started.launched.some((l) => l.nodeClaim === name)) return;
  const nc = await cluster.client.get('NodeClaim', { name });
  const labels = nc?.metadata.labels ?? {};
  const instanceType = labels[Labels.InstanceType];
  if (!nc?.status?.providerID || instanceType === undefined) return;
  (started.launched as (LaunchReport & { nodeClaim: string })[]).push({
    nodeClaim: name,
    instanceType,
    zone: labels[Labels.TopologyZone] ?? '',
    capacityType: labels[Labels.CapacityType] ?? '',
    pricePerHour: roundUsd(cluster.cloud.price(labels) ?? 0),
  });
}

/**
 * The earliest time after now, before `limit`, at which a managed node's NodeClaim becomes
 * Consolidatable (its NodePool's consolidateAfter after its last pod event), `at` (undefined if
 * none); `beyond` when one becomes Consolidatable only after `limit`.
 */
async function nextConsolidatable(cluster: RunningCluster, limit: number): Promise<NextEvent> {
  const now = cluster.clock.now();
  const pools = new Map(
    (await cluster.client.list('NodePool')).map((p) => [p.metadata.name ?? '', p]),
  );
  let next: number | undefined;
  let beyond = false;
  for (const nc of await cluster.client.list('NodeClaim')) {
    if (isTrue(nc, 'Consolidatable')) continue;
    const pool = pools.get(nc.metadata.labels?.[Labels.NodePool] ?? '');
    const after = pool === undefined ? null : consolidateAfterSeconds(pool);
    if (after === null) continue;
    const at = consolidatableAt(nc, after);
    if (at === undefined || at <= now) continue;
    if (at > limit) beyond = true;
    else if (next === undefined || at < next) next = at;
  }
  return { at: next, beyond };
}

/**
 * The earliest time after now, before `limit`, at which a scheduled budget that is active now
 * stops being active (its window ends: a maintenance freeze lifts), `at` (undefined if none);
 * `beyond` when one stays active past `limit`. Found by the controllers' own `budgetActive`, a
 * minute at a time and then to the second.
 */
async function nextBudgetWindowEnd(cluster: RunningCluster, limit: number): Promise<NextEvent> {
  const now = cluster.clock.now();
  const active = (budget: Budget, at: number) => {
    try {
      return budgetActive(budget, at);
    } catch {
      return false; // Unreadable: it allows 0 at any time, so no window of it ends.
    }
  };
  let next: number | undefined;
  let beyond = false;
  for (const pool of await cluster.client.list('NodePool')) {
    for (const budget of pool.spec.disruption?.budgets ?? []) {
      if (budget.schedule === undefined || !active(budget, now)) continue;
      const end = windowEnd(active.bind(undefined, budget), now, limit);
      if (end === undefined) beyond = true;
      else if (next === undefined || end < next) next = end;
    }
  }
  return { at: next, beyond };
}

/** The next time something may change (`at`, within the limit), and whether something does after it. */
interface NextEvent {
  readonly at: number | undefined;
  readonly beyond: boolean;
}

/** The first time after `now`, at most `limit`, when `active` turns false; undefined if none. */
function windowEnd(
  active: (at: number) => boolean,
  now: number,
  limit: number,
): number | undefined {
  let lo = now;
  let hi: number | undefined;
  for (let t = now + 60_000; hi === undefined && t <= limit + 60_000; t += 60_000) {
    if (active(t)) lo = t;
    else hi = t;
  }
  if (hi === undefined) return undefined;
  let end: number = hi;
  while (end - lo > 1000) {
    const mid: number = lo + Math.floor((end - lo) / 2000) * 1000;
    if (active(mid)) lo = mid;
    else end = mid;
  }
  return end <= limit ? end : undefined;
}

function earliest(a: number | undefined, b: number | undefined): number | undefined {
  if (a === undefined) return b;
  if (b === undefined) return a;
  return Math.min(a, b);
}

function cost(cluster: RunningCluster): number {
  let total = 0;
  for (const n of cluster.loop.cluster.nodes()) {
    if (!n.managed() || n.deleting() || n.markedForDeletion) continue;
    total += cluster.cloud.price(n.labels()) ?? 0;
  }
  return total;
}
