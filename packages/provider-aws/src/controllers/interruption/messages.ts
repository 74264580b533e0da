/**
 * The EventBridge messages the interruption queue carries, parsed as upstream
 * `aws/karpenter-provider-aws` does (`pkg/controllers/interruption/messages`): the envelope's
 * (`version`, `source`, `detail-type`) picks the kind; a message of no kind Karpenter acts on is
 * a `no_op` (it is deleted and ignored); a body that is not such an envelope is malformed.
 */

/** Message kinds under upstream's names (the `message_type` label of the interruption metrics). */
export const InterruptionMessageKinds = [
  'spot_interrupted',
  'capacity_reservation_interrupted',
  'rebalance_recommendation',
  'scheduled_change',
  'instance_stopped',
  'instance_terminated',
  'no_op',
] as const;

/** One of {@link InterruptionMessageKinds}. */
export type InterruptionMessageKind = (typeof InterruptionMessageKinds)[number];

/** A parsed message. */
export interface InterruptionMessage {
  readonly kind: InterruptionMessageKind;
  /** The EC2 instances it is about (`i-…`); empty for `no_op`. */
  readonly instanceIds: readonly string[];
  /** The envelope's `time` (when the event happened), ms since the epoch; undefined when absent. */
  readonly timeMs?: number;
  /** Instance state-change messages: the new state (`stopping`, `stopped`, …). */
  readonly state?: string;
  /** The envelope's `id`, for logs. */
  readonly id?: string;
}

/** A message body that is not an EventBridge envelope of the shape its kind needs. */
export class MalformedMessageError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'MalformedMessageError';
  }
}

/** Instance states whose state-change message deletes the NodeClaim (others are `no_op`). */
const StoppedStates: ReadonlySet<string> = new Set(['stopping', 'stopped']);
const TerminatedStates: ReadonlySet<string> = new Set(['shutting-down', 'terminated']);

type Json = Record<string, unknown>;

const isObject = (v: unknown): v is Json =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

function instanceIdOf(detail: Json, kind: string): string {
  const id = detail['instance-id'];
  if (typeof id !== 'string' || id === '')
    throw new MalformedMessageError(`${kind}: detail.instance-id must be a non-empty string`);
  return id;
}

function detailOf(envelope: Json, kind: string): Json {
  const detail = envelope['detail'];
  if (!isObject(detail)) throw new MalformedMessageError(`${kind}: detail must be an object`);
  return detail;
}

/**
 * Parses one SQS message body. Kinds, by the envelope's `source` / `detail-type` (`version` "0"):
 *
 * - `aws.ec2` / `EC2 Spot Instance Interruption Warning` → `spot_interrupted` (`detail.instance-id`)
 * - `aws.ec2` / `EC2 Capacity Reservation Instance Interruption Warning` →
 *   `capacity_reservation_interrupted` (`detail.instance-id`)
 * - `aws.ec2` / `EC2 Instance Rebalance Recommendation` → `rebalance_recommendation`
 * - `aws.health` / `AWS Health Event` with `detail.service` `EC2` and `detail.eventTypeCategory`
 *   `scheduledChange` → `scheduled_change` (instances from `detail.affectedEntities[].entityValue`);
 *   other services and categories → `no_op`
 * - `aws.ec2` / `EC2 Instance State-change Notification` → `instance_stopped` (`stopping`,
 *   `stopped`) or `instance_terminated` (`shutting-down`, `terminated`); other states → `no_op`
 * - any other envelope, or an empty body → `no_op`
 *
 * Raises {@link MalformedMessageError} when the body is not a JSON object, an envelope field
 * (`version`, `source`, `detail-type`, `id`, `time`) has the wrong type or `time` is not a date,
 * or a known kind lacks the detail fields it needs.
 */
export function parseInterruptionMessage(body: string): InterruptionMessage {
  if (body.trim() === '') return { kind: 'no_op', instanceIds: [] };
  let envelope: unknown;
  try {
    envelope = JSON.parse(body);
  } catch (err) {
    throw new MalformedMessageError(`the body is not JSON: ${(err as Error).message}`);
  }
  if (!isObject(envelope)) throw new MalformedMessageError('the body is not a JSON object');
  for (const field of ['version', 'source', 'detail-type', 'id', 'time'])
    if (envelope[field] !== undefined && typeof envelope[field] !== 'string')
      throw new MalformedMessageError(`${field} must be a string`);
  const time = envelope['time'] as string | undefined;
  const timeMs = time === undefined ? undefined : Date.parse(time);
  if (timeMs !== undefined && Number.isNaN(timeMs))
    throw new MalformedMessageError(`time ${JSON.stringify(time)} is not an RFC 3339 date`);
  const base = {
    ...(timeMs !== undefined ? { timeMs } : {}),
    ...(typeof envelope['id'] === 'string' ? { id: envelope['id'] } : {}),
  };
  const noop: InterruptionMessage = { kind: 'no_op', instanceIds: [], ...base };
  if (envelope['version'] !== '0') return noop;
  const route = `${String(envelope['source'])} / ${String(envelope['detail-type'])}`;
  switch (route) {
    case 'aws.ec2 / EC2 Spot Instance Interruption Warning': {
      const detail = detailOf(envelope, 'spot interruption warning');
      return {
        kind: 'spot_interrupted',
        instanceIds: [instanceIdOf(detail, 'spot interruption warning')],
        ...base,
      };
    }
    case 'aws.ec2 / EC2 Capacity Reservation Instance Interruption Warning': {
      // The detail names the instance only; its reservation is the NodeClaim's label.
      const detail = detailOf(envelope, 'capacity reservation interruption warning');
      return {
        kind: 'capacity_reservation_interrupted',
        instanceIds: [instanceIdOf(detail, 'capacity reservation interruption warning')],
        ...base,
      };
    }
    case 'aws.ec2 / EC2 Instance Rebalance Recommendation': {
      const detail = detailOf(envelope, 'rebalance recommendation');
      return {
        kind: 'rebalance_recommendation',
        instanceIds: [instanceIdOf(detail, 'rebalance recommendation')],
        ...base,
      };
    }
    case 'aws.ec2 / EC2 Instance State-change Notification': {
      const detail = detailOf(envelope, 'instance state-change');
      const id = instanceIdOf(detail, 'instance state-change');
      const state = detail['state'];
      if (typeof state !== 'string')
        throw new MalformedMessageError('instance state-change: detail.state must be a string');
      if (StoppedStates.has(state))
        return { kind: 'instance_stopped', instanceIds: [id], state, ...base };
      if (TerminatedStates.has(state))
        return { kind: 'instance_terminated', instanceIds: [id], state, ...base };
      return noop;
    }
    case 'aws.health / AWS Health Event': {
      const detail = detailOf(envelope, 'AWS Health event');
      if (detail['service'] !== 'EC2' || detail['eventTypeCategory'] !== 'scheduledChange')
        return noop;
      const entities = detail['affectedEntities'];
      if (!Array.isArray(entities))
        throw new MalformedMessageError(
          'AWS Health scheduled change: detail.affectedEntities must be a list',
        );
      const instanceIds = entities.map((e, i) => {
        const value = isObject(e) ? e['entityValue'] : undefined;
        if (typeof value !== 'string' || value === '')
          throw new MalformedMessageError(
            `AWS Health scheduled change: detail.affectedEntities[${i}].entityValue must be a non-empty string`,
          );
        return value;
      });
      return { kind: 'scheduled_change', instanceIds, ...base };
    }
    default:
      return noop;
  }
}
