/**
 * The interruption controller, after upstream `aws/karpenter-provider-aws`'s
 * `pkg/controllers/interruption` (v1.14): a singleton that long-polls the SQS queue EventBridge
 * feeds and acts on each message before the instance is reclaimed.
 *
 * - Spot interruption warning, AWS Health scheduled change, instance stopping / stopped /
 *   shutting-down / terminated: the NodeClaim whose provider ID names the instance is deleted, so
 *   the termination controller taints (`karpenter.sh/disrupted:NoSchedule`) and drains its node
 *   while the provisioner, which schedules the pods of deleting nodes, launches their
 *   replacements. A NodeClaim already deleting is left alone.
 * - A spot interruption also marks its offering (instance type, zone, spot) unavailable for
 *   3 minutes, so the replacement goes elsewhere; a capacity reservation interruption warning
 *   marks the NodeClaim's reservation (its `karpenter.k8s.aws/capacity-reservation-id`)
 *   unavailable until the next refresh, and deletes the NodeClaim.
 * - A rebalance recommendation only records an event (upstream's default).
 * - A message about an instance no NodeClaim owns, or of a kind Karpenter ignores, is deleted.
 * - A malformed message is logged, counted and deleted.
 *
 * Every message is deleted once handled; one whose handling failed (the API server refused the
 * delete) is left on the queue and comes back after the 20-second visibility timeout.
 * A batch's messages are handled in parallel.
 */
import type { Node, NodeClaim } from '@karpenter-ts/api';
import { systemClock, type Clock } from '@karpenter-ts/cloudprovider';
import { isNotFound, type KubeClient, type PeriodicTask } from '@karpenter-ts/controllers';
import { instanceIdOf } from '../../cloudprovider/instance.js';
import type { UnavailableOfferings } from '../../launch/unavailable-offerings.js';
import type { ReservationCapacity } from '../../launch/reservation-capacity.js';
import { AwsLabels } from '../../labels.js';
import { messageEvents, terminatingOnInterruptionEvents } from './events.js';
import {
  MalformedMessageError,
  parseInterruptionMessage,
  type InterruptionMessage,
  type InterruptionMessageKind,
} from './messages.js';
import type { QueueMessage, SqsInterruptionQueue } from './queue.js';

/** The `message_type` of a malformed message in the received-messages count (not upstream's). */
export const MalformedMessageType = 'malformed';

/**
 * Where the controller reports its metrics (the operator maps them to upstream's
 * `karpenter_interruption_received_messages_total{message_type}`,
 * `karpenter_interruption_deleted_messages_total`,
 * `karpenter_interruption_message_queue_duration_seconds` and
 * `karpenter_nodeclaims_disrupted_total{reason=<kind>}`).
 */
export interface InterruptionMetrics {
  /** A message was received: its kind, or {@link MalformedMessageType}. */
  messageReceived(type: InterruptionMessageKind | typeof MalformedMessageType): void;
  /** A message was deleted from the queue. */
  messageDeleted(): void;
  /** Seconds from the event's time (else SQS's sent time) until it was handled. */
  messageQueueDuration(seconds: number): void;
  /** A NodeClaim was deleted because of a message of `kind`. */
  nodeClaimDisrupted(nodeClaim: NodeClaim, kind: InterruptionMessageKind): void;
}

/** Where the controller logs. */
export interface InterruptionLogger {
  info(message: string, fields?: Record<string, unknown>): void;
  error(message: string, fields?: Record<string, unknown>): void;
}

/** Options of {@link InterruptionController}. */
export interface InterruptionControllerOptions {
  readonly client: KubeClient;
  readonly queue: SqsInterruptionQueue;
  /** The provider's unavailable-offerings cache (spot interruptions mark it). */
  readonly unavailableOfferings: UnavailableOfferings;
  /** The provider's reservation counts (capacity reservation interruptions mark the reservation). */
  readonly reservationCapacity?: ReservationCapacity;
  readonly clock?: Clock;
  readonly logger?: InterruptionLogger;
  readonly metrics?: InterruptionMetrics;
}

