import type { Node, NodeClaim, Pod } from '@karpenter-ts/api';
import { SimCloudProvider, kwokInstanceTypes } from '@karpenter-ts/cloudprovider';
import { describe, expect, it } from 'vitest';
import { OperatorMetrics, meteredCloudProvider } from '../src/index.js';

const labels = {
  'karpenter.sh/nodepool': 'default',
  'topology.kubernetes.io/zone': 'test-zone-a',
  'karpenter.sh/capacity-type': 'spot',
  'kubernetes.io/arch': 'amd64',
  'node.kubernetes.io/instance-type': 'c-4x-amd64-linux',
};

function metricNames(text: string): string[] {
  return [...text.matchAll(/^# TYPE (\S+) (\S+)$/gm)].map((m) => `${m[1]} ${m[2]}`);
}

describe('operator metrics', () => {
  it("exports upstream's metric names and types", async () => {
    const metrics = new OperatorMetrics({ version: '1.2.3', commit: 'abc' });
    const { body, contentType } = await metrics.exposition();
    expect(contentType).toMatch(/^text\/plain/);
    expect(metricNames(body).sort()).toEqual(
      [
        'karpenter_build_info gauge',
        'karpenter_cloudprovider_duration_seconds histogram',
        'karpenter_cloudprovider_errors_total counter',
        'karpenter_cluster_state_node_count gauge',
        'karpenter_cluster_state_synced gauge',
        'karpenter_interruption_deleted_messages_total counter',
        'karpenter_interruption_message_queue_duration_seconds histogram',
        'karpenter_interruption_received_messages_total counter',
        'karpenter_nodeclaims_created_total counter',
        'karpenter_nodeclaims_terminated_total counter',
        'karpenter_nodeclaims_disrupted_total counter',
        'karpenter_nodeclaims_unhealthy_disrupted_total counter',
        'karpenter_nodepools_allowed_disruptions gauge',
        'karpenter_nodes_created_total counter',
        'karpenter_nodes_terminated_total counter',
        'karpenter_pods_state gauge',
        'karpenter_scheduler_scheduling_duration_seconds histogram',
        'karpenter_scheduler_unschedulable_pods_count gauge',
        'karpenter_voluntary_disruption_consolidation_timeouts_total counter',
        'karpenter_voluntary_disruption_decision_evaluation_duration_seconds histogram',
        'karpenter_voluntary_disruption_decisions_by_nodepool_total counter',
        'karpenter_voluntary_disruption_decisions_total counter',
        'karpenter_voluntary_disruption_eligible_nodes gauge',
        'karpenter_voluntary_disruption_failed_validations_total counter',
        'karpenter_voluntary_disruption_queue_failures_total counter',
        'leader_election_master_status gauge',
      ].sort(),
    );
    expect(body).toContain('karpenter_build_info{version="1.2.3",goversion="' + process.version);
  });

  it('leaves out pod state when cluster state observability is disabled', async () => {
    const metrics = new OperatorMetrics({ version: '1', commit: '1', observeState: false });
    expect((await metrics.exposition()).body).not.toContain('karpenter_pods_state');
  });

  it('labels node claim and node counters with nodepool, zone and capacity type', async () => {
    const metrics = new OperatorMetrics({ version: '1', commit: '1' });
    const claim: NodeClaim = {
      apiVersion: 'karpenter.sh/v1',
      kind: 'NodeClaim',
      metadata: {
        name: 'a',
        labels,
        annotations: { 'karpenter.sh/nodeclaim-min-values-relaxed': 'true' },
      },
      spec: { requirements: [], nodeClassRef: { group: 'g', kind: 'k', name: 'n' } },
    };
    const node: Node = { metadata: { name: 'a', labels } };
    metrics.nodeClaimCreated(claim, 'provisioning');
    metrics.nodeClaimTerminated(claim);
    metrics.nodeCreated(node);
    metrics.nodeTerminated(node);
    metrics.nodeCreated({ metadata: { name: 'not-ours' } });
    const { body } = await metrics.exposition();
    expect(body).toContain(
      'karpenter_nodeclaims_created_total{reason="provisioning",nodepool="default",min_values_relaxed="true"} 1',
    );
    expect(body).toContain(
      'karpenter_nodeclaims_terminated_total{nodepool="default",capacity_type="spot",zone="test-zone-a"} 1',
    );
    expect(body).toContain(
      'karpenter_nodes_created_total{nodepool="default",zone="test-zone-a"} 1',
    );
    expect(body).toContain(
      'karpenter_nodes_terminated_total{nodepool="default",zone="test-zone-a"} 1',
    );
  });

  it('counts interruption messages by type, deletions, time on the queue and the node claims they disrupted', async () => {
    const metrics = new OperatorMetrics({ version: '1', commit: '1' });
    const interruption = metrics.interruptionMetrics();
    const claim: NodeClaim = {
      apiVersion: 'karpenter.sh/v1',
      kind: 'NodeClaim',
      metadata: { name: 'a', labels },
      spec: { requirements: [], nodeClassRef: { group: 'g', kind: 'k', name: 'n' } },
    };
    interruption.messageReceived('spot_interrupted');
    interruption.messageReceived('spot_interrupted');
    interruption.messageReceived('malformed');
    interruption.messageDeleted();
    interruption.messageDeleted();
    interruption.messageDeleted();
    interruption.messageQueueDuration(3);
    interruption.nodeClaimDisrupted(claim, 'spot_interrupted');
    const { body } = await metrics.exposition();
    expect(body).toContain(
      'karpenter_interruption_received_messages_total{message_type="spot_interrupted"} 2',
    );
    expect(body).toContain(
      'karpenter_interruption_received_messages_total{message_type="malformed"} 1',
    );
    expect(body).toContain('karpenter_interruption_deleted_messages_total 3');
    expect(body).toContain(
      'karpenter_interruption_message_queue_duration_seconds_bucket{le="5"} 1',
    );
    expect(body).toContain(
      'karpenter_interruption_message_queue_duration_seconds_bucket{le="2.5"} 0',
    );
    expect(body).toContain(
      'karpenter_nodeclaims_disrupted_total{reason="spot_interrupted",nodepool="default",capacity_type="spot",consolidation_policy="",termination_mode="graceful"} 1',
    );
  });

  it('reads cluster state and pod state from the source at scrape time', async () => {
    const metrics = new OperatorMetrics({ version: '1', commit: '1' });
    const pod: Pod = {
      metadata: {
        name: 'web-1',
        namespace: 'shop',
        ownerReferences: [{ apiVersion: 'apps/v1', kind: 'ReplicaSet', name: 'web', uid: 'u' }],
      },
      spec: { nodeName: 'a', containers: [] },
      status: { phase: 'Running' },
    };
    let nodeCount = 3;
    metrics.setSource({
      clusterStateSynced: async () => true,
      clusterStateNodeCount: () => nodeCount,
      pods: async () => [pod],
      nodes: async () => [{ metadata: { name: 'a', labels } }],
    });
    let { body } = await metrics.exposition();
    expect(body).toContain('karpenter_cluster_state_synced 1');
    expect(body).toContain('karpenter_cluster_state_node_count 3');
    expect(body).toContain(
      'karpenter_pods_state{name="web-1",namespace="shop",owner="web",node="a",nodepool="default",zone="test-zone-a",arch="amd64",capacity_type="spot",instance_type="c-4x-amd64-linux",phase="Running"} 1',
    );
    nodeCount = 0;
    ({ body } = await metrics.exposition());
    expect(body).toContain('karpenter_cluster_state_node_count 0');
  });
});

describe('metered cloud provider', () => {
  it('times calls and counts errors by controller, method, provider and error class', async () => {
    const metrics = new OperatorMetrics({ version: '1', commit: '1' });
    const cloud = meteredCloudProvider(
      new SimCloudProvider({ instanceTypes: kwokInstanceTypes() }),
      metrics,
      'node.termination',
    );
    await cloud.list();
    await expect(
      cloud.delete({
        apiVersion: 'karpenter.sh/v1',
        kind: 'NodeClaim',
        metadata: { name: 'gone' },
        spec: { requirements: [], nodeClassRef: { group: 'g', kind: 'k', name: 'n' } },
      }),
    ).rejects.toThrow(/not found/);
    const { body } = await metrics.exposition();
    expect(body).toContain(
      'karpenter_cloudprovider_duration_seconds_count{controller="node.termination",method="List",provider="sim"} 1',
    );
    expect(body).toContain(
      'karpenter_cloudprovider_errors_total{controller="node.termination",method="Delete",provider="sim",error="NodeClaimNotFoundError"} 1',
    );
    expect(cloud.name).toBe('sim');
  });
});
