/**
 * The orchestration queue (upstream `disruption/queue.go`):
 * carries a command out.
 *
 * `start(command)`: taint every candidate Node `karpenter.sh/disrupted:NoSchedule` and set its
 * NodeClaim's `DisruptionReason=True` (reason Empty/Underutilized/Drifted); if that fails for a
 * command with replacements, or for every candidate, undo and abort. Then create the replacement
 * NodeClaims (abort and undo on failure), and only then mark the candidates for deletion in
 * cluster state (marking earlier would let the provisioner launch capacity for their pods twice)
 * and nominate the existing nodes the simulation moved their pods to.
 *
 * `reconcile()`: for each command, wait until every replacement is Initialized
 * (`DisruptionLaunching`, `DisruptionWaitingReadiness` events), then delete the candidates'
 * NodeClaims (`DisruptionTerminating`); termination drains them through the Eviction API. A
 * replacement that disappeared, or a command older than its timeout (10 min to 1 h: 80 ms per
 * queued command, clamped), is unrecoverable: the taints and conditions are removed and the
 * candidates unmarked. A replacement the client's cache does not hold yet is not taken as gone
 * during the first {@link ReplacementNotFoundGraceSeconds} of the command (reads come from a
 * watch cache that may lag the create; upstream's 5 s eventual-consistency delay). Replacements
 * already launched stay (they are ordinary nodes; emptiness removes them if they stay empty).
 *
 * The queue lives in memory. After a crash the disruption controller's first pass removes the
 * disrupted taint and `DisruptionReason` from nodes no command holds, so no node stays tainted
 * without a command.
 */
import type { Node, NodeClaim } from '@karpenter-ts/api';
import { NodeClaimConditions, Taints } from '@karpenter-ts/api';
import type { Clock } from '../clock.js';
import { isTrue, setCondition } from '../conditions.js';
import { isConflict, isNotFound, type KubeClient } from '../kube/client.js';
import type { Provisioner } from '../provisioning/provisioner.js';
import { requeueAfter, type ReconcileResult } from '../reconciler.js';
import type { Cluster } from '../state/cluster.js';
import type { Command } from './command.js';
import { removeCondition } from '../nodeclaim/disruption/remove-condition.js';
import type { DisruptionObserver } from './observer.js';

/** Seconds between queue passes while a command waits. */
export const QueueRetrySeconds = 1;
/** Command timeout bounds (seconds) and the per-command share (upstream). */
export const QueueMinTimeoutSeconds = 600;
export const QueueMaxTimeoutSeconds = 3600;
export const QueueTimeoutPerCommandSeconds = 0.08;
/**
 * Seconds after a command started during which a replacement NodeClaim missing from the cache is
 * waited for rather than taken as deleted (upstream: 5 s).
 */
export const ReplacementNotFoundGraceSeconds = 5;

/** A command being carried out. */
export interface QueuedCommand {
  readonly command: Command;
  /** Names of the replacement NodeClaims created for it. */
  readonly replacements: readonly string[];
  /** Clock ms when it started. */
  readonly startedAt: number;
  /** Waiting events already recorded (reason/replacement), so each is recorded once. */
  readonly announced: Set<string>;
}

/** Dependencies of {@link OrchestrationQueue}. */
export interface OrchestrationQueueOptions {
  readonly client: KubeClient;
  readonly cluster: Cluster;
  readonly provisioner: Provisioner;
  readonly clock: Clock;
  readonly observer?: DisruptionObserver;
}

/** Raised by {@link OrchestrationQueue.start} when a command cannot start; it was undone. */
export class CommandStartError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'CommandStartError';
  }
}

/** See the module comment. */
export class OrchestrationQueue {
  readonly #commands: QueuedCommand[] = [];

  constructor(private readonly o: OrchestrationQueueOptions) {}

  /** Commands in flight. */
  commands(): readonly QueuedCommand[] {
    return this.#commands;
  }

