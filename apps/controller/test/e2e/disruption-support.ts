/**
 * What the disruption suite needs beyond support.ts: a scenario (namespace, SimNodeClass,
 * NodePool with its disruption settings, a Deployment of small pods selecting that pool), watch
 * recorders that keep what every pod, NodeClaim and Node of the scenario went through (so a
 * state that lasts a moment, such as a Drifted condition or an eviction, is not missed between
 * polls), and bounded waits that stop at once when a guard fails (a pod pending too long).
 */
import type { NodePool } from '@karpenter-ts/api';
import { isNotFound } from '@karpenter-ts/controllers';
import type { KubeConnection, WatchStream } from '@karpenter-ts/kube';
import { fleetOf, type Fleet } from './disruption-prediction.js';
import type { List } from './support.js';

/** Object metadata as the API server sends it (timestamps are RFC 3339 strings). */
export interface Meta {
  name: string;
  namespace?: string;
  uid?: string;
  creationTimestamp?: string;
  deletionTimestamp?: string;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
}

export interface Condition {
  type: string;
  status: string;
  reason?: string;
  message?: string;
}

export interface PodObject {
  metadata: Meta;
  spec?: { nodeName?: string };
  status?: { phase?: string; conditions?: Condition[] };
}

export interface ClaimObject {
  metadata: Meta;
  status?: { nodeName?: string; providerID?: string; conditions?: Condition[] };
}

export interface NodeObj {
  metadata: Meta;
  spec?: { providerID?: string; taints?: { key: string; effect: string }[] };
}

export interface EventObject {
  metadata: Meta;
  involvedObject: { kind?: string; name?: string; namespace?: string };
  reason?: string;
  message?: string;
  type?: string;
  count?: number;
  firstTimestamp?: string;
  lastTimestamp?: string;
}

/** Thrown by a guard of {@link waitFor}: ends the wait at once. */
class GuardFailure extends Error {}

/**
 * Polls `probe` every 250 ms until it yields a value (not undefined/false); fails naming `what`
 * after `timeoutMs` (with the probe's last error or `describe()`), or at once when `guard`
 * returns a message.
 */
export async function waitFor<T>(
  what: string,
  probe: () => Promise<T | undefined | false>,
  timeoutMs: number,
  o: { guard?: () => string | undefined; describe?: () => string | Promise<string> } = {},
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  for (;;) {
    const broken = o.guard?.();
    if (broken !== undefined) throw new GuardFailure(`while waiting for ${what}: ${broken}`);
    try {
      const v = await probe();
      if (v !== undefined && v !== false) return v;
    } catch (err) {
      if (err instanceof GuardFailure) throw err;
      last = err;
    }
    if (Date.now() > deadline) {
      const state = o.describe ? `; last state: ${await o.describe()}` : '';
      throw new Error(
        `timed out after ${timeoutMs / 1000} s waiting for ${what}${last ? `: ${String(last)}` : ''}${state}`,
      );
    }
    await new Promise((r) => setTimeout(r, 250));
  }
}

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** What one object went through, as its watch reported it. */
export interface History<T> {
  readonly name: string;
  /** Wall ms of the first event about it. */
  readonly firstSeen: number;
  last: T;
  /** Wall ms it was first seen with a deletionTimestamp. */
  deletingSeen?: number;
  /** Wall ms of its DELETED event. */
  deleted?: number;
  /** `type/status/reason` of every condition it carried at some point. */
  readonly conditions: Set<string>;
  /** `key:effect` of every taint it carried at some point. */
  readonly taints: Set<string>;
  /** Pods: wall ms it was first seen without a node (while not deleting), and when bound. */
  pendingSince?: number;
  boundAt?: number;
  /** Pods: every node it was seen bound to. */
  readonly nodes: Set<string>;
}

/**
 * Keeps the {@link History} of every object of a collection from its watch (restarted when the
 * server ends it), and the most objects that ever matched a predicate at once.
 */
export class Recorder<T extends { metadata: Meta }> {
  readonly objects = new Map<string, History<T>>();
  readonly #peaks = new Map<string, { match: (h: History<T>) => boolean; max: number }>();
  #stream: WatchStream | undefined;
  #stopped = false;
  /** Watch failures (a restart follows each). */
  readonly errors: string[] = [];

  constructor(
    private readonly api: KubeConnection,
    private readonly path: string,
    private readonly query: Record<string, string> = {},
  ) {}