/** What one pass did (tests and logs). */
export interface InterruptionPassResult {
  readonly received: number;
  readonly deleted: number;
  readonly malformed: number;
  /** Names of the NodeClaims deleted. */
  readonly deletedNodeClaims: readonly string[];
  /** Messages whose handling failed (left on the queue). */
  readonly failed: number;
  /** True when the pass was skipped (backing off after a failed receive). */
  readonly skipped?: boolean;
}

/** Seconds a failed receive backs off, doubling up to the maximum (the work queue's pace). */
export const InterruptionBackoffSeconds = { first: 1, max: 60 } as const;

/** See the module comment. */
export class InterruptionController {
  readonly #o: InterruptionControllerOptions;
  readonly #clock: Clock;
  #stop = new AbortController();
  #backoffSeconds = 0;
  #retryAtMs = 0;

  constructor(options: InterruptionControllerOptions) {
    this.#o = options;
    this.#clock = options.clock ?? systemClock;
  }

  /**
   * One pass: a long-polled receive, then every message handled and deleted. Raises when the
   * receive fails (the queue is missing, access is denied, …) and then skips passes for a
   * backoff of 1 s doubling to 60 s; resolves with no message when stopped during the wait.
   */
  async reconcile(): Promise<InterruptionPassResult> {
    const empty = { received: 0, deleted: 0, malformed: 0, deletedNodeClaims: [], failed: 0 };
    if (this.#clock.now() < this.#retryAtMs) return { ...empty, skipped: true };
    let messages: QueueMessage[];
    const signal = this.#stop.signal;
    try {
      messages = await this.#o.queue.receive(signal);
    } catch (err) {
      if (signal.aborted) return empty;
      this.#backoffSeconds = Math.min(
        InterruptionBackoffSeconds.max,
        this.#backoffSeconds === 0 ? InterruptionBackoffSeconds.first : this.#backoffSeconds * 2,
      );
      this.#retryAtMs = this.#clock.now() + this.#backoffSeconds * 1000;
      throw err;
    }
    this.#backoffSeconds = 0;
    if (messages.length === 0) return empty;
    const [claims, nodes] = await Promise.all([
      this.#o.client.list('NodeClaim'),
      this.#o.client.list('Node'),
    ]);
    const claimByInstance = byInstanceId(claims, (c) => c.status?.providerID);
    const nodeByInstance = byInstanceId(nodes, (n) => n.spec?.providerID);
    const outcomes = await Promise.all(
      messages.map((m) => this.#handle(m, claimByInstance, nodeByInstance)),
    );
    return {
      received: messages.length,
      deleted: outcomes.filter((o) => o.deleted).length,
      malformed: outcomes.filter((o) => o.malformed).length,
      deletedNodeClaims: outcomes.flatMap((o) => o.deletedNodeClaims),
      failed: outcomes.filter((o) => !o.deleted).length,
    };
  }

  /**
   * The controller as the manager's periodic task: a pass every second at most (a pass is a
   * long poll of up to 20 s, and the runner never overlaps two), stopped by aborting the wait.
   */
  task(): PeriodicTask {
    return {
      name: 'aws.interruption',
      intervalSeconds: 1,
      run: () => this.reconcile(),
      stop: () => this.stop(),
    };
  }

  /** Aborts a receive in flight; later passes start a new wait. */
  stop(): void {
    this.#stop.abort();
    this.#stop = new AbortController();
  }

  async #handle(
    raw: QueueMessage,
    claims: ReadonlyMap<string, NodeClaim>,
    nodes: ReadonlyMap<string, Node>,
  ): Promise<{ deleted: boolean; malformed: boolean; deletedNodeClaims: string[] }> {
    const { logger, metrics } = this.#o;
    let message: InterruptionMessage;
    try {
      message = parseInterruptionMessage(raw.body);
    } catch (err) {
      if (!(err instanceof MalformedMessageError)) throw err;
      metrics?.messageReceived(MalformedMessageType);
      logger?.error('malformed interruption message; deleting it', {
        queue: this.#o.queue.name,
        messageId: raw.messageId,
        error: err.message,
        body: raw.body.length > 512 ? `${raw.body.slice(0, 512)}…` : raw.body,
      });
      return { deleted: await this.#delete(raw), malformed: true, deletedNodeClaims: [] };
    }
    metrics?.messageReceived(message.kind);
    const deletedNodeClaims: string[] = [];
    let failed = false;
    if (message.kind !== 'no_op') {
      for (const instanceId of message.instanceIds) {
        const nodeClaim = claims.get(instanceId);
        if (!nodeClaim) continue; // not ours
        try {
          if (await this.#act(message, nodeClaim, nodes.get(instanceId)))
            deletedNodeClaims.push(nodeClaim.metadata.name ?? '');
        } catch (err) {
          failed = true;
          logger?.error('acting on an interruption message failed; it stays on the queue', {
            queue: this.#o.queue.name,
            messageId: raw.messageId,
            kind: message.kind,
            nodeClaim: nodeClaim.metadata.name,
            error: err instanceof Error ? err.message : String(err),
          });
        }
      }
      const started = message.timeMs ?? raw.sentMs;
      if (started !== undefined)
        metrics?.messageQueueDuration(Math.max(0, (this.#clock.now() - started) / 1000));
    }
    if (failed) return { deleted: false, malformed: false, deletedNodeClaims };
    return { deleted: await this.#delete(raw), malformed: false, deletedNodeClaims };
  }

  /** Events, the offering mark and the delete; true when this call deleted the NodeClaim. */
  async #act(
    message: InterruptionMessage,
    nodeClaim: NodeClaim,
    node: Node | undefined,
  ): Promise<boolean> {
    const { client, logger } = this.#o;
    for (const e of messageEvents(message, nodeClaim, node)) client.recordEvent(e);
    if (message.kind === 'rebalance_recommendation') return false;
    const labels = nodeClaim.metadata.labels ?? {};
    const zone = labels['topology.kubernetes.io/zone'];
    const instanceType = labels['node.kubernetes.io/instance-type'];
    if (message.kind === 'spot_interrupted' && zone && instanceType)
      this.#o.unavailableOfferings.mark({ capacityType: 'spot', instanceType, zone });
    const reservation = labels[AwsLabels.CapacityReservationID];
    if (message.kind === 'capacity_reservation_interrupted' && reservation)
      this.#o.reservationCapacity?.markUnavailable(reservation);
    if (nodeClaim.metadata.deletionTimestamp !== undefined) return false;
    try {
      await client.delete('NodeClaim', { name: nodeClaim.metadata.name ?? '' });
    } catch (err) {
      if (isNotFound(err)) return false;
      throw err;
    }
    logger?.info('initiating delete from interruption message', {
      kind: message.kind,
      nodeClaim: nodeClaim.metadata.name,
      ...(node?.metadata?.name ? { node: node.metadata.name } : {}),
      ...(message.state ? { state: message.state } : {}),
    });
    for (const e of terminatingOnInterruptionEvents(nodeClaim, node)) client.recordEvent(e);
    this.#o.metrics?.nodeClaimDisrupted(nodeClaim, message.kind);
    return true;
  }

  async #delete(raw: QueueMessage): Promise<boolean> {
    try {
      await this.#o.queue.delete(raw);
      this.#o.metrics?.messageDeleted();
      return true;
    } catch (err) {
      this.#o.logger?.error('deleting an interruption message failed', {
        queue: this.#o.queue.name,
        messageId: raw.messageId,
        error: err instanceof Error ? err.message : String(err),
      });
      return false;
    }
  }
}

function byInstanceId<T>(
  objects: readonly T[],
  providerID: (o: T) => string | undefined,
): Map<string, T> {
  const out = new Map<string, T>();
  for (const o of objects) {
    const id = instanceIdOf(providerID(o) ?? '');
    if (id !== undefined) out.set(id, o);
  }
  return out;
}