  /** Node names held by a command in flight. */
  queuedNodes(): Set<string> {
    return new Set(this.#commands.flatMap((q) => q.command.candidates.map((c) => c.name)));
  }

  /**
   * Starts a command (see the module comment). Returns the command as started (without
   * candidates that could not be marked, for a delete).
   * @throws CommandStartError when a candidate is already queued, marking failed for a command
   *   with replacements (or for all candidates), or a replacement could not be created.
   */
  async start(command: Command): Promise<QueuedCommand> {
    const queued = this.queuedNodes();
    const dup = command.candidates.find((c) => queued.has(c.name));
    if (dup !== undefined)
      throw new CommandStartError(`node ${dup.name} is already being disrupted`);
    const marked: (typeof command.candidates)[number][] = [];
    let failure: unknown;
    for (const c of command.candidates) {
      try {
        await this.#mark(c.name, c.nodeClaim.metadata.name ?? '', command.reason);
        marked.push(c);
      } catch (err) {
        failure = err;
      }
    }
    if (marked.length === 0 || (failure !== undefined && command.replacements.length > 0)) {
      await this.#unmark(marked.map((c) => [c.name, c.nodeClaim.metadata.name ?? '']));
      throw new CommandStartError(`marking candidates failed: ${errorText(failure)}`, {
        cause: failure,
      });
    }
    const started: Command = { ...command, candidates: marked };
    let replacements: string[] = [];
    if (started.replacements.length > 0) {
      const pools = new Map(started.candidates.map((c) => [c.nodePoolName, c.nodePool] as const));
      for (const r of started.replacements) {
        if (!pools.has(r.nodePoolName)) {
          const pool = await this.o.client.get('NodePool', { name: r.nodePoolName });
          if (pool !== undefined) pools.set(r.nodePoolName, pool);
        }
      }
      try {
        const { created, notCreated } = await this.o.provisioner.createNodeClaims(
          { newNodeClaims: started.replacements },
          pools,
          { leaving: new Set(started.candidates.map((c) => c.name)) },
        );
        replacements = created.map((nc) => nc.metadata.name ?? '');
        for (const nc of created) this.o.observer?.nodeClaimCreated?.(nc, started.reason);
        if (notCreated.length > 0) {
          throw new Error(notCreated.map((n) => n.reason).join('; '));
        }
      } catch (err) {
        await this.#unmark(marked.map((c) => [c.name, c.nodeClaim.metadata.name ?? '']));
        throw new CommandStartError(`launching replacements failed: ${errorText(err)}`, {
          cause: err,
        });
      }
    }
    this.o.cluster.markForDeletion(...started.candidates.map((c) => c.name));
    for (const name of started.destinations) {
      this.o.cluster.nominate(name, this.o.provisioner.nominationSeconds);
    }
    const entry: QueuedCommand = {
      command: started,
      replacements,
      startedAt: this.o.clock.now(),
      announced: new Set(),
    };
    this.#commands.push(entry);
    this.o.observer?.commandStarted?.(started);
    for (const c of started.candidates) {
      this.o.client.recordEvent({
        involved: { kind: 'Node', name: c.name },
        type: 'Normal',
        reason: 'DisruptionLaunching',
        message:
          replacements.length > 0
            ? `Launching NodeClaim: ${started.reason}/${replacements.join(', ')}`
            : `Disrupting Node: ${started.reason}/${started.method}`,
      });
    }
    return entry;
  }

  /** One pass over the commands in flight (see the module comment). */
  async reconcile(): Promise<ReconcileResult> {
    const now = this.o.clock.now();
    const timeout = Math.min(
      QueueMaxTimeoutSeconds,
      Math.max(QueueMinTimeoutSeconds, this.#commands.length * QueueTimeoutPerCommandSeconds),
    );
    for (const entry of [...this.#commands]) {
      const outcome = await this.#progress(entry, now, timeout);
      if (outcome === 'waiting') continue;
      this.#commands.splice(this.#commands.indexOf(entry), 1);
      if (outcome !== 'done') {
        await this.#unmark(
          entry.command.candidates.map((c) => [c.name, c.nodeClaim.metadata.name ?? '']),
        );
        this.o.observer?.queueFailure?.(entry.command, outcome);
        for (const c of entry.command.candidates) {
          this.o.client.recordEvent({
            involved: { kind: 'Node', name: c.name },
            type: 'Warning',
            reason: 'DisruptionBlocked',
            message: `Disruption of Node failed and was rolled back: ${outcome}`,
          });
        }
      }
    }
    return this.#commands.length > 0 ? requeueAfter(QueueRetrySeconds) : {};
  }

  /** 'waiting', 'done', or why the command is unrecoverable. */
  async #progress(entry: QueuedCommand, now: number, timeoutSeconds: number): Promise<string> {
    const { client } = this.o;
    if (now - entry.startedAt > timeoutSeconds * 1000) {
      return `command timed out after ${timeoutSeconds} s waiting for replacements`;
    }
    for (const name of entry.replacements) {
      const nc = await client.get('NodeClaim', { name });
      if (nc === undefined && now - entry.startedAt <= ReplacementNotFoundGraceSeconds * 1000) {
        return 'waiting'; // Created moments ago: the watch cache may not have it yet.
      }
      if (nc === undefined || nc.metadata.deletionTimestamp !== undefined) {
        return `replacement nodeclaim ${name} was deleted`;
      }
      if (!isTrue(nc, NodeClaimConditions.Initialized)) {
        const reason = isTrue(nc, NodeClaimConditions.Launched)
          ? 'DisruptionWaitingReadiness'
          : 'DisruptionLaunching';
        if (entry.announced.has(`${reason}/${name}`)) return 'waiting';
        entry.announced.add(`${reason}/${name}`);
        for (const c of entry.command.candidates) {
          client.recordEvent({
            involved: { kind: 'Node', name: c.name },
            type: 'Normal',
            reason,
            message:
              reason === 'DisruptionLaunching'
                ? `Launching NodeClaim: ${entry.command.reason}/${name}`
                : `Waiting on readiness to continue disruption: ${entry.command.reason}/${name}`,
          });
        }
        return 'waiting';
      }
    }
    for (const c of entry.command.candidates) {
      const name = c.nodeClaim.metadata.name ?? '';
      try {
        await client.delete('NodeClaim', { name });
      } catch (err) {
        if (!isNotFound(err)) throw err;
      }
      client.recordEvent({
        involved: { kind: 'Node', name: c.name },
        type: 'Normal',
        reason: 'DisruptionTerminating',
        message: `Disrupting Node: ${entry.command.reason}/${entry.command.method}`,
      });
      this.o.observer?.nodeClaimDisrupted?.(c.nodeClaim, entry.command);
    }
    return 'done';
  }

  /** Taints the Node and sets `DisruptionReason` on its NodeClaim. */
  async #mark(nodeName: string, nodeClaimName: string, reason: string): Promise<void> {
    await this.#updateNode(nodeName, (node) => {
      const taints = node.spec?.taints ?? [];
      if (
        taints.some((t) => t.key === Taints.Disrupted.key && t.effect === Taints.Disrupted.effect)
      )
        return false;
      node.spec = {
        ...(node.spec ?? {}),
        taints: [
          ...taints.filter((t) => t.key !== Taints.Disrupted.key),
          { ...Taints.Disrupted, timeAdded: new Date(this.o.clock.now()) },
        ],
      };
      return true;
    });
    await this.#updateNodeClaimStatus(nodeClaimName, (nc) =>
      setCondition(
        nc,
        { type: NodeClaimConditions.DisruptionReason, status: 'True', reason, message: reason },
        this.o.clock.now(),
      ),
    );
  }

  /** Undoes {@link #mark} for [node, nodeClaim] pairs and unmarks them in state; best effort. */
  async #unmark(pairs: readonly (readonly [string, string])[]): Promise<void> {
    for (const [nodeName, nodeClaimName] of pairs) {
      this.o.cluster.unmarkForDeletion(nodeName);
      await removeDisruptionMarks(this.o.client, nodeName, nodeClaimName).catch(() => undefined);
    }
  }

  async #updateNode(name: string, change: (node: Node) => boolean): Promise<void> {
    for (let attempt = 0; ; attempt++) {
      const node = await this.o.client.get('Node', { name });
      if (node === undefined) throw new Error(`node ${name} not found`);
      if (!change(node)) return;
      try {
        await this.o.client.update('Node', node);
        return;
      } catch (err) {
        if (!isConflict(err) || attempt >= 2) throw err;
      }
    }
  }

  async #updateNodeClaimStatus(name: string, change: (nc: NodeClaim) => boolean): Promise<void> {
    for (let attempt = 0; ; attempt++) {
      const nc = await this.o.client.get('NodeClaim', { name });
      if (nc === undefined) throw new Error(`nodeclaim ${name} not found`);
      if (!change(nc)) return;
      try {
        await this.o.client.updateStatus('NodeClaim', nc);
        return;
      } catch (err) {
        if (!isConflict(err) || attempt >= 2) throw err;
      }
    }
  }
}

