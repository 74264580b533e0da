/**
 * Records a run's measures: samples of the cluster every `sampleSeconds`, counters, each pod's
 * time from creation to bound (from a watch, so at the exact clock time of the bind), the
 * timeline of events, and the bill. The engine and the autoscaler under test call its hooks;
 * {@link MeasureRecorder.finish} gives the run's output.
 */
import type { Pod } from '@karpenter-ts/api';
import type { SimCloudProvider } from '@karpenter-ts/cloudprovider';
import { isActive, isDaemonSetPod, type Clock, type KubeEvent } from '@karpenter-ts/controllers';
import { podRequests, resourceListFromQuantities } from '@karpenter-ts/scheduling';
import type { ObservedKubeClient } from '../engine/observed-client.js';
import { Billing } from './billing.js';
import type { CapacityTypeName, Counters, RunSummary, Sample, TimelineEvent } from './format.js';
import { percentiles, round3, round6 } from './percentiles.js';

/** Options of {@link MeasureRecorder}. */
export interface RecorderOptions {
  readonly client: ObservedKubeClient;
  readonly cloud: SimCloudProvider;
  readonly clock: Clock;
  /** Clock ms of time 0. */
  readonly startMs: number;
  readonly sampleSeconds: number;
}

/** A voluntary disruption, as the autoscaler under test reports it. */
export interface DisruptionRecord {
  /** `Empty`, `Underutilized`, `Drifted`, `Expired`, `Unhealthy`. */
  readonly reason: string;
  readonly decision: 'delete' | 'replace';
  readonly nodes: readonly string[];
  readonly replacements: number;
}

type MutableCounters = { -readonly [K in keyof Counters]: Counters[K] } & {
  disruptions: Record<string, number>;
};

