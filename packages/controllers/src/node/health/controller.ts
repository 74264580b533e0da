/**
 * Node repair (upstream `node/health/controller.go`; feature gate
 * `NodeRepair`, off by default): a managed Node whose condition matches one of the cloud
 * provider's repair policies (type and status) for at least the policy's toleration is replaced
 * forcefully: its NodeClaim gets `karpenter.sh/nodeclaim-termination-timestamp` = now (the drain
 * does not wait) and is deleted. Safety first: while more than 20 % (rounded up) of the pool's
 * nodes (of the cluster's, for a NodeClaim without a pool) match a policy, nothing is repaired
 * and the Node gets a `NodeRepairBlocked` event; it is retried every 5 minutes.
 */
import type { Node, NodeClaim } from '@karpenter-ts/api';
import { Annotations, Labels } from '@karpenter-ts/api';
import type { CloudProvider, RepairPolicy } from '@karpenter-ts/cloudprovider';
import { timeMs, type Clock } from '../../clock.js';
import { isNotFound, type KubeClient } from '../../kube/client.js';
import { done, requeueAfter, type ReconcileResult } from '../../reconciler.js';

type NodeCondition = NonNullable<NonNullable<Node['status']>['conditions']>[number];

/** Share of a pool's nodes that may be unhealthy before repair stops (rounded up). */
export const AllowedUnhealthyPercent = 20;
/** Seconds between retries while repair is blocked. */
export const RepairBlockedRetrySeconds = 300;

/** Dependencies of {@link NodeHealth}. */
export interface NodeHealthOptions {
  readonly client: KubeClient;
  readonly cloudProvider: CloudProvider;
  readonly clock: Clock;
  /** Called for each NodeClaim repaired (metric `nodeclaims_unhealthy_disrupted_total`). */
  readonly onRepaired?: (nodeClaim: NodeClaim, condition: string) => void;
}

/** See the module comment. */
export class NodeHealth {
  constructor(private readonly o: NodeHealthOptions) {}

  /** Reconciles the Node named `name`. */
  async reconcile(name: string): Promise<ReconcileResult> {
    const { client, clock, cloudProvider } = this.o;
    const policies = cloudProvider.repairPolicies();
    if (policies.length === 0) return done;
    const node = await client.get('Node', { name });
    if (node === undefined || node.metadata?.deletionTimestamp !== undefined) return done;
    const providerID = node.spec?.providerID;
    if (!providerID) return done;
    const [nodeClaim] = await client.list('NodeClaim', { providerID });
    if (nodeClaim === undefined || nodeClaim.metadata.deletionTimestamp !== undefined) return done;
    const match = unhealthy(node, policies);
    if (match === undefined) return done;
    const since = timeMs(match.condition.lastTransitionTime) ?? clock.now();
    const due = since + match.policy.tolerationSeconds * 1000;
    if (clock.now() < due) return requeueAfter((due - clock.now()) / 1000);

    const pool = nodeClaim.metadata.labels?.[Labels.NodePool];
    const peers = await client.list(
      'Node',
      pool === undefined ? {} : { labels: { [Labels.NodePool]: pool } },
    );
    const count = peers.filter((n) => unhealthy(n, policies) !== undefined).length;
    const threshold = Math.ceil((AllowedUnhealthyPercent * peers.length) / 100);
    if (count > threshold) {
      client.recordEvent({
        involved: { kind: 'Node', name },
        type: 'Warning',
        reason: 'NodeRepairBlocked',
        message: `Cannot repair Node: more than ${AllowedUnhealthyPercent}% of nodes ${pool === undefined ? 'in the cluster' : `in nodepool ${pool}`} are unhealthy (${count} of ${peers.length})`,
      });
      return requeueAfter(RepairBlockedRetrySeconds);
    }
    const ncName = nodeClaim.metadata.name ?? '';
    try {
      await client.patch(
        'NodeClaim',
        { name: ncName },
        {
          metadata: {
            annotations: {
              [Annotations.NodeClaimTerminationTimestamp]: new Date(clock.now()).toISOString(),
            },
          },
        },
      );
      await client.delete('NodeClaim', { name: ncName });
    } catch (err) {
      if (isNotFound(err)) return done;
      throw err;
    }
    client.recordEvent({
      involved: { kind: 'Node', name },
      type: 'Warning',
      reason: 'Disrupted',
      message: `Disrupting Node: Unhealthy/${match.policy.conditionType}=${match.policy.conditionStatus}`,
    });
    this.o.onRepaired?.(nodeClaim, match.policy.conditionType);
    return done;
  }
}

/** The first repair policy the Node's conditions match, with the matching condition. */
function unhealthy(
  node: Node,
  policies: readonly RepairPolicy[],
): { policy: RepairPolicy; condition: NodeCondition } | undefined {
  for (const policy of policies) {
    const condition = node.status?.conditions?.find((c) => c.type === policy.conditionType);
    if (condition !== undefined && condition.status === policy.conditionStatus) {
      return { policy, condition };
    }
  }
  return undefined;
}
