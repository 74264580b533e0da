/**
 * Prometheus metrics under upstream's names (prefix `karpenter_`), for
 * what this operator does today: node claims and nodes created and terminated, pod state,
 * scheduling duration and unschedulable pods, cluster state sync and size, cloud provider
 * call durations and errors, and voluntary disruption (decisions, eligible nodes, allowed
 * disruptions per NodePool, disrupted node claims, failed validations, queue failures), and the
 * AWS interruption queue (received and deleted messages, time on the queue). Label names follow
 * upstream so dashboards carry over.
 *
 * Differences from upstream: `karpenter_build_info`'s `goversion` label holds the Node.js
 * version; created/terminated counters are fed from the leader's watch events (upstream
 * increments them where the controller acts), so they count what the API server saw.
 */
import type { Node, NodeClaim, Pod } from '@karpenter-ts/api';
import { consolidationType, decision, type Command } from '@karpenter-ts/controllers';
import type { InterruptionMetrics } from '@karpenter-ts/provider-aws';
import { Counter, Gauge, Histogram, Registry } from 'prom-client';

/** Upstream's duration buckets for controller and cloud-provider latencies, seconds. */
export const DurationBuckets: readonly number[] = [
  0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 15, 20, 25, 30, 40, 50, 60, 120, 300,
];

/** Where the state gauges read from at scrape time (caches, never the API server). */
export interface MetricsSource {
  /** Whether cluster state has caught up with the API (`karpenter_cluster_state_synced`). */
  clusterStateSynced(): Promise<boolean>;
  /** Nodes plus not-yet-registered node claims in cluster state. */
  clusterStateNodeCount(): number;
  pods(): Promise<Pod[]>;
  nodes(): Promise<Node[]>;
}

const NodePoolLabel = 'karpenter.sh/nodepool';
const ZoneLabel = 'topology.kubernetes.io/zone';
const CapacityTypeLabel = 'karpenter.sh/capacity-type';
const MinValuesRelaxedAnnotation = 'karpenter.sh/nodeclaim-min-values-relaxed';

/** The operator's metrics in their own registry (nothing global, so tests can make many). */
export class OperatorMetrics {
  readonly registry = new Registry();
  readonly buildInfo: Gauge<'version' | 'goversion' | 'goarch' | 'commit'>;
  readonly nodeClaimsCreated: Counter<'reason' | 'nodepool' | 'min_values_relaxed'>;
  readonly nodeClaimsTerminated: Counter<'nodepool' | 'capacity_type' | 'zone'>;
  readonly nodesCreated: Counter<'nodepool' | 'zone'>;
  readonly nodesTerminated: Counter<'nodepool' | 'zone'>;
  readonly schedulingDuration: Histogram<'controller'>;
  readonly unschedulablePods: Gauge<'controller'>;
  readonly cloudProviderDuration: Histogram<'controller' | 'method' | 'provider'>;
  readonly cloudProviderErrors: Counter<'controller' | 'method' | 'provider' | 'error'>;
  readonly disruptionEvaluationDuration: Histogram<'method' | 'reason' | 'consolidation_type'>;
  readonly disruptionDecisions: Counter<'decision' | 'reason' | 'consolidation_type'>;
  readonly disruptionDecisionsByNodePool: Counter<
    'decision' | 'reason' | 'consolidation_type' | 'nodepool'
  >;
  readonly disruptionEligibleNodes: Gauge<'reason'>;
  readonly allowedDisruptions: Gauge<'nodepool' | 'reason'>;
  readonly nodeClaimsDisrupted: Counter<
    'reason' | 'nodepool' | 'capacity_type' | 'consolidation_policy' | 'termination_mode'
  >;
  readonly failedValidations: Counter<'consolidation_type'>;
  readonly queueFailures: Counter<'decision' | 'reason' | 'consolidation_type'>;
  readonly consolidationTimeouts: Counter<'consolidation_type'>;
  readonly nodeClaimsUnhealthyDisrupted: Counter<
    'condition' | 'nodepool' | 'capacity_type' | 'image_id'
  >;
  /**
   * AWS interruption queue messages received, by upstream's `message_type` (`spot_interrupted`,
   * `rebalance_recommendation`, `scheduled_change`, `instance_stopped`, `instance_terminated`,
   * `no_op`; `malformed` for a body that did not parse, which upstream does not count).
   */
  readonly interruptionReceivedMessages: Counter<'message_type'>;
  readonly interruptionDeletedMessages: Counter;
  /** Seconds from an interruption event's time until the controller handled it. */
  readonly interruptionMessageQueueDuration: Histogram;
  /** client-go's leader election gauge: 1 while this replica holds the Lease `name`, else 0. */
  readonly leaderElectionStatus: Gauge<'name'>;
  #source: MetricsSource | undefined;

