/**
 * Initialization (upstream `nodeclaim/lifecycle/initialization.go`, behavior 19): a registered
 * NodeClaim is Initialized once its Node is `Ready=True`, none of its startup taints and none of
 * the known ephemeral taints remain, and every extended resource the NodeClaim requested is
 * reported in the Node's allocatable. Then the Node gets `karpenter.sh/initialized=true` and the
 * NodeClaim `Initialized=True`; until then `Initialized=Unknown` with the first unmet reason.
 */
import type { Node, NodeClaim } from '@karpenter-ts/api';
import { isKnownEphemeralTaint, Labels, NodeClaimConditions } from '@karpenter-ts/api';
import { resourceListFromQuantities } from '@karpenter-ts/scheduling';
import { isTrue, setCondition } from '../../conditions.js';
import { sameTaint } from '../../state/state-node.js';
import type { LifecycleContext, StepResult } from './context.js';
import { stepDone } from './context.js';

/** Resources every kubelet reports; only the others ("extended") are checked. */
const STANDARD_RESOURCES: ReadonlySet<string> = new Set([
  'cpu',
  'memory',
  'pods',
  'ephemeral-storage',
]);

/** See the module comment. */
export class Initialization {
  constructor(private readonly ctx: LifecycleContext) {}

  /** Initializes `nodeClaim` (status mutated in place); labels the Node itself. */
  async reconcile(nodeClaim: NodeClaim): Promise<StepResult> {
    if (!isTrue(nodeClaim, NodeClaimConditions.Registered)) return stepDone;
    if (isTrue(nodeClaim, NodeClaimConditions.Initialized)) return stepDone;
    const { client, clock } = this.ctx;
    const node = await client.get('Node', { name: nodeClaim.status?.nodeName ?? '' });
    const unmet =
      node === undefined
        ? { reason: 'NodeNotFound', message: 'Node not found' }
        : whyNotInitialized(node, nodeClaim);
    if (unmet !== undefined) {
      setCondition(
        nodeClaim,
        { type: NodeClaimConditions.Initialized, status: 'Unknown', ...unmet },
        clock.now(),
      );
      return stepDone;
    }
    // A merge patch: the label must not clobber what the kubelet or others write meanwhile.
    await client.patch(
      'Node',
      { name: node?.metadata?.name ?? '' },
      {
        metadata: { labels: { [Labels.Initialized]: 'true' } },
      },
    );
    setCondition(nodeClaim, { type: NodeClaimConditions.Initialized, status: 'True' }, clock.now());
    return stepDone;
  }
}

/** The first unmet initialization requirement as `{reason, message}`, or undefined when all hold. */
export function whyNotInitialized(
  node: Node,
  nodeClaim: NodeClaim,
): { reason: string; message: string } | undefined {
  const ready = node.status?.conditions?.find((c) => c.type === 'Ready');
  if (ready?.status !== 'True') {
    return { reason: 'NodeNotReady', message: 'Node status is NotReady' };
  }
  const taints = node.spec?.taints ?? [];
  const startup = (nodeClaim.spec.startupTaints ?? []).find((s) =>
    taints.some((t) => sameTaint(s, t)),
  );
  if (startup !== undefined) {
    return {
      reason: 'StartupTaintsExist',
      message: `StartupTaint "${startup.key}:${startup.effect}" still exists`,
    };
  }
  const ephemeral = taints.find(isKnownEphemeralTaint);
  if (ephemeral !== undefined) {
    return {
      reason: 'KnownEphemeralTaintsExist',
      message: `KnownEphemeralTaint "${ephemeral.key}:${ephemeral.effect}" still exists`,
    };
  }
  const requests = resourceListFromQuantities(nodeClaim.spec.resources?.requests ?? {});
  const allocatable = resourceListFromQuantities(node.status?.allocatable ?? {});
  for (const [name, quantity] of Object.entries(requests)) {
    if (STANDARD_RESOURCES.has(name) || quantity === 0) continue;
    if ((allocatable[name] ?? 0) === 0) {
      return {
        reason: 'ResourceNotRegistered',
        message: `Resource "${name}" was requested but not registered`,
      };
    }
  }
  return undefined;
}