/** See the module comment. */
export class MeasureRecorder {
  readonly #o: RecorderOptions;
  readonly #billing: Billing;
  readonly #counters: MutableCounters = {
    disruptions: {},
    evictions: 0,
    interruptions: 0,
    failedLaunches: 0,
    nodeFailures: 0,
    nodesLaunched: 0,
    nodesTerminated: 0,
    podsCreated: 0,
    podsCompleted: 0,
  };
  /** Pending pods (not DaemonSet, not gated) by UID: creation time. */
  readonly #pending = new Map<string, number>();
  readonly #completed = new Set<string>();
  /** Seconds from creation to bound, of every pod bound so far, and of those since the last sample. */
  readonly #allLatencies: number[] = [];
  #windowLatencies: number[] = [];
  readonly #events: TimelineEvent[] = [];
  readonly #samples: Sample[] = [];
  #nextSample = 0;
  #stop: (() => void) | undefined;

  constructor(o: RecorderOptions) {
    this.#o = o;
    this.#billing = new Billing(o.cloud);
  }

  /** Seconds since time 0 at the clock's time. */
  #t(ms = this.#o.clock.now()): number {
    return round3((ms - this.#o.startMs) / 1000);
  }

  /** Starts watching pods and listening to the client (call once, before anything is created). */
  start(): void {
    const { client, clock } = this.#o;
    client.observer = {
      evicted: (pod) => {
        this.#counters.evictions++;
        this.#events.push({ t: this.#t(), type: 'eviction', pod: key(pod) });
      },
      event: (e) => this.#event(e),
    };
    this.#stop = client.watch('Pod', (event) => {
      const pod = event.object;
      const uid = pod.metadata?.uid ?? '';
      if (event.type === 'DELETED') {
        this.#pending.delete(uid);
        return;
      }
      if (event.type === 'ADDED') {
        if (isDaemonSetPod(pod)) return;
        this.#counters.podsCreated++;
        if (!pod.spec?.nodeName && (pod.spec?.schedulingGates ?? []).length === 0)
          this.#pending.set(uid, clock.now());
        return;
      }
      const created = this.#pending.get(uid);
      if (created !== undefined && pod.spec?.nodeName) {
        this.#pending.delete(uid);
        const seconds = (clock.now() - created) / 1000;
        this.#allLatencies.push(seconds);
        this.#windowLatencies.push(seconds);
      }
      if (pod.status?.phase === 'Succeeded' && !this.#completed.has(uid)) {
        this.#completed.add(uid);
        this.#counters.podsCompleted++;
      }
    });
  }

  /** Stops watching. */
  stop(): void {
    this.#stop?.();
    this.#stop = undefined;
  }

  /** Pods waiting for a node now. */
  pendingPods(): number {
    return this.#pending.size;
  }

  #event(e: KubeEvent): void {
    if (
      e.reason === 'InsufficientCapacityError' ||
      e.reason === 'NodeClassNotReady' ||
      e.reason === 'NodeProvisionTimeout'
    ) {
      this.#counters.failedLaunches++;
      this.#events.push({
        t: this.#t(),
        type: 'launch-failed',
        nodeClaim: e.involved.name,
        reason: e.reason,
        message: e.message,
      });
    } else if (
      e.reason === 'Disrupted' &&
      e.involved.kind === 'NodeClaim' &&
      /Expired/.test(e.message)
    ) {
      this.disruption({
        reason: 'Expired',
        decision: 'delete',
        nodes: [e.involved.name],
        replacements: 0,
      });
    } else if (e.reason === 'Disrupted' && /Unhealthy/.test(e.message)) {
      this.disruption({
        reason: 'Unhealthy',
        decision: 'delete',
        nodes: [e.involved.name],
        replacements: 0,
      });
    }
  }

  /** A voluntary disruption started (or a node expired, or was repaired). */
  disruption(d: DisruptionRecord): void {
    this.#counters.disruptions[d.reason] =
      (this.#counters.disruptions[d.reason] ?? 0) + d.nodes.length;
    this.#events.push({
      t: this.#t(),
      type: 'disruption',
      reason: d.reason,
      decision: d.decision,
      nodes: [...d.nodes],
      replacements: d.replacements,
    });
  }

  /** A spot interruption was delivered to `node`. */
  interruption(node: string, instanceType: string, zone: string): void {
    this.#counters.interruptions++;
    this.#events.push({ t: this.#t(), type: 'interruption', node, instanceType, zone });
  }

  /** `node` failed. */
  nodeFailure(node: string): void {
    this.#counters.nodeFailures++;
    this.#events.push({ t: this.#t(), type: 'node-failure', node });
  }

  /** A scenario event was applied. */
  scenario(event: string, detail: string): void {
    this.#events.push({ t: this.#t(), type: 'scenario', event, detail });
  }

  /** Looks at the cloud's instances after a tick (or action) that started at `atMs`. */
  observeCloud(atMs: number): void {
    const { launched, terminated } = this.#billing.observe(atMs);
    for (const i of launched) {
      this.#counters.nodesLaunched++;
      this.#events.push({
        t: this.#t(i.launchedAt),
        type: 'node-launched',
        node: i.nodeClaimName,
        instanceType: i.instanceType,
        zone: i.zone,
        capacityType: i.capacityType,
        usdPerHour: round6(i.price),
      });
    }
    for (const i of terminated) {
      this.#counters.nodesTerminated++;
      this.#events.push({
        t: this.#t(atMs),
        type: 'node-terminated',
        node: i.nodeClaimName,
        instanceType: i.instanceType,
      });
    }
  }

  /** Clock ms of the next sample not yet taken. */
  nextSampleMs(): number {
    return this.#o.startMs + this.#nextSample * this.#o.sampleSeconds * 1000;
  }

  /**
   * Takes every sample due at or before `nowMs`. The cluster has not changed since the last tick,
   * so one look serves them all; the bill is evaluated at each sample's own time.
   */
  async sampleUpTo(nowMs: number): Promise<void> {
    if (this.nextSampleMs() > nowMs) return;
    const state = await this.#look();
    while (this.nextSampleMs() <= nowMs) {
      const at = this.nextSampleMs();
      this.#samples.push({
        t: this.#t(at),
        ...state,
        usdSpent: round6(this.#billing.spentUntil(at)),
        timeToBound: percentiles(this.#windowLatencies),
        counters: this.#countersCopy(),
      });
      this.#windowLatencies = [];
      this.#nextSample++;
    }
  }

  async #look(): Promise<Omit<Sample, 't' | 'usdSpent' | 'timeToBound' | 'counters'>> {
    const { client } = this.#o;
    const byType: Record<string, Partial<Record<CapacityTypeName, number>>> = {};
    const byCapacity: Partial<Record<CapacityTypeName, number>> = {};
    const running = this.#billing.running();
    for (const i of running) {
      const ct = i.capacityType as CapacityTypeName;
      const entry = (byType[i.instanceType] ??= {});
      entry[ct] = (entry[ct] ?? 0) + 1;
      byCapacity[ct] = (byCapacity[ct] ?? 0) + 1;
    }
    const requested = { cpu: 0, memory: 0 };
    const allocatable = { cpu: 0, memory: 0 };
    let runningPods = 0;
    for (const pod of client.view('Pod')) {
      if (!pod.spec?.nodeName || !isActive(pod)) continue;
      runningPods++;
      const r = podRequests(pod);
      requested.cpu += r.cpu ?? 0;
      requested.memory += r.memory ?? 0;
    }
    for (const node of client.view('Node')) {
      if (!node.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True'))
        continue;
      const a = resourceListFromQuantities(node.status.allocatable ?? {});
      allocatable.cpu += a.cpu ?? 0;
      allocatable.memory += a.memory ?? 0;
    }
    return {
      nodes: running.length,
      nodesByInstanceType: sortedKeys(byType),
      nodesByCapacityType: sortedKeys(byCapacity),
      usdPerHour: round6(this.#billing.ratePerHour()),
      pendingPods: this.#pending.size,
      runningPods,
      requested,
      allocatable,
    };
  }

  #countersCopy(): Counters {
    return { ...this.#counters, disruptions: sortedKeys({ ...this.#counters.disruptions }) };
  }

  /** The run's summary, samples and events (call once, after the last sample). */
  finish(ticks: number): { summary: RunSummary; samples: Sample[]; events: TimelineEvent[] } {
    const samples = this.#samples;
    const last = samples[samples.length - 1];
    const spent = last?.usdSpent ?? 0;
    const hours = last === undefined || last.t === 0 ? 0 : last.t / 3600;
    const ratio = (pick: (s: Sample) => [number, number]) => {
      const values = samples
        .map(pick)
        .filter(([, a]) => a > 0)
        .map(([r, a]) => r / a);
      return values.length === 0 ? 0 : round6(values.reduce((x, y) => x + y, 0) / values.length);
    };
    const summary: RunSummary = {
      usdSpent: spent,
      usdPerHour: {
        mean: hours === 0 ? 0 : round6(spent / hours),
        peak: Math.max(0, ...samples.map((s) => s.usdPerHour)),
      },
      nodes: { peak: Math.max(0, ...samples.map((s) => s.nodes)), final: last?.nodes ?? 0 },
      finalNodesByInstanceType: last?.nodesByInstanceType ?? {},
      pendingPods: {
        peak: Math.max(0, ...samples.map((s) => s.pendingPods)),
        final: last?.pendingPods ?? 0,
      },
      timeToBound: percentiles(this.#allLatencies),
      utilization: {
        cpu: ratio((s) => [s.requested.cpu, s.allocatable.cpu]),
        memory: ratio((s) => [s.requested.memory, s.allocatable.memory]),
      },
      counters: this.#countersCopy(),
      ticks,
    };
    const events = [...this.#events].sort((a, b) => a.t - b.t);
    return { summary, samples, events };
  }
}

function key(pod: Pod): string {
  return `${pod.metadata?.namespace ?? 'default'}/${pod.metadata?.name ?? ''}`;
}

function sortedKeys<T>(record: Record<string, T>): Record<string, T> {
  return Object.fromEntries(
    Object.entries(record).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)),
  );
}