  /**
   * Registers every metric. `observeState` false (upstream `--disable-cluster-state-observability`)
   * leaves out `karpenter_pods_state` and the node-derived gauges.
   */
  constructor(options: { version: string; commit: string; observeState?: boolean }) {
    const registers = [this.registry];
    this.buildInfo = new Gauge({
      name: 'karpenter_build_info',
      help: 'A metric with a constant 1 value labeled by version, runtime version, arch and commit.',
      labelNames: ['version', 'goversion', 'goarch', 'commit'],
      registers,
    });
    this.buildInfo.set(
      {
        version: options.version,
        goversion: process.version,
        goarch: process.arch,
        commit: options.commit,
      },
      1,
    );
    this.nodeClaimsCreated = new Counter({
      name: 'karpenter_nodeclaims_created_total',
      help: 'Number of nodeclaims created in total by Karpenter. Labeled by reason and nodepool.',
      labelNames: ['reason', 'nodepool', 'min_values_relaxed'],
      registers,
    });
    this.nodeClaimsTerminated = new Counter({
      name: 'karpenter_nodeclaims_terminated_total',
      help: 'Number of nodeclaims terminated in total by Karpenter. Labeled by nodepool, capacity type and zone.',
      labelNames: ['nodepool', 'capacity_type', 'zone'],
      registers,
    });
    this.nodesCreated = new Counter({
      name: 'karpenter_nodes_created_total',
      help: 'Number of nodes created in total by Karpenter. Labeled by nodepool and zone.',
      labelNames: ['nodepool', 'zone'],
      registers,
    });
    this.nodesTerminated = new Counter({
      name: 'karpenter_nodes_terminated_total',
      help: 'Number of nodes terminated in total by Karpenter. Labeled by nodepool and zone.',
      labelNames: ['nodepool', 'zone'],
      registers,
    });
    this.schedulingDuration = new Histogram({
      name: 'karpenter_scheduler_scheduling_duration_seconds',
      help: 'Duration of scheduling simulations used for deprovisioning and provisioning in seconds.',
      labelNames: ['controller'],
      buckets: [...DurationBuckets],
      registers,
    });
    this.unschedulablePods = new Gauge({
      name: 'karpenter_scheduler_unschedulable_pods_count',
      help: 'The number of unschedulable Pods in the last scheduling simulation.',
      labelNames: ['controller'],
      registers,
    });
    this.cloudProviderDuration = new Histogram({
      name: 'karpenter_cloudprovider_duration_seconds',
      help: 'Duration of cloud provider method calls. Labeled by the controller, method name and provider.',
      labelNames: ['controller', 'method', 'provider'],
      buckets: [...DurationBuckets],
      registers,
    });
    this.cloudProviderErrors = new Counter({
      name: 'karpenter_cloudprovider_errors_total',
      help: 'Total number of errors returned from CloudProvider calls.',
      labelNames: ['controller', 'method', 'provider', 'error'],
      registers,
    });
    this.disruptionEvaluationDuration = new Histogram({
      name: 'karpenter_voluntary_disruption_decision_evaluation_duration_seconds',
      help: 'Disruption decision evaluation duration in seconds. Labeled by method and consolidation type.',
      labelNames: ['method', 'reason', 'consolidation_type'],
      buckets: [...DurationBuckets],
      registers,
    });
    this.disruptionDecisions = new Counter({
      name: 'karpenter_voluntary_disruption_decisions_total',
      help: 'Number of disruption decisions performed. Labeled by disruption decision, reason, and consolidation type.',
      labelNames: ['decision', 'reason', 'consolidation_type'],
      registers,
    });
    this.disruptionDecisionsByNodePool = new Counter({
      name: 'karpenter_voluntary_disruption_decisions_by_nodepool_total',
      help: 'Number of disruption decisions performed per nodepool. Labeled by decision, reason, consolidation type and nodepool.',
      labelNames: ['decision', 'reason', 'consolidation_type', 'nodepool'],
      registers,
    });
    this.disruptionEligibleNodes = new Gauge({
      name: 'karpenter_voluntary_disruption_eligible_nodes',
      help: 'Number of nodes eligible for disruption by Karpenter. Labeled by disruption reason.',
      labelNames: ['reason'],
      registers,
    });
    this.allowedDisruptions = new Gauge({
      name: 'karpenter_nodepools_allowed_disruptions',
      help: 'The number of nodes for a given NodePool that can be concurrently disrupting at a point in time. Labeled by NodePool and reason.',
      labelNames: ['nodepool', 'reason'],
      registers,
    });
    this.nodeClaimsDisrupted = new Counter({
      name: 'karpenter_nodeclaims_disrupted_total',
      help: 'Number of nodeclaims disrupted in total by Karpenter. Labeled by reason, nodepool, capacity type, consolidation policy and termination mode.',
      labelNames: [
        'reason',
        'nodepool',
        'capacity_type',
        'consolidation_policy',
        'termination_mode',
      ],
      registers,
    });
    this.failedValidations = new Counter({
      name: 'karpenter_voluntary_disruption_failed_validations_total',
      help: 'Number of candidates that were selected for disruption but failed validation. Labeled by consolidation type.',
      labelNames: ['consolidation_type'],
      registers,
    });
    this.queueFailures = new Counter({
      name: 'karpenter_voluntary_disruption_queue_failures_total',
      help: 'The number of times that an enqueued disruption decision failed. Labeled by disruption decision, reason and consolidation type.',
      labelNames: ['decision', 'reason', 'consolidation_type'],
      registers,
    });
    this.consolidationTimeouts = new Counter({
      name: 'karpenter_voluntary_disruption_consolidation_timeouts_total',
      help: 'Number of times the consolidation algorithm has reached a timeout. Labeled by consolidation type. Always 0 here: consolidation runs without upstream time limits.',
      labelNames: ['consolidation_type'],
      registers,
    });
    this.nodeClaimsUnhealthyDisrupted = new Counter({
      name: 'karpenter_nodeclaims_unhealthy_disrupted_total',
      help: 'Number of unhealthy nodeclaims disrupted in total by Karpenter. Labeled by condition on the node was disrupted, the owning nodepool, capacity type and image ID.',
      labelNames: ['condition', 'nodepool', 'capacity_type', 'image_id'],
      registers,
    });
    this.interruptionReceivedMessages = new Counter({
      name: 'karpenter_interruption_received_messages_total',
      help: 'Count of messages received from the SQS queue. Broken down by message type and whether the message was actionable.',
      labelNames: ['message_type'],
      registers,
    });
    this.interruptionDeletedMessages = new Counter({
      name: 'karpenter_interruption_deleted_messages_total',
      help: 'Count of messages deleted from the SQS queue.',
      registers,
    });
    this.interruptionMessageQueueDuration = new Histogram({
      name: 'karpenter_interruption_message_queue_duration_seconds',
      help: 'Amount of time an interruption message is on the queue before it is processed by karpenter.',
      buckets: [...DurationBuckets],
      registers,
    });
    this.leaderElectionStatus = new Gauge({
      name: 'leader_election_master_status',
      help: '1 while this replica holds the leader election Lease named by the label, 0 while it waits.',
      labelNames: ['name'],
      registers,
    });
    // The state gauges read the source at scrape time (inside collect, `this` is the gauge).
    const sourceOf = (): MetricsSource | undefined => this.#source;
    new Gauge({
      name: 'karpenter_cluster_state_synced',
      help: 'Returns 1 if cluster state is synced and 0 otherwise.',
      registers,
      async collect() {
        const source = sourceOf();
        if (source) this.set((await source.clusterStateSynced()) ? 1 : 0);
      },
    });
    new Gauge({
      name: 'karpenter_cluster_state_node_count',
      help: 'Current count of nodes in cluster state.',
      registers,
      collect() {
        const source = sourceOf();
        if (source) this.set(source.clusterStateNodeCount());
      },
    });
    if (options.observeState !== false) {
      const podLabels = [
        'name',
        'namespace',
        'owner',
        'node',
        'nodepool',
        'zone',
        'arch',
        'capacity_type',
        'instance_type',
        'phase',
      ] as const;
      new Gauge({
        name: 'karpenter_pods_state',
        help: 'Pod state is the current state of pods. This metric can be used several ways as it is labeled by the pod name, namespace, owner, node, nodepool name, zone, architecture, capacity type, instance type and pod phase.',
        labelNames: [...podLabels],
        registers,
        async collect() {
          const source = sourceOf();
          if (!source) return;
          this.reset();
          const nodes = new Map((await source.nodes()).map((n) => [n.metadata?.name ?? '', n]));
          for (const pod of await source.pods()) {
            const nodeName = pod.spec?.nodeName ?? '';
            const labels = nodes.get(nodeName)?.metadata?.labels ?? {};
            this.set(
              {
                name: pod.metadata?.name ?? '',
                namespace: pod.metadata?.namespace ?? '',
                owner: pod.metadata?.ownerReferences?.[0]?.name ?? '',
                node: nodeName,
                nodepool: labels[NodePoolLabel] ?? '',
                zone: labels[ZoneLabel] ?? '',
                arch: labels['kubernetes.io/arch'] ?? '',
                capacity_type: labels[CapacityTypeLabel] ?? '',
                instance_type: labels['node.kubernetes.io/instance-type'] ?? '',
                phase: pod.status?.phase ?? '',
              },
              1,
            );
          }
        },
      });
    }
  }