  async start(): Promise<void> {
    if (this.#stopped) return;
    this.#stream = await this.api.watch(
      this.path,
      this.query,
      (type, object) => this.#observe(type, object as T),
      (err) => {
        if (err !== null) this.errors.push(String(err));
        if (!this.#stopped) setTimeout(() => void this.start().catch(() => undefined), 500);
      },
    );
  }

  stop(): void {
    this.#stopped = true;
    this.#stream?.abort();
  }

  /** Objects that exist now (not DELETED). */
  live(): History<T>[] {
    return [...this.objects.values()].filter((h) => h.deleted === undefined);
  }

  /** Starts tracking the most objects matching `match` at once (from now on), under `key`. */
  trackPeak(key: string, match: (h: History<T>) => boolean): void {
    this.#peaks.set(key, { match, max: 0 });
    this.#updatePeaks();
  }

  /** The most objects that matched the predicate of {@link trackPeak} at once. */
  peak(key: string): number {
    return this.#peaks.get(key)?.max ?? 0;
  }

  #observe(type: string, object: T): void {
    if (type !== 'ADDED' && type !== 'MODIFIED' && type !== 'DELETED') return;
    const name = object.metadata.namespace
      ? `${object.metadata.namespace}/${object.metadata.name}`
      : object.metadata.name;
    const now = Date.now();
    let h = this.objects.get(name);
    // A new object of the same name (a replacement) starts a new history.
    if (h !== undefined && h.last.metadata.uid !== object.metadata.uid) h = undefined;
    if (h === undefined) {
      h = {
        name,
        firstSeen: now,
        last: object,
        conditions: new Set(),
        taints: new Set(),
        nodes: new Set(),
      };
      this.objects.set(name, h);
    }
    h.last = object;
    if (object.metadata.deletionTimestamp !== undefined) h.deletingSeen ??= now;
    if (type === 'DELETED') h.deleted = now;
    const status = (object as { status?: { conditions?: Condition[] } }).status;
    for (const c of status?.conditions ?? []) h.conditions.add(`${c.type}/${c.status}/${c.reason}`);
    const spec = (object as { spec?: { taints?: { key: string; effect: string }[] } }).spec;
    for (const t of spec?.taints ?? []) h.taints.add(`${t.key}:${t.effect}`);
    const nodeName = (object as { spec?: { nodeName?: string } }).spec?.nodeName;
    if (nodeName) {
      h.nodes.add(nodeName);
      h.boundAt ??= now;
    } else if (object.metadata.deletionTimestamp === undefined && type !== 'DELETED') {
      h.pendingSince ??= now;
    }
    this.#updatePeaks();
  }

  #updatePeaks(): void {
    for (const p of this.#peaks.values()) {
      const n = this.live().filter(p.match).length;
      if (n > p.max) p.max = n;
    }
  }
}

/** `DisruptionTarget` set by the API server when it evicts a pod through the Eviction API. */
export const EvictedByApi = 'DisruptionTarget/True/EvictionByEvictionAPI';

/** The taint the orchestration queue puts on a node it disrupts. */
export const DisruptedTaint = 'karpenter.sh/disrupted:NoSchedule';

/** Options of a {@link Scenario}. */
export interface ScenarioOptions {
  /** Largest instance the pool may launch, cores (`karpenter.kwok.sh/instance-cpu` Lt this + 1). */
  readonly maxCores: number;
  readonly disruption: NonNullable<NodePool['spec']['disruption']>;
  readonly expireAfter?: string;
  /** Pod requests; default 195m cpu and 128Mi (20 fill a c-4x exactly; see the suite). */
  readonly requests?: Record<string, string>;
  readonly podAnnotations?: Record<string, string>;
}

/**
 * A namespace, SimNodeClass, NodePool and Deployment all named `name` (pods select the pool
 * by name, so other scenarios' pools never serve them), with recorders for its pods, NodeClaims
 * and Nodes.
 */
export class Scenario {
  readonly pods: Recorder<PodObject>;
  readonly claims: Recorder<ClaimObject>;
  readonly nodes: Recorder<NodeObj>;

  constructor(
    readonly api: KubeConnection,
    readonly name: string,
    readonly o: ScenarioOptions,
  ) {
    this.pods = new Recorder(api, `/api/v1/namespaces/${name}/pods`, {
      labelSelector: `app=${name}`,
    });
    const byPool = { labelSelector: `karpenter.sh/nodepool=${name}` };
    this.claims = new Recorder(api, '/apis/karpenter.sh/v1/nodeclaims', byPool);
    this.nodes = new Recorder(api, '/api/v1/nodes', byPool);
  }

  get<T>(path: string): Promise<T> {
    return this.api.request<T>('GET', path);
  }