/**
 * Removes the `karpenter.sh/disrupted` taint from a Node that is not being deleted and the
 * `DisruptionReason` condition from its NodeClaim (rollback and crash recovery). Returns whether
 * anything was written.
 */
export async function removeDisruptionMarks(
  client: KubeClient,
  nodeName: string,
  nodeClaimName: string | undefined,
): Promise<boolean> {
  let wrote = false;
  const node = await client.get('Node', { name: nodeName });
  if (
    node !== undefined &&
    node.metadata?.deletionTimestamp === undefined &&
    (node.spec?.taints ?? []).some((t) => t.key === Taints.Disrupted.key)
  ) {
    node.spec = {
      ...(node.spec ?? {}),
      taints: (node.spec?.taints ?? []).filter((t) => t.key !== Taints.Disrupted.key),
    };
    await client.update('Node', node);
    wrote = true;
  }
  if (nodeClaimName !== undefined && nodeClaimName !== '') {
    const nc = await client.get('NodeClaim', { name: nodeClaimName });
    if (
      nc !== undefined &&
      nc.metadata.deletionTimestamp === undefined &&
      removeCondition(nc, NodeClaimConditions.DisruptionReason)
    ) {
      await client.updateStatus('NodeClaim', nc);
      wrote = true;
    }
  }
  return wrote;
}

function errorText(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