  /** Sets where the state gauges read from (the leader's caches). */
  setSource(source: MetricsSource): void {
    this.#source = source;
  }

  /** Counts a NodeClaim the provisioner created (`reason` is upstream's, e.g. `provisioning`). */
  nodeClaimCreated(nodeClaim: NodeClaim, reason: string): void {
    this.nodeClaimsCreated.inc({
      reason,
      nodepool: nodeClaim.metadata.labels?.[NodePoolLabel] ?? '',
      min_values_relaxed:
        nodeClaim.metadata.annotations?.[MinValuesRelaxedAnnotation] === 'true' ? 'true' : 'false',
    });
  }

  /** Observes how long a disruption method evaluated, seconds. */
  disruptionEvaluated(method: string, reason: string, seconds: number): void {
    const type = consolidationType(method as Command['method']);
    this.disruptionEvaluationDuration.observe(
      { method, reason, consolidation_type: type },
      seconds,
    );
  }

  /** Counts a disruption command that started, overall and per NodePool of its candidates. */
  disruptionDecision(command: Command): void {
    const labels = {
      decision: decision(command),
      reason: command.reason,
      consolidation_type: consolidationType(command.method),
    };
    this.disruptionDecisions.inc(labels);
    for (const pool of new Set(command.candidates.map((c) => c.nodePoolName))) {
      this.disruptionDecisionsByNodePool.inc({ ...labels, nodepool: pool });
    }
  }

