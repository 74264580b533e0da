/**
 * The Cluster Autoscaler baseline: a model of upstream cluster-autoscaler with its published
 * defaults, run by the engine on the same cluster, scenario, catalog, prices and node start
 * delays as Karpenter, as a comparator (it decides nothing for Karpenter). It reuses the
 * cluster stand-ins of @karpenter-ts/controllers: the kube-scheduler stand-in binds pods and
 * marks the rest Unschedulable, the kubelet stand-in registers a launched machine's Node after
 * the cloud's start delays, the ReplicaSet stand-in keeps the workloads' pods.
 *
 * Every 10 s (the scan interval) one loop:
 * 0. **unregistered nodes**: a machine launched 15 minutes ago (`--max-node-provision-time`)
 *    whose Node has not registered is deleted, and its group backed off as after a failed
 *    scale-up (counted as a failed launch).
 * 1. **scale-up**: the Unschedulable pods that would not fit on the nodes still starting are
 *    packed onto template nodes of each node group not backed off and below its maximum size
 *    (the binpacking estimator); the expander takes one option and that group grows by its
 *    node count (one group per loop, as CA without balancing). A launch the cloud refuses
 *    (insufficient capacity) backs the group off for 5 minutes, doubling up to 30.
 * 2. **scale-down**, unless a scale-up happened in the last 10 minutes (or this loop), or a
 *    scale-down failed in the last 3: nodes unneeded (see scale-down.ts; Ready nodes and unready
 *    ones alike) are remembered from the loop they became so; one unneeded for 10 minutes (20
 *    while it is unready, `--scale-down-unready-time`) is removed: empty ones up to 10 at once, a
 *    non-empty one at a time, drained through the Eviction API (PDBs honoured; after 2 minutes of
 *    refused evictions the scale-down fails and the node stays), then its machine is deleted.
 *
 * Nodes of a node group are recorded as NodeClaims (the simulator's record of a machine, which
 * the kubelet stand-in and the scenario's spot interruptions and node failures act on) with a
 * finalizer: a spot interruption deletes the record, and the model drains the node as a node
 * termination handler would, until the cloud reclaims the machine.
 */
import type { Node, NodeClaim, Pod, PodDisruptionBudget } from '@karpenter-ts/api';
import { Taints } from '@karpenter-ts/api';
import { InsufficientCapacityError, NodeClaimNotFoundError } from '@karpenter-ts/cloudprovider';
import {
  isActive,
  isDaemonSetPod,
  SimKubelet,
  SimKubeScheduler,
  SimReplicaSets,
  timeMs,
} from '@karpenter-ts/controllers';
import { resourceListFromQuantities, type ExistingNodeInput } from '@karpenter-ts/scheduling';
import { SeededRandom } from '../seeded-random.js';
import type { Autoscaler, AutoscalerContext } from '../engine/autoscaler.js';
import { totalStartupSeconds } from '../engine/node-startup.js';
import {
  INITIAL_NODE_GROUP_BACKOFF_SECONDS,
  MACHINE_FINALIZER,
  MAX_DRAIN_PARALLELISM,
  MAX_EMPTY_BULK_DELETE,
  MAX_NODE_GROUP_BACKOFF_SECONDS,
  MAX_NODE_PROVISION_SECONDS,
  MAX_POD_EVICTION_SECONDS,
  NODE_GROUP_LABEL,
  SCALE_DOWN_DELAY_AFTER_ADD_SECONDS,
  SCALE_DOWN_DELAY_AFTER_FAILURE_SECONDS,
  SCALE_DOWN_UNNEEDED_SECONDS,
  SCALE_DOWN_UNREADY_SECONDS,
  SCAN_INTERVAL_SECONDS,
  TO_BE_DELETED_TAINT,
} from './defaults.js';
import { estimate, podKey, podsFittingOn, type ScaleUpOption } from './estimator.js';
import { expand, type Expander } from './expanders.js';
import { nodeGroups, type NodeGroup, type NodeGroupSpec } from './node-groups.js';
import { neededReason } from './scale-down.js';
import { templateNodes } from './template-node.js';

