/**
 * The disruption controller (upstream `disruption/controller.go`): a singleton loop that, once
 * cluster state is synced,
 * 1. removes the `karpenter.sh/disrupted` taint and `DisruptionReason` from nodes no command
 *    holds and that are not going away (what a crash left behind);
 * 2. tries the methods in upstream's order — emptiness, drift, multi-node consolidation,
 *    single-node consolidation — and stops at the first that yields a command;
 * 3. starts drift commands at once; emptiness and consolidation commands wait 15 s and are
 *    validated (see `validation.ts`) before the orchestration queue starts them.
 * It polls every 10 s while there is nothing to do. Emptiness and consolidation are skipped
 * while the cluster has not changed since they last found nothing (rechecked at least every
 * 5 min), as upstream's consolidation-state timestamp does.
 *
 * {@link DisruptionController.plan} computes the same decision without acting (the dry run).
 * Static drift (StaticCapacity gate) and the Balanced policy's scoring are not built.
 */
import type { DisruptionReason, NodePool } from '@karpenter-ts/api';
import { Annotations, Labels, NodeClaimConditions, Taints } from '@karpenter-ts/api';
import type { Clock } from '../clock.js';
import { getCondition } from '../conditions.js';
import type { KubeClient } from '../kube/client.js';
import { PdbLimits } from '../pdb-limits.js';
import { podKey } from '../pods.js';
import type { Provisioner } from '../provisioning/provisioner.js';
import { requeueAfter, type ReconcileResult } from '../reconciler.js';
import type { Cluster } from '../state/cluster.js';
import { buildBudgetMapping, type BudgetMapping } from './budget-mapping.js';
import { buildCandidates, type Candidate, type NotCandidate } from './candidate.js';
import { describeCommand, type Command, type MethodName, type Skipped } from './command.js';
import { EventDeduper } from './event-deduper.js';
import { ValidationDelaySeconds, type DisruptionMethod, type MethodContext } from './method.js';
import { Drift } from './methods/drift.js';
import { Emptiness } from './methods/emptiness.js';
import { MultiNodeConsolidation } from './methods/multi-node-consolidation.js';
import { SingleNodeConsolidation } from './methods/single-node-consolidation.js';
import type { DisruptionObserver } from './observer.js';
import { CommandStartError, OrchestrationQueue, removeDisruptionMarks } from './queue.js';
import type { SimulationContext } from './simulation.js';
import { validateCommand } from './validation.js';

/** Seconds between passes when there is nothing to do. */
export const DisruptionPollSeconds = 10;
/** Emptiness and consolidation re-run at least this often (seconds) even when nothing changed. */
export const ConsolidationStateRefreshSeconds = 300;

/** Options of {@link DisruptionController}. */
export interface DisruptionControllerOptions {
  readonly client: KubeClient;
  readonly cluster: Cluster;
  readonly provisioner: Provisioner;
  readonly clock: Clock;
  /** Feature gate `SpotToSpotConsolidation`; default false, as upstream. */
  readonly spotToSpotConsolidation?: boolean;
  readonly observer?: DisruptionObserver;
  /** Wall time source for evaluation-duration metrics (ms); default `performance.now`. */
  readonly wallClock?: () => number;
}

/** One pass's decision (what {@link DisruptionController.plan} returns). */
export interface DisruptionPlan {
  /** The method that produced the commands; undefined when none did. */
  readonly method?: MethodName;
  readonly commands: readonly Command[];
  /** Nodes that are not candidates at all, with the reason. */
  readonly notCandidates: readonly NotCandidate[];
  /** Per method tried: candidates it declined (its own filter, budgets, simulations). */
  readonly skipped: readonly Skipped[];
  /** The budget mappings computed, by reason. */
  readonly budgets: ReadonlyMap<DisruptionReason, BudgetMapping>;
}

interface Pending {
  readonly method: DisruptionMethod;
  readonly command: Command;
  readonly validateAt: number;
}

/** See the module comment. */
export class DisruptionController {
  readonly queue: OrchestrationQueue;
  readonly methods: readonly DisruptionMethod[] = [
    new Emptiness(),
    new Drift(),
    new MultiNodeConsolidation(),
    new SingleNodeConsolidation(),
  ];
  /** The last plan of a pass (for tests, logs and the dry run). */
  lastPlan: DisruptionPlan | undefined;
  #pending: Pending | undefined;
  /** Per method: the cluster fingerprint when it last found nothing, and when. */
  readonly #idle = new Map<MethodName, { fingerprint: string; at: number }>();
  readonly #events: EventDeduper;

  constructor(private readonly o: DisruptionControllerOptions) {
    this.queue = new OrchestrationQueue({
      client: o.client,
      cluster: o.cluster,
      provisioner: o.provisioner,
      clock: o.clock,
      ...(o.observer ? { observer: o.observer } : {}),
    });
    this.#events = new EventDeduper(o.client, o.clock);
  }