  /** Counts a NodeClaim deleted by disruption or expiration. */
  nodeClaimDisrupted(
    nodeClaim: NodeClaim,
    reason: string,
    terminationMode: 'graceful' | 'eventual' | 'forceful',
    consolidationPolicy = '',
  ): void {
    const labels = nodeClaim.metadata.labels ?? {};
    this.nodeClaimsDisrupted.inc({
      reason,
      nodepool: labels[NodePoolLabel] ?? '',
      capacity_type: labels[CapacityTypeLabel] ?? '',
      consolidation_policy: consolidationPolicy,
      termination_mode: terminationMode,
    });
  }

  /** Counts a NodeClaim node repair replaced, by the node condition that made it unhealthy. */
  nodeClaimUnhealthyDisrupted(nodeClaim: NodeClaim, condition: string): void {
    const labels = nodeClaim.metadata.labels ?? {};
    this.nodeClaimsUnhealthyDisrupted.inc({
      condition,
      nodepool: labels[NodePoolLabel] ?? '',
      capacity_type: labels[CapacityTypeLabel] ?? '',
      image_id: nodeClaim.status?.imageID ?? '',
    });
  }

  /**
   * The interruption controller's metrics: its counts, and a NodeClaim it deleted as disrupted
   * with the message kind as the reason (upstream), `graceful` unless the NodeClaim sets a
   * termination grace period (`eventual`).
   */
  interruptionMetrics(): InterruptionMetrics {
    return {
      messageReceived: (type) => this.interruptionReceivedMessages.inc({ message_type: type }),
      messageDeleted: () => this.interruptionDeletedMessages.inc(),
      messageQueueDuration: (seconds) => this.interruptionMessageQueueDuration.observe(seconds),
      nodeClaimDisrupted: (nodeClaim, kind) =>
        this.nodeClaimDisrupted(
          nodeClaim,
          kind,
          nodeClaim.spec.terminationGracePeriod !== undefined ? 'eventual' : 'graceful',
        ),
    };
  }

  /** Counts a NodeClaim that went away (its finalizer was removed). */
  nodeClaimTerminated(nodeClaim: NodeClaim): void {
    const labels = nodeClaim.metadata.labels ?? {};
    this.nodeClaimsTerminated.inc({
      nodepool: labels[NodePoolLabel] ?? '',
      capacity_type: labels[CapacityTypeLabel] ?? '',
      zone: labels[ZoneLabel] ?? '',
    });
  }

  /** Counts a Karpenter-managed Node that registered (one with a NodePool label). */
  nodeCreated(node: Node): void {
    const labels = node.metadata?.labels ?? {};
    if (labels[NodePoolLabel] === undefined) return;
    this.nodesCreated.inc({ nodepool: labels[NodePoolLabel], zone: labels[ZoneLabel] ?? '' });
  }

  /** Counts a Karpenter-managed Node that went away. */
  nodeTerminated(node: Node): void {
    const labels = node.metadata?.labels ?? {};
    if (labels[NodePoolLabel] === undefined) return;
    this.nodesTerminated.inc({ nodepool: labels[NodePoolLabel], zone: labels[ZoneLabel] ?? '' });
  }

  /** The exposition text and its content type, for `/metrics`. */
  async exposition(): Promise<{ contentType: string; body: string }> {
    return { contentType: this.registry.contentType, body: await this.registry.metrics() };
  }
}