/** Settings of the baseline (the scenario's `clusterAutoscaler`). */
export interface ClusterAutoscalerSettings {
  readonly expander: Expander;
  /** Node groups as given; undefined: derived from the NodePools. */
  readonly nodeGroups?: readonly NodeGroupSpec[];
}

/** A node being removed: since when, and whether it held pods to move. */
interface Removal {
  readonly startedMs: number;
  readonly empty: boolean;
  readonly reason: 'Empty' | 'Underutilized' | 'Unready';
}

/** Builds the Cluster Autoscaler model for a run. */
export function clusterAutoscaler(
  settings: ClusterAutoscalerSettings,
): (ctx: AutoscalerContext) => Autoscaler {
  return (ctx) => new ClusterAutoscalerModel(ctx, settings);
}

class ClusterAutoscalerModel implements Autoscaler {
  readonly name = 'cluster-autoscaler';
  readonly replicaSets: SimReplicaSets;
  readonly #ctx: AutoscalerContext;
  readonly #settings: ClusterAutoscalerSettings;
  readonly #kubeScheduler: SimKubeScheduler;
  readonly #kubelet: SimKubelet;
  readonly #random: SeededRandom;
  #groups: NodeGroup[] = [];
  #nextScanMs = 0;
  #writesAtScan = -1;
  #stepWroteNothing = false;
  /** Unschedulable pods the last loop saw (a loop with some changes its own state: backoffs). */
  #pendingAtScan = 0;
  #lastScaleUpMs = -Infinity;
  #lastScaleDownFailureMs = -Infinity;
  #machines = 0;
  /** Node name → clock ms it became unneeded. */
  readonly #unneededSince = new Map<string, number>();
  /** Unneeded nodes that were not Ready at the last loop (they wait the unready time). */
  readonly #unneededUnready = new Set<string>();
  /** Node name → removal in progress. */
  readonly #removals = new Map<string, Removal>();
  /** Group name → backoff: until when, and the length of the last one (seconds). */
  readonly #backoff = new Map<string, { untilMs: number; seconds: number }>();