  /** A command computed and waiting for its validation, if any. */
  get pendingCommand(): Command | undefined {
    return this.#pending?.command;
  }

  /** One pass of the loop (see the module comment). */
  async reconcile(): Promise<ReconcileResult> {
    const { client, cluster, clock } = this.o;
    if (!(await cluster.synced(client))) return requeueAfter(1);
    await this.#removeStaleMarks();
    const now = clock.now();
    if (this.#pending !== undefined) {
      const pending = this.#pending;
      if (now < pending.validateAt) return requeueAfter((pending.validateAt - now) / 1000);
      this.#pending = undefined;
      const ctx = await this.#context();
      const validated = validateCommand(
        ctx,
        pending.method,
        pending.command,
        this.queue.queuedNodes(),
      );
      if (validated.command === undefined) {
        this.o.observer?.failedValidation?.(pending.command, validated.reason);
        for (const c of pending.command.candidates) {
          this.#events.record(
            { kind: 'Node', name: c.name },
            'Normal',
            'ConsolidationRejected',
            `Consolidation was rejected: ${validated.reason}`,
          );
        }
        return requeueAfter(DisruptionPollSeconds);
      }
      return this.#start(validated.command);
    }
    const ctx = await this.#context();
    const plan = this.#plan(ctx, true);
    this.lastPlan = plan;
    const command = plan.commands[0];
    const method = this.methods.find((m) => m.name === plan.method);
    if (command === undefined || method === undefined) return requeueAfter(DisruptionPollSeconds);
    if (method.validates) {
      this.#pending = { method, command, validateAt: now + ValidationDelaySeconds * 1000 };
      return requeueAfter(ValidationDelaySeconds);
    }
    return this.#start(command);
  }

  /**
   * The decision a pass would make now, without acting and without events: every method in
   * order until one yields commands (all methods run, none skipped for an unchanged cluster).
   */
  async plan(): Promise<DisruptionPlan> {
    return this.#plan(await this.#context(), false);
  }

  async #start(command: Command): Promise<ReconcileResult> {
    try {
      await this.queue.start(command);
    } catch (err) {
      if (!(err instanceof CommandStartError)) throw err;
      for (const c of command.candidates) {
        this.#events.record(
          { kind: 'Node', name: c.name },
          'Warning',
          'DisruptionBlocked',
          `Cannot disrupt Node: ${err.message}`,
        );
      }
      return requeueAfter(DisruptionPollSeconds);
    }
    for (const c of command.candidates) {
      this.#events.record(
        { kind: 'Node', name: c.name },
        'Normal',
        'Disrupted',
        `Disrupting Node: ${describeCommand(command)}`,
      );
    }
    return requeueAfter(1);
  }

  #plan(ctx: MethodContext, acting: boolean): DisruptionPlan {
    const { sim } = ctx;
    const queued = this.queue.queuedNodes();
    const budgets = new Map<DisruptionReason, BudgetMapping>();
    const skipped: Skipped[] = [];
    let notCandidates: readonly NotCandidate[] = [];
    const fingerprint = acting ? clusterFingerprint(sim) : '';
    // Candidates depend only on the disruption class: build them once per class and pass.
    const byClass = new Map<string, ReturnType<typeof buildCandidates>>();
    for (const method of this.methods) {
      let built = byClass.get(method.disruptionClass);
      if (built === undefined) {
        built = buildCandidates(
          sim.nodes,
          {
            nowMs: sim.nowMs,
            nodePools: sim.inputs.pools as ReadonlyMap<string, NodePool>,
            instanceTypes: sim.inputs.instanceTypes,
            pdbs: sim.pdbs,
            queued,
          },
          method.disruptionClass,
        );
        byClass.set(method.disruptionClass, built);
      }
      const { candidates, notCandidates: not } = built;
      if (method === this.methods[0]) notCandidates = not;
      if (acting) {
        for (const n of not) {
          if (!n.blocked) continue;
          this.#events.record(
            { kind: 'Node', name: n.name },
            'Normal',
            'DisruptionBlocked',
            `Cannot disrupt Node: ${n.reason}`,
          );
        }
      }
      const eligible: Candidate[] = [];
      for (const c of candidates) {
        const why = method.shouldDisrupt(c, sim.nowMs);
        if (why === undefined) eligible.push(c);
        else skipped.push({ name: c.name, method: method.name, reason: why });
      }
      const mapping = buildBudgetMapping(
        sim.nodes,
        [...sim.inputs.pools.values()],
        method.reason,
        sim.nowMs,
      );
      if (!budgets.has(method.reason)) budgets.set(method.reason, mapping);
      if (acting) {
        this.o.observer?.eligibleNodes?.(method.reason, eligible.length);
        for (const pool of mapping.pools.keys()) {
          this.o.observer?.allowedDisruptions?.(pool, method.reason, mapping.left(pool));
        }
      }
      if (eligible.length === 0) continue;
      if (acting) this.#recordBlockedPools(mapping, eligible);
      const state = `${fingerprint}\n${eligible.map((c) => c.name).join(',')}`;
      if (acting && method.name !== 'drift' && this.#unchangedSinceIdle(method.name, state))
        continue;
      const started = (this.o.wallClock ?? performance.now.bind(performance))();
      const result = method.computeCommands(ctx, mapping, eligible);
      const seconds = ((this.o.wallClock ?? performance.now.bind(performance))() - started) / 1000;
      if (acting) this.o.observer?.evaluated?.(method.name, method.reason, seconds);
      skipped.push(...result.skipped);
      if (acting && method.name.endsWith('consolidation')) {
        for (const s of result.skipped) {
          this.#events.record(
            { kind: 'Node', name: s.name },
            'Normal',
            'Unconsolidatable',
            s.reason,
            15 * 60,
          );
        }
      }
      if (result.commands.length > 0) {
        this.#idle.delete(method.name);
        return { method: method.name, commands: result.commands, notCandidates, skipped, budgets };
      }
      if (acting) this.#idle.set(method.name, { fingerprint: state, at: sim.nowMs });
    }
    return { commands: [], notCandidates, skipped, budgets };
  }

  /** A `DisruptionBlocked` event on each NodePool with eligible nodes whose budget is 0 (upstream). */
  #recordBlockedPools(mapping: BudgetMapping, eligible: readonly Candidate[]): void {
    for (const pool of new Set(eligible.map((c) => c.nodePoolName))) {
      if (mapping.left(pool) > 0) continue;
      this.#events.record(
        { kind: 'NodePool', name: pool },
        'Normal',
        'DisruptionBlocked',
        `No allowed disruptions for disruption reason ${mapping.reason} due to blocking budget`,
      );
    }
  }

  #unchangedSinceIdle(method: MethodName, fingerprint: string): boolean {
    const idle = this.#idle.get(method);
    if (idle === undefined) return false;
    const fresh = this.o.clock.now() - idle.at < ConsolidationStateRefreshSeconds * 1000;
    return fresh && idle.fingerprint === fingerprint;
  }

  async #context(): Promise<MethodContext> {
    const { client, cluster, provisioner, clock } = this.o;
    const sim: SimulationContext = {
      provisioner,
      inputs: await provisioner.schedulingInputs(),
      nodes: cluster.nodes(),
      pendingPods: await provisioner.pendingPods(false),
      pdbs: new PdbLimits(await client.list('PodDisruptionBudget')),
      nowMs: clock.now(),
    };
    return {
      sim,
      client,
      clock,
      spotToSpotConsolidation: this.o.spotToSpotConsolidation ?? false,
    };
  }

  /** Step 1 of the module comment. */
  async #removeStaleMarks(): Promise<void> {
    const queued = this.queue.queuedNodes();
    const pendingNames = new Set(this.#pending?.command.candidates.map((c) => c.name) ?? []);
    for (const n of this.o.cluster.nodes()) {
      const name = n.name();
      if (queued.has(name) || pendingNames.has(name)) continue;
      if (n.markedForDeletion || n.deleting()) continue;
      const tainted = (n.node?.spec?.taints ?? []).some((t) => t.key === Taints.Disrupted.key);
      const reason =
        n.nodeClaim !== undefined &&
        getCondition(n.nodeClaim, NodeClaimConditions.DisruptionReason) !== undefined;
      if (!tainted && !reason) continue;
      await removeDisruptionMarks(this.o.client, name, n.nodeClaim?.metadata.name).catch(
        () => undefined,
      );
    }
  }
}

/**
 * A fingerprint of what consolidation decisions depend on: each node (name, initialized,
 * marked/deleting, do-not-disrupt, Consolidatable, its pods), the pending pods and the NodePools.
 */
function clusterFingerprint(sim: SimulationContext): string {
  const parts: string[] = [];
  for (const n of sim.nodes) {
    parts.push(
      [
        n.name(),
        n.initialized() ? 'i' : '',
        n.markedForDeletion || n.deleting() ? 'd' : '',
        n.node?.metadata?.annotations?.[Annotations.DoNotDisrupt] ?? '',
        n.nodeClaim?.status?.conditions?.find((c) => c.type === NodeClaimConditions.Consolidatable)
          ?.status ?? '',
        n.labels()[Labels.NodePool] ?? '',
        n.pods.map(podKey).sort().join(','),
      ].join('|'),
    );
  }
  parts.push(sim.pendingPods.map(podKey).sort().join(','));
  for (const p of sim.inputs.pools.values())
    parts.push(`${p.metadata.name}@${p.metadata.resourceVersion}`);
  return parts.join('\n');
}
