/**
 * The Events the interruption controller records on a NodeClaim and its Node, with upstream's
 * reasons and messages (`pkg/controllers/interruption/events`).
 */
import type { Node, NodeClaim } from '@karpenter-ts/api';
import type { KubeEvent } from '@karpenter-ts/controllers';
import type { InterruptionMessage } from './messages.js';

interface Notice {
  readonly type: KubeEvent['type'];
  readonly reason: string;
  /** The message on the NodeClaim and on the Node (upstream words them apart for some). */
  readonly nodeClaim: string;
  readonly node: string;
}

const same = (type: KubeEvent['type'], reason: string, message: string): Notice => ({
  type,
  reason,
  nodeClaim: message,
  node: message,
});

/** The notice a message kind gives before any action; undefined for `no_op`. */
function noticeFor(message: InterruptionMessage): Notice | undefined {
  switch (message.kind) {
    case 'spot_interrupted':
      return same('Warning', 'SpotInterrupted', 'Spot interruption warning was triggered');
    case 'capacity_reservation_interrupted':
      return same(
        'Warning',
        'CapacityReservationInterrupted',
        'Capacity reservation interruption warning was triggered',
      );
    case 'rebalance_recommendation':
      return same(
        'Normal',
        'SpotRebalanceRecommendation',
        'Spot rebalance recommendation was triggered',
      );
    case 'scheduled_change':
      return same(
        'Warning',
        'InstanceUnhealthy',
        'An unhealthy warning was triggered for the instance',
      );
    case 'instance_stopped':
      return same('Warning', 'InstanceStopping', 'Instance is stopping');
    case 'instance_terminated':
      return same('Warning', 'InstanceTerminating', 'Instance is terminating');
    default:
      return undefined;
  }
}

/** Upstream's event when an interruption deletes the NodeClaim. */
const TerminatingOnInterruption: Notice = {
  type: 'Warning',
  reason: 'TerminatingOnInterruption',
  nodeClaim: 'Interruption triggered termination for the NodeClaim',
  node: 'Interruption triggered termination for the Node',
};

function eventsOf(notice: Notice, nodeClaim: NodeClaim, node: Node | undefined): KubeEvent[] {
  const out: KubeEvent[] = [
    {
      involved: {
        kind: 'NodeClaim',
        name: nodeClaim.metadata.name ?? '',
        ...(nodeClaim.metadata.uid ? { uid: nodeClaim.metadata.uid } : {}),
      },
      type: notice.type,
      reason: notice.reason,
      message: notice.nodeClaim,
    },
  ];
  if (node?.metadata?.name)
    out.push({
      involved: {
        kind: 'Node',
        name: node.metadata.name,
        ...(node.metadata.uid ? { uid: node.metadata.uid } : {}),
      },
      type: notice.type,
      reason: notice.reason,
      message: notice.node,
    });
  return out;
}

/** The events a message records on the NodeClaim (and its Node, when registered). */
export function messageEvents(
  message: InterruptionMessage,
  nodeClaim: NodeClaim,
  node: Node | undefined,
): KubeEvent[] {
  const notice = noticeFor(message);
  return notice ? eventsOf(notice, nodeClaim, node) : [];
}

/** The events of deleting the NodeClaim on an interruption. */
export function terminatingOnInterruptionEvents(
  nodeClaim: NodeClaim,
  node: Node | undefined,
): KubeEvent[] {
  return eventsOf(TerminatingOnInterruption, nodeClaim, node);
}