  constructor(ctx: AutoscalerContext, settings: ClusterAutoscalerSettings) {
    this.#ctx = ctx;
    this.#settings = settings;
    const { client, clock, nodeStartup } = ctx.cluster;
    this.replicaSets = new SimReplicaSets(client);
    this.#kubeScheduler = new SimKubeScheduler(client, ctx.solver);
    this.#kubelet = new SimKubelet({
      client,
      clock,
      registrationDelaySeconds: totalStartupSeconds(nodeStartup),
    });
    this.#random = new SeededRandom(ctx.seed, 'cluster-autoscaler/expander');
  }

  /** The node groups of the run (after {@link start}). */
  get groups(): readonly NodeGroup[] {
    return this.#groups;
  }

  async start(): Promise<void> {
    const { client, cloud } = this.#ctx.cluster;
    const pools = client.view('NodePool');
    const types = new Map<string, Awaited<ReturnType<typeof cloud.getInstanceTypes>>>();
    for (const p of pools) types.set(p.metadata.name ?? '', await cloud.getInstanceTypes(p));
    this.#groups = nodeGroups(
      pools,
      (p) => types.get(p.metadata.name ?? '') ?? [],
      this.#settings.nodeGroups,
    );
    this.#nextScanMs = this.#ctx.cluster.clock.now();
    await this.#refresh();
  }

  /** Re-reads the machine records and Nodes the synchronous questions (busy, timers) look at. */
  async #refresh(): Promise<void> {
    const { client } = this.#ctx.cluster;
    this.#claims = client
      .view('NodeClaim')
      .filter((c) => c.metadata.labels?.[NODE_GROUP_LABEL] !== undefined);
    this.#nodes = new Set(client.view('Node').map((n) => n.metadata?.name ?? ''));
  }

  stop(): void {}

  async step(): Promise<void> {
    const { clock, client } = this.#ctx.cluster;
    const writesBefore = client.writes;
    await this.replicaSets.reconcile();
    await this.#kubeScheduler.reconcile();
    await this.#kubelet.reconcile();
    await this.#registerNodes();
    await this.#handleDeletedMachines();
    await this.#continueRemovals();
    if (clock.now() >= this.#nextScanMs) {
      this.#writesAtScan = this.#ctx.cluster.client.writes;
      await this.#refresh();
      await this.#loop();
      this.#nextScanMs = clock.now() + SCAN_INTERVAL_SECONDS * 1000;
    }
    await this.#refresh();
    this.#stepWroteNothing = client.writes === writesBefore;
    clock.advance(1);
  }

  busy(): boolean {
    return this.#removals.size > 0 || this.#startingMachines().length > 0;
  }

  nextDueMs(coalesce: boolean): number | undefined {
    const registration = this.#registrationDue();
    // Quiet: the last tick wrote nothing (so the other stand-ins have nothing new to react to),
    // nothing was written since, and a loop saw this state with no pod to scale up for.
    const quiet =
      coalesce &&
      this.#stepWroteNothing &&
      this.#pendingAtScan === 0 &&
      this.#ctx.cluster.client.writes === this.#writesAtScan &&
      !this.busy();
    if (!quiet) return Math.min(this.#nextScanMs, registration);
    // Quiet: a loop over an unchanged cluster finds what the last one found, until a node's
    // unneeded time, the delay after a scale-up or failure, or a backoff runs out.
    let next = registration;
    for (const [name, since] of this.#unneededSince) {
      next = Math.min(
        next,
        Math.max(
          since + unneededSeconds(this.#unneededUnready.has(name)) * 1000,
          this.#lastScaleUpMs + SCALE_DOWN_DELAY_AFTER_ADD_SECONDS * 1000,
          this.#lastScaleDownFailureMs + SCALE_DOWN_DELAY_AFTER_FAILURE_SECONDS * 1000,
          this.#nextScanMs,
        ),
      );
    }
    for (const b of this.#backoff.values())
      if (b.untilMs > this.#ctx.cluster.clock.now())
        next = Math.min(next, Math.max(b.untilMs, this.#nextScanMs));
    return Number.isFinite(next) ? next : undefined;
  }

  /** One autoscaler loop (see the module comment). */
  async #loop(): Promise<void> {
    await this.#removeLongUnregistered();
    const scaledUp = await this.#scaleUp();
    await this.#scaleDown(scaledUp);
  }

  // ---- scale-up ------------------------------------------------------------------------------

  async #scaleUp(): Promise<boolean> {
    const { client, clock } = this.#ctx.cluster;
    const pods = client.view('Pod');
    let pending = pods.filter(
      (p) =>
        !p.spec?.nodeName &&
        isActive(p) &&
        !isDaemonSetPod(p) &&
        p.status?.conditions?.some(
          (c) => c.type === 'PodScheduled' && c.status === 'False' && c.reason === 'Unschedulable',
        ),
    );
    this.#pendingAtScan = pending.length;
    if (pending.length === 0) return false;
    const daemonSets = client.view('DaemonSet');
    // Pods that will fit on nodes still starting wait for them (CA's upcoming nodes).
    const upcoming: ExistingNodeInput[] = [];
    for (const claim of this.#startingMachines()) {
      const group = this.#groupOf(claim);
      if (group !== undefined)
        upcoming.push(...templateNodes(group, daemonSets, 1, `upcoming-${claim.metadata.name}`));
    }
    const waiting = podsFittingOn(upcoming, pending, this.#ctx.solver);
    pending = pending.filter((p) => !waiting.has(podKey(p)));
    if (pending.length === 0) return false;
    const now = clock.now();
    const sizes = await this.#groupSizes();
    const options: ScaleUpOption[] = [];
    for (const group of this.#groups) {
      if ((this.#backoff.get(group.name)?.untilMs ?? 0) > now) continue;
      const room = group.maxSize - (sizes.get(group.name) ?? 0);
      const option = estimate(group, pending, daemonSets, room, this.#ctx.solver);
      if (option !== undefined) options.push(option);
    }
    const chosen = expand(this.#settings.expander, options, this.#random);
    if (chosen === undefined) return false;
    let launched = 0;
    for (let i = 0; i < chosen.nodeCount; i++) {
      if (!(await this.#launch(chosen.group))) break;
      launched++;
    }
    if (launched > 0) {
      this.#lastScaleUpMs = now;
      this.#backoff.delete(chosen.group.name);
    }
    return launched > 0;
  }

  /** Launches one machine of `group`; false (and the group backed off) when the cloud refuses. */
  async #launch(group: NodeGroup): Promise<boolean> {
    const { client, cloud, clock } = this.#ctx.cluster;
    const pool = group.nodePool;
    const name = `${machineName(group.name)}-${(++this.#machines).toString(36).padStart(5, '0')}`;
    const request: NodeClaim = {
      apiVersion: 'karpenter.sh/v1',
      kind: 'NodeClaim',
      metadata: {
        name,
        labels: {
          ...(pool.spec.template.metadata?.labels ?? {}),
          'karpenter.sh/nodepool': pool.metadata.name ?? '',
          [NODE_GROUP_LABEL]: group.name,
        },
        finalizers: [MACHINE_FINALIZER],
      },
      spec: {
        nodeClassRef: pool.spec.template.spec.nodeClassRef,
        requirements: [
          {
            key: 'node.kubernetes.io/instance-type',
            operator: 'In',
            values: [group.instanceType.name],
          },
          { key: 'karpenter.sh/capacity-type', operator: 'In', values: [group.capacityType] },
        ],
        taints: pool.spec.template.spec.taints ?? [],
      },
    };
    let launched: NodeClaim;
    try {
      launched = await cloud.create(request);
    } catch (error) {
      if (!(error instanceof InsufficientCapacityError)) throw error;
      const seconds = this.#backOff(group);
      client.recordEvent({
        involved: { kind: 'NodeClaim', name },
        type: 'Warning',
        reason: 'InsufficientCapacityError',
        message: `node group ${group.name}: ${error.message}; backed off for ${seconds} s`,
      });
      return false;
    }
    const created = await client.create('NodeClaim', { ...launched, status: undefined });
    created.status = {
      ...(launched.status ?? {}),
      conditions: [
        {
          type: 'Launched',
          status: 'True',
          reason: 'Launched',
          message: '',
          lastTransitionTime: new Date(clock.now()).toISOString(),
        },
      ],
    };
    await client.updateStatus('NodeClaim', created);
    return true;
  }

  /**
   * Backs `group` off after a failed scale-up: 5 minutes, doubling up to 30; returns the seconds.
   * A group already backed off keeps its backoff (CA merges the scale-ups of a group into one
   * request, which fails once).
   */
  #backOff(group: NodeGroup): number {
    const current = this.#backoff.get(group.name);
    if (current !== undefined && current.untilMs > this.#ctx.cluster.clock.now())
      return current.seconds;
    const last = current?.seconds;
    const seconds =
      last === undefined
        ? INITIAL_NODE_GROUP_BACKOFF_SECONDS
        : Math.min(last * 2, MAX_NODE_GROUP_BACKOFF_SECONDS);
    this.#backoff.set(group.name, {
      untilMs: this.#ctx.cluster.clock.now() + seconds * 1000,
      seconds,
    });
    return seconds;
  }

  /**
   * Deletes the machines whose Node has not registered within `--max-node-provision-time` of
   * their launch, as CA removes long-unregistered nodes, and backs their groups off once per
   * loop (CA counts the scale-up as failed); each machine is a failed launch
   * (`NodeProvisionTimeout`).
   */
  async #removeLongUnregistered(): Promise<void> {
    const { client, cloud, clock } = this.#ctx.cluster;
    // The machines of one scale-up time out together: one failed scale-up, one backoff.
    const backedOff = new Map<string, number>();
    for (const claim of this.#startingMachines()) {
      const launched = timeMs(
        claim.status?.conditions?.find((x) => x.type === 'Launched')?.lastTransitionTime,
      );
      if (launched === undefined || clock.now() - launched < MAX_NODE_PROVISION_SECONDS * 1000)
        continue;
      const name = claim.metadata.name ?? '';
      const group = this.#groupOf(claim);
      let seconds = group === undefined ? 0 : backedOff.get(group.name);
      if (seconds === undefined) {
        seconds = this.#backOff(group!);
        backedOff.set(group!.name, seconds);
      }
      client.recordEvent({
        involved: { kind: 'NodeClaim', name },
        type: 'Warning',
        reason: 'NodeProvisionTimeout',
        message: `node group ${group?.name ?? '?'}: the node did not register within ${MAX_NODE_PROVISION_SECONDS} s of its launch (--max-node-provision-time); machine deleted, group backed off for ${seconds} s`,
      });
      try {
        await cloud.delete(claim);
      } catch (error) {
        if (!(error instanceof NodeClaimNotFoundError)) throw error;
      }
      await this.#forget(name);
    }
  }

  // ---- scale-down ----------------------------------------------------------------------------

  async #scaleDown(scaledUp: boolean): Promise<void> {
    const { client, clock } = this.#ctx.cluster;
    const now = clock.now();
    const nodes = client
      .view('Node')
      .filter((n) => n.metadata?.labels?.[NODE_GROUP_LABEL] !== undefined);
    const pods = client.view('Pod').filter((p) => isActive(p) && p.spec?.nodeName);
    const byNode = new Map<string, Pod[]>();
    for (const p of pods) {
      const on = byNode.get(p.spec!.nodeName!);
      if (on === undefined) byNode.set(p.spec!.nodeName!, [p]);
      else on.push(p);
    }
    const pdbs = client.view('PodDisruptionBudget') as PodDisruptionBudget[];
    const sizes = await this.#groupSizes();
    // Candidates: Ready and unready nodes alike (an unready one waits the unready time).
    const candidates = nodes.filter(
      (n) =>
        n.metadata?.deletionTimestamp === undefined &&
        !this.#removals.has(n.metadata?.name ?? '') &&
        !n.spec?.unschedulable,
    );
    // Destinations: every Ready schedulable node (of a group or not), with its pods.
    const destinations = new Map<string, ExistingNodeInput>();
    for (const n of client.view('Node')) {
      const name = n.metadata?.name ?? '';
      if (
        n.metadata?.deletionTimestamp !== undefined ||
        this.#removals.has(name) ||
        n.spec?.unschedulable ||
        !isReady(n)
      )
        continue;
      destinations.set(name, {
        name,
        labels: n.metadata?.labels ?? {},
        taints: (n.spec?.taints ?? []).filter((t) => t.effect !== 'PreferNoSchedule'),
        allocatable: resourceListFromQuantities(n.status?.allocatable ?? {}),
        pods: byNode.get(name) ?? [],
      });
    }
    const removable = new Map<string, number>();
    for (const group of this.#groups)
      removable.set(group.name, (sizes.get(group.name) ?? 0) - group.minSize);
    const unneeded = new Set<string>();
    const unready = new Set<string>();
    for (const node of [...candidates].sort(byName)) {
      const name = node.metadata?.name ?? '';
      const group = node.metadata?.labels?.[NODE_GROUP_LABEL] ?? '';
      const others = new Map(destinations);
      others.delete(name);
      const reason = neededReason(
        {
          node,
          pods: byNode.get(name) ?? [],
          aboveMinSize: (removable.get(group) ?? 0) > 0,
        },
        others,
        pdbs,
        this.#ctx.solver,
      );
      if (reason !== undefined) continue;
      // Unneeded: its pods now count on their destinations, and it is gone from them.
      for (const [k, v] of others) destinations.set(k, v);
      destinations.delete(name);
      removable.set(group, (removable.get(group) ?? 0) - 1);
      unneeded.add(name);
      if (!isReady(node)) unready.add(name);
    }
    for (const name of [...this.#unneededSince.keys()])
      if (!unneeded.has(name)) this.#unneededSince.delete(name);
    for (const name of unneeded)
      if (!this.#unneededSince.has(name)) this.#unneededSince.set(name, now);
    this.#unneededUnready.clear();
    for (const name of unready) this.#unneededUnready.add(name);

    if (
      scaledUp ||
      now < this.#lastScaleUpMs + SCALE_DOWN_DELAY_AFTER_ADD_SECONDS * 1000 ||
      now < this.#lastScaleDownFailureMs + SCALE_DOWN_DELAY_AFTER_FAILURE_SECONDS * 1000
    )
      return;
    const due = [...unneeded]
      .filter(
        (n) => now - (this.#unneededSince.get(n) ?? now) >= unneededSeconds(unready.has(n)) * 1000,
      )
      .sort();
    const empty = due.filter((n) => (byNode.get(n) ?? []).every(isDaemonSetPod));
    const nonEmpty = due.filter((n) => !empty.includes(n));
    const toRemove = empty.slice(0, MAX_EMPTY_BULK_DELETE);
    const draining = [...this.#removals.values()].filter((r) => !r.empty).length;
    if (toRemove.length === 0 && draining < MAX_DRAIN_PARALLELISM && nonEmpty[0] !== undefined)
      toRemove.push(nonEmpty[0]);
    for (const name of toRemove) {
      const isEmpty = empty.includes(name);
      const reason = unready.has(name) ? 'Unready' : isEmpty ? 'Empty' : 'Underutilized';
      this.#removals.set(name, { startedMs: now, empty: isEmpty, reason });
      this.#unneededSince.delete(name);
      await this.#taint(name);
      this.#ctx.recorder.disruption({ reason, decision: 'delete', nodes: [name], replacements: 0 });
    }
    await this.#continueRemovals();
  }

  /** Puts CA's ToBeDeleted taint on the node (no new pods land there). */
  async #taint(name: string): Promise<void> {
    const { client, clock } = this.#ctx.cluster;
    const node = await client.get('Node', { name });
    if (node === undefined) return;
    if ((node.spec?.taints ?? []).some((t) => t.key === TO_BE_DELETED_TAINT)) return;
    const next = structuredClone(node);
    next.spec = {
      ...(next.spec ?? {}),
      taints: [
        ...(next.spec?.taints ?? []),
        {
          key: TO_BE_DELETED_TAINT,
          value: String(Math.floor(clock.now() / 1000)),
          effect: 'NoSchedule',
        },
      ],
    };
    await client.update('Node', next);
  }

  /** Drains the nodes being removed; deletes those drained; fails those whose pods cannot leave. */
  async #continueRemovals(): Promise<void> {
    const { client, clock } = this.#ctx.cluster;
    for (const [name, removal] of [...this.#removals]) {
      const left = await this.#evictFrom(name);
      if (left === 0) {
        this.#removals.delete(name);
        await this.#removeMachine(name);
      } else if (clock.now() - removal.startedMs >= MAX_POD_EVICTION_SECONDS * 1000) {
        // The scale-down failed: the node stays, untainted, and scale-down waits.
        this.#removals.delete(name);
        this.#lastScaleDownFailureMs = clock.now();
        const node = await client.get('Node', { name });
        if (node !== undefined) {
          const next = structuredClone(node);
          next.spec = {
            ...(next.spec ?? {}),
            taints: (next.spec?.taints ?? []).filter((t) => t.key !== TO_BE_DELETED_TAINT),
          };
          await client.update('Node', next);
        }
      }
    }
  }

  /** Evicts the node's pods but DaemonSet pods; returns how many are still on it. */
  async #evictFrom(nodeName: string): Promise<number> {
    const { client } = this.#ctx.cluster;
    let left = 0;
    for (const pod of client.view('Pod')) {
      if (pod.spec?.nodeName !== nodeName || !isActive(pod) || isDaemonSetPod(pod)) continue;
      try {
        await client.evict({
          name: pod.metadata?.name ?? '',
          namespace: pod.metadata?.namespace ?? 'default',
        });
      } catch {
        left++; // a PDB refused (429): retried next tick, until the eviction time is up
      }
    }
    return left;
  }

  /** Deletes the node's machine, its Node and its record. */
  async #removeMachine(nodeName: string): Promise<void> {
    const { client, cloud } = this.#ctx.cluster;
    const claim = await client.get('NodeClaim', { name: nodeName });
    if (claim !== undefined) {
      try {
        await cloud.delete(claim);
      } catch (error) {
        if (!(error instanceof NodeClaimNotFoundError)) throw error;
      }
    }
    await this.#forget(nodeName);
  }

  /** Deletes the Node and the machine record (the machine is gone). */
  async #forget(name: string): Promise<void> {
    const { client } = this.#ctx.cluster;
    if ((await client.get('Node', { name })) !== undefined) await client.delete('Node', { name });
    const claim = await client.get('NodeClaim', { name });
    if (claim !== undefined) {
      if (claim.metadata.deletionTimestamp === undefined)
        await client.delete('NodeClaim', { name });
      const latest = await client.get('NodeClaim', { name });
      if (latest !== undefined)
        await client.update('NodeClaim', {
          ...latest,
          metadata: { ...latest.metadata, finalizers: [] },
        });
    }
    this.#unneededSince.delete(name);
  }

  // ---- machines ------------------------------------------------------------------------------

  /**
   * A deleted machine record (a spot interruption notice): the node is drained as a node
   * termination handler does, and forgotten once the cloud has reclaimed the machine.
   */
  async #handleDeletedMachines(): Promise<void> {
    const { client, cloud } = this.#ctx.cluster;
    const running = new Set(cloud.instances().map((i) => i.nodeClaimName));
    for (const claim of client.view('NodeClaim')) {
      const name = claim.metadata.name ?? '';
      if (claim.metadata.deletionTimestamp === undefined) continue;
      if (!running.has(name)) {
        this.#removals.delete(name);
        await this.#forget(name);
        continue;
      }
      const node = await client.get('Node', { name });
      if (node !== undefined && !node.spec?.unschedulable) {
        const next = structuredClone(node);
        next.spec = { ...(next.spec ?? {}), unschedulable: true };
        await client.update('Node', next);
      }
      await this.#evictFrom(name);
    }
  }

  /** Removes the registration taint the kubelet stand-in puts on a new Node (only Karpenter's lifecycle would). */
  async #registerNodes(): Promise<void> {
    const { client } = this.#ctx.cluster;
    for (const node of client.view('Node')) {
      if (node.metadata?.labels?.[NODE_GROUP_LABEL] === undefined) continue;
      if (!(node.spec?.taints ?? []).some((t) => t.key === Taints.Unregistered.key)) continue;
      const next: Node = structuredClone(node);
      next.spec = {
        ...(next.spec ?? {}),
        taints: (next.spec?.taints ?? []).filter((t) => t.key !== Taints.Unregistered.key),
      };
      await client.update('Node', next);
    }
  }

  /** Machine records launched whose Node has not registered yet. */
  #startingMachines(): NodeClaim[] {
    return this.#claims.filter(
      (c) => c.metadata.deletionTimestamp === undefined && !this.#nodes.has(c.metadata.name ?? ''),
    );
  }

  #claims: NodeClaim[] = [];
  #nodes = new Set<string>();

  /** When the kubelet registers the next starting machine's Node (Infinity: none). */
  #registrationDue(): number {
    const delay = totalStartupSeconds(this.#ctx.cluster.nodeStartup) * 1000;
    let next = Infinity;
    for (const c of this.#startingMachines()) {
      const launched = timeMs(
        c.status?.conditions?.find((x) => x.type === 'Launched')?.lastTransitionTime,
      );
      if (launched !== undefined) next = Math.min(next, launched + delay);
    }
    return next;
  }

  /** Machines per node group (records not being deleted). */
  async #groupSizes(): Promise<Map<string, number>> {
    const sizes = new Map<string, number>();
    for (const c of this.#ctx.cluster.client.view('NodeClaim')) {
      if (c.metadata.deletionTimestamp !== undefined) continue;
      const g = c.metadata.labels?.[NODE_GROUP_LABEL];
      if (g !== undefined) sizes.set(g, (sizes.get(g) ?? 0) + 1);
    }
    return sizes;
  }

  #groupOf(claim: NodeClaim): NodeGroup | undefined {
    const name = claim.metadata.labels?.[NODE_GROUP_LABEL];
    return this.#groups.find((g) => g.name === name);
  }
}

/** A machine name prefix from a group name (lower case, DNS label characters). */
function machineName(group: string): string {
  return group.toLowerCase().replace(/[^a-z0-9.-]+/g, '-');
}

/** Seconds a node must stay unneeded before removal: the unready time for an unready node. */
function unneededSeconds(unready: boolean): number {
  return unready ? SCALE_DOWN_UNREADY_SECONDS : SCALE_DOWN_UNNEEDED_SECONDS;
}

/** The Node's Ready condition is True. */
function isReady(node: Node): boolean {
  return node.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True') ?? false;
}

function byName(a: Node, b: Node): number {
  const x = a.metadata?.name ?? '';
  const y = b.metadata?.name ?? '';
  return x < y ? -1 : x > y ? 1 : 0;
}