  /** The NodePool as this scenario creates it: linux/amd64 on-demand nodes of at most `maxCores`. */
  nodePool(): NodePool {
    const { name, o } = this;
    return {
      apiVersion: 'karpenter.sh/v1',
      kind: 'NodePool',
      metadata: { name },
      spec: {
        disruption: o.disruption,
        template: {
          spec: {
            nodeClassRef: { group: 'karpenter.sim', kind: 'SimNodeClass', name },
            ...(o.expireAfter !== undefined ? { expireAfter: o.expireAfter } : {}),
            requirements: [
              { key: 'kubernetes.io/os', operator: 'In', values: ['linux'] },
              { key: 'kubernetes.io/arch', operator: 'In', values: ['amd64'] },
              { key: 'karpenter.sh/capacity-type', operator: 'In', values: ['on-demand'] },
              {
                key: 'karpenter.kwok.sh/instance-cpu',
                operator: 'Lt',
                values: [String(o.maxCores + 1)],
              },
            ],
          },
        },
      },
    } as NodePool;
  }

  /** Creates the namespace, SimNodeClass and NodePool, starts the recorders, waits for Ready. */
  async create(): Promise<void> {
    const { api, name } = this;
    await api.request('POST', '/api/v1/namespaces', {
      body: { apiVersion: 'v1', kind: 'Namespace', metadata: { name } },
    });
    await api.request('POST', '/apis/karpenter.sim/v1/simnodeclasses', {
      body: { apiVersion: 'karpenter.sim/v1', kind: 'SimNodeClass', metadata: { name } },
    });
    await api.request('POST', '/apis/karpenter.sh/v1/nodepools', { body: this.nodePool() });
    await Promise.all([this.pods.start(), this.claims.start(), this.nodes.start()]);
    await waitFor(
      `NodePool ${name} to be Ready`,
      async () =>
        (
          await this.get<NodePool>(`/apis/karpenter.sh/v1/nodepools/${name}`)
        ).status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True'),
      30_000,
    );
    await waitFor(
      `the default service account of ${name}`,
      () => this.get(`/api/v1/namespaces/${name}/serviceaccounts/default`),
      30_000,
    );
  }

  /** The pods' spec: pause containers with the scenario's requests, selecting its pool. */
  podSpec() {
    return {
      nodeSelector: { 'karpenter.sh/nodepool': this.name },
      terminationGracePeriodSeconds: 0,
      containers: [
        {
          name: 'pause',
          image: 'registry.k8s.io/pause:3.10',
          resources: { requests: this.o.requests ?? { cpu: '195m', memory: '128Mi' } },
        },
      ],
    };
  }

  async deploy(replicas: number): Promise<void> {
    const { name } = this;
    await this.api.request('POST', `/apis/apps/v1/namespaces/${name}/deployments`, {
      body: {
        apiVersion: 'apps/v1',
        kind: 'Deployment',
        metadata: { name, namespace: name },
        spec: {
          replicas,
          selector: { matchLabels: { app: name } },
          template: {
            metadata: {
              labels: { app: name },
              ...(this.o.podAnnotations ? { annotations: this.o.podAnnotations } : {}),
            },
            spec: this.podSpec(),
          },
        },
      },
    });
  }

  async scale(replicas: number): Promise<void> {
    await this.api.request(
      'PATCH',
      `/apis/apps/v1/namespaces/${this.name}/deployments/${this.name}`,
      { body: { spec: { replicas } }, contentType: 'application/merge-patch+json' },
    );
  }

  async patchPool(patch: unknown): Promise<void> {
    await this.api.request('PATCH', `/apis/karpenter.sh/v1/nodepools/${this.name}`, {
      body: patch,
      contentType: 'application/merge-patch+json',
    });
  }

  async listPods(): Promise<PodObject[]> {
    return (
      await this.get<List<PodObject>>(
        `/api/v1/namespaces/${this.name}/pods?labelSelector=app%3D${this.name}`,
      )
    ).items;
  }

  async listClaims(): Promise<ClaimObject[]> {
    return (
      await this.get<List<ClaimObject>>(
        `/apis/karpenter.sh/v1/nodeclaims?labelSelector=karpenter.sh%2Fnodepool%3D${this.name}`,
      )
    ).items;
  }

  async listNodes(): Promise<NodeObj[]> {
    return (
      await this.get<List<NodeObj>>(
        `/api/v1/nodes?labelSelector=karpenter.sh%2Fnodepool%3D${this.name}`,
      )
    ).items;
  }

  /** The fleet of this pool's NodeClaims now. */
  async fleet(): Promise<Fleet> {
    return fleetOf(await this.listClaims());
  }

