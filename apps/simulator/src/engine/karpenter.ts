/**
 * Karpenter as the autoscaler under test: every controller of @karpenter-ts/controllers in its
 * ControllerLoop (provisioning, node claim lifecycle, disruption with consolidation, drift,
 * emptiness and expiration, termination, garbage collection, NodePool status), with the loop's
 * kube-scheduler, kubelet and ReplicaSet stand-ins.
 *
 * Time: the loop runs every controller on every tick, and reports when its polls and requeues
 * are due (`ControllerLoop.timers()`); a launched NodeClaim's registration (the kubelet's delay)
 * is a timer too. With `coalesce`, once the cluster is quiet (not a single write since the last
 * disruption pass began, nothing in flight), every poll and resync would find what it found
 * then, so the engine wakes only for what time alone changes:
 * - a NodeClaim becoming Consolidatable (`consolidateAfter` after its last pod event) or
 *   expiring (`expireAfter`), computed with the controllers' own functions;
 * - with the NodeRepair gate, an unhealthy Node's condition reaching its repair policy's
 *   toleration;
 * - the disruption pass's own refresh ({@link ConsolidationStateRefreshSeconds}, or a minute when
 *   a NodePool has scheduled budgets) while something a pass reads can change with time alone
 *   (offerings in the unavailable-offerings cache, budget schedules).
 * Not woken for while quiet: the 10 s disruption poll, garbage collection (nothing is orphaned
 * in a cluster nobody writes to), the NodeClaims' 5 min drift resync (a scenario NodeClass
 * change wakes the run when that resync is due) and the instance-type drift check (the
 * catalog does not change during a run).
 */
import { Labels, NodeClaimConditions, parseDuration, type NodePool } from '@karpenter-ts/api';
import {
  consolidatableAt,
  consolidateAfterSeconds,
  ConsolidationStateRefreshSeconds,
  ControllerLoop,
  decision,
  timeMs,
  type SimReplicaSets,
} from '@karpenter-ts/controllers';
import type { Autoscaler, AutoscalerContext } from './autoscaler.js';
import { totalStartupSeconds } from './node-startup.js';

/** Seconds between disruption passes while nothing changed, when a NodePool has scheduled budgets. */
const SCHEDULED_BUDGET_POLL_SECONDS = 60;

/** Builds the Karpenter autoscaler for a run. */
export function karpenter(ctx: AutoscalerContext): Autoscaler {
  return new KarpenterAutoscaler(ctx);
}

class KarpenterAutoscaler implements Autoscaler {
  readonly name = 'karpenter';
  readonly loop: ControllerLoop;
  readonly #ctx: AutoscalerContext;
  readonly #registrationMs: number;
  /** Client writes before the tick in which the disruption pass last ran, and that tick's time. */
  #writesAtPass = -1;
  #passAt = 0;
  #scheduledBudgets = false;
  /** The NodePools as the last disruption pass saw them. */
  #pools = new Map<string, NodePool>();

  constructor(ctx: AutoscalerContext) {
    this.#ctx = ctx;
    const { client, clock, cloud, nodeStartup } = ctx.cluster;
    this.#registrationMs = totalStartupSeconds(nodeStartup) * 1000;
    this.loop = new ControllerLoop({
      client,
      cloudProvider: cloud,
      clock,
      provisioner: { solver: ctx.solver },
      kubelet: { registrationDelaySeconds: totalStartupSeconds(nodeStartup) },
      spotToSpotConsolidation: ctx.settings.spotToSpotConsolidation,
      nodeRepair: ctx.settings.nodeRepair,
      nodeOverlay: ctx.settings.nodeOverlay,
      disruptionObserver: {
        commandStarted: (command) =>
          ctx.recorder.disruption({
            reason: command.reason,
            decision: decision(command),
            nodes: command.candidates.map((c) => c.name),
            replacements: command.replacements.length,
          }),
      },
    });
  }

  get replicaSets(): SimReplicaSets {
    return this.loop.replicaSets;
  }

  async start(): Promise<void> {
    await this.loop.start();
  }