  /**
   * A settled state with `replicas` pods: that many pods, none terminating, all bound to Nodes of
   * this pool; every NodeClaim Initialized with its Node and none deleting; no Node tainted
   * `karpenter.sh/disrupted`. Undefined otherwise.
   */
  async settled(
    replicas: number,
  ): Promise<{ pods: PodObject[]; claims: ClaimObject[]; nodes: NodeObj[] } | undefined> {
    const [pods, claims, nodes] = await Promise.all([
      this.listPods(),
      this.listClaims(),
      this.listNodes(),
    ]);
    const nodeNames = new Set(nodes.map((n) => n.metadata.name));
    const ok =
      pods.length === replicas &&
      pods.every((p) => !p.metadata.deletionTimestamp && nodeNames.has(p.spec?.nodeName ?? '')) &&
      claims.length === nodes.length &&
      claims.every(
        (c) =>
          !c.metadata.deletionTimestamp &&
          c.status?.conditions?.some((x) => x.type === 'Initialized' && x.status === 'True') &&
          nodeNames.has(c.status?.nodeName ?? ''),
      ) &&
      nodes.every(
        (n) =>
          !n.metadata.deletionTimestamp &&
          !(n.spec?.taints ?? []).some((t) => `${t.key}:${t.effect}` === DisruptedTaint),
      );
    return ok ? { pods, claims, nodes } : undefined;
  }

  /** A one-line account of the pool's state, for timeout messages. */
  async describe(): Promise<string> {
    const [pods, claims] = await Promise.all([this.listPods(), this.listClaims()]);
    const pending = pods.filter((p) => !p.spec?.nodeName).length;
    const claimText = claims
      .map(
        (c) =>
          `${c.metadata.name}(${c.metadata.labels?.['node.kubernetes.io/instance-type'] ?? '?'}${c.metadata.deletionTimestamp ? ', deleting' : ''})`,
      )
      .join(' ');
    return `${pods.length} pods (${pending} unbound), claims: ${claimText || 'none'}`;
  }

  /**
   * A guard for {@link waitFor}: a message naming the pods first seen without a node more than
   * `limitMs` ago and still unbound (pods seen before `since` are not judged).
   */
  pendingGuard(limitMs: number, since = 0): () => string | undefined {
    return () => {
      const now = Date.now();
      const late = this.pods
        .live()
        .filter(
          (h) =>
            h.firstSeen >= since &&
            h.pendingSince !== undefined &&
            h.boundAt === undefined &&
            h.last.metadata.deletionTimestamp === undefined &&
            now - h.pendingSince > limitMs,
        );
      if (late.length === 0) return undefined;
      return `${late.length} pod(s) of ${this.name} pending for more than ${limitMs / 1000} s: ${late
        .slice(0, 5)
        .map((h) => h.name)
        .join(', ')}`;
    };
  }

  /** Events with `reason` about the Nodes (or NodeClaims, with `kind`) named in `names`. */
  async events(reason: string, names: Iterable<string>, kind = 'Node'): Promise<EventObject[]> {
    const wanted = new Set(names);
    const list = await this.get<List<EventObject>>(
      `/api/v1/namespaces/default/events?fieldSelector=${encodeURIComponent(`involvedObject.kind=${kind},reason=${reason}`)}`,
    );
    return list.items.filter((e) => wanted.has(e.involvedObject.name ?? ''));
  }

  /**
   * Removes everything while the controller still runs (it drains and terminates the nodes):
   * the Deployment and its pods, then the NodeClaims, then the NodePool, SimNodeClass and
   * namespace; stops the recorders.
   */
  async remove(): Promise<void> {
    const { api, name } = this;
    const ignoreMissing = (err: unknown) => {
      if (!isNotFound(err)) throw err;
    };
    try {
      await api
        .request('DELETE', `/apis/apps/v1/namespaces/${name}/deployments/${name}`, {
          body: { apiVersion: 'v1', kind: 'DeleteOptions', propagationPolicy: 'Foreground' },
        })
        .catch(ignoreMissing);
      await waitFor(
        `the pods of ${name} to go`,
        async () => (await this.listPods()).length === 0,
        60_000,
      );
      await waitFor(
        `the node claims and nodes of ${name} to vanish`,
        async () => {
          const claims = await this.listClaims();
          for (const nc of claims.filter((c) => c.metadata.deletionTimestamp === undefined)) {
            await api
              .request('DELETE', `/apis/karpenter.sh/v1/nodeclaims/${nc.metadata.name}`)
              .catch(ignoreMissing);
          }
          return claims.length + (await this.listNodes()).length === 0;
        },
        60_000,
      );
      await api.request('DELETE', `/apis/karpenter.sh/v1/nodepools/${name}`).catch(ignoreMissing);
      await api
        .request('DELETE', `/apis/karpenter.sim/v1/simnodeclasses/${name}`)
        .catch(ignoreMissing);
      await api.request('DELETE', `/api/v1/namespaces/${name}`).catch(ignoreMissing);
    } finally {
      this.pods.stop();
      this.claims.stop();
      this.nodes.stop();
    }
  }
}