  async step(): Promise<void> {
    const { client, clock } = this.#ctx.cluster;
    const now = clock.now();
    if (this.loop.timers().disruption <= now) {
      this.#writesAtPass = client.writes;
      this.#passAt = now;
      const pools = await client.list('NodePool');
      this.#pools = new Map(pools.map((p) => [p.metadata.name ?? '', p]));
      this.#scheduledBudgets = pools.some((p) =>
        (p.spec.disruption?.budgets ?? []).some((b) => b.schedule !== undefined),
      );
    }
    await this.loop.step();
  }

  busy(): boolean {
    const { loop } = this;
    if (loop.disruption.pendingCommand !== undefined) return true;
    if (loop.disruption.queue.commands().length > 0) return true;
    if (loop.cluster.unlaunchedNodeClaims().length > 0) return true;
    return loop.cluster
      .nodes()
      .some((n) => n.managed() && (!n.initialized() || n.deleting() || n.markedForDeletion));
  }

  nextDueMs(coalesce: boolean): number | undefined {
    const { client, clock } = this.#ctx.cluster;
    const timers = this.loop.timers();
    let next = Math.min(this.#registrationDue(), this.#repairDue());
    const quiet = coalesce && client.writes === this.#writesAtPass && !this.busy();
    if (!quiet) {
      next = Math.min(
        next,
        timers.disruption,
        timers.garbageCollection,
        timers.nodeClaims ?? Infinity,
      );
      return Number.isFinite(next) ? next : undefined;
    }
    // Quiet: nothing was written since the last disruption pass began, so every poll and
    // resync would find what it found then. Wake only for what time alone changes.
    const now = clock.now();
    if (this.#timeDependentDisruption()) {
      const refresh = this.#scheduledBudgets
        ? SCHEDULED_BUDGET_POLL_SECONDS
        : ConsolidationStateRefreshSeconds;
      next = Math.min(next, Math.max(timers.disruption, this.#passAt + refresh * 1000));
    }
    for (const n of this.loop.cluster.nodes()) {
      const claim = n.nodeClaim;
      if (claim === undefined || n.deleting()) continue;
      const pool = this.#pools.get(claim.metadata.labels?.[Labels.NodePool] ?? '');
      if (pool === undefined) continue;
      const after = consolidateAfterSeconds(pool);
      const consolidatable = claim.status?.conditions?.some(
        (c) => c.type === NodeClaimConditions.Consolidatable && c.status === 'True',
      );
      if (after !== null && !consolidatable) {
        const at = consolidatableAt(claim, after);
        if (at !== undefined && at > now) next = Math.min(next, at);
      }
      const expireAfter = claim.spec.expireAfter;
      const created = timeMs(claim.metadata.creationTimestamp);
      if (expireAfter !== undefined && created !== undefined) {
        const seconds = durationOrNull(expireAfter);
        if (seconds !== null) next = Math.min(next, Math.max(now, created + seconds * 1000));
      }
    }
    return Number.isFinite(next) ? next : undefined;
  }

  /** When the kubelet registers the next launched NodeClaim's Node (Infinity when none waits). */
  #registrationDue(): number {
    let next = Infinity;
    for (const n of this.loop.cluster.nodes()) {
      if (n.node !== undefined || n.nodeClaim === undefined) continue;
      const launched = timeMs(
        n.nodeClaim.status?.conditions?.find(
          (c) => c.type === NodeClaimConditions.Launched && c.status === 'True',
        )?.lastTransitionTime,
      );
      if (launched !== undefined) next = Math.min(next, launched + this.#registrationMs);
    }
    return next;
  }

  /** When node repair may next act on an unhealthy Node (Infinity without the gate or such nodes). */
  #repairDue(): number {
    if (!this.#ctx.settings.nodeRepair) return Infinity;
    const policies = this.#ctx.cluster.cloud.repairPolicies();
    let next = Infinity;
    for (const n of this.loop.cluster.nodes()) {
      for (const c of n.node?.status?.conditions ?? []) {
        const policy = policies.find(
          (p) => p.conditionType === c.type && p.conditionStatus === c.status,
        );
        const since = timeMs(c.lastTransitionTime);
        if (policy !== undefined && since !== undefined)
          next = Math.min(next, since + policy.tolerationSeconds * 1000);
      }
    }
    return next;
  }

  /**
   * Whether a disruption pass over an unchanged cluster may decide differently later: offerings
   * in the unavailable-offerings cache come back, budget schedules open and close.
   */
  #timeDependentDisruption(): boolean {
    return this.#scheduledBudgets || this.#ctx.cluster.cloud.unavailableOfferings().length > 0;
  }

  stop(): void {
    this.loop.stop();
  }
}

/** Seconds of a NodeClaim duration (`Never` and unreadable values: null). */
function durationOrNull(text: string): number | null {
  try {
    return parseDuration(text);
  } catch {
    return null;
  }
}
