/**
 * The provisioning Scheduler (upstream `scheduling/scheduler.go`):
 * places a batch of pending pods onto existing nodes, in-flight node claims and new node claims,
 * relaxing preferences as upstream does, and reports the node claims to launch.
 *
 * The numeric hot path — does a pod fit, which instance types survive — runs in the solver
 * (@karpenter-ts/solver, WebAssembly or its TypeScript twin) over a catalog of (NodePool,
 * instance type, daemon group) rows; requirements, taints, host ports and topology stay here.
 */
import type { Pod, Toleration } from '@karpenter-ts/api';
import { Labels } from '@karpenter-ts/api';
import { createSolver, type Solver } from '@karpenter-ts/solver';
import {
  andMask,
  Catalog,
  columnOrder,
  countBits,
  forEachRow,
  requestVector,
  requirementSignature,
  type CatalogRow,
} from './catalog.js';
import { ClaimDomainIndex, ClaimOrder } from './claim-order.js';
import { daemonPod, groupDaemonsByInstanceType } from './daemon-overhead.js';
import type { DaemonGroup, DaemonPod } from './daemon-overhead.js';
import { ExistingNodes, type PreparedNode } from './existing-nodes.js';
import { formatHostPort, HostPortUsage } from './host-ports.js';
import { rowPriceOrder, type RowPriceOrder } from './instance-type-order.js';
import { MaskMap } from './mask-map.js';
import { checkMinValues, describeShortfall } from './min-values.js';
import { nodePoolTemplate, orderByWeight, type NodePoolTemplate } from './node-pool-template.js';
import { relax, type PodConstraints, type PreferencePolicy } from './pod-constraints.js';
import {
  buildPodData,
  constraintRequirements,
  RequestKeyLists,
  volumesMatter,
  type PodData,
} from './pod-data.js';
import { SchedulingQueue } from './queue.js';
import { Requirement } from './requirement.js';
import { allowUndefinedWellKnownLabels, Requirements } from './requirements.js';
import {
  addResources,
  fits,
  formatResourceList,
  maxResources,
  subtractResources,
  type ResourceList,
} from './resources.js';
import type {
  ExistingNodeInput,
  ExistingNodePlacement,
  MinValuesPolicy,
  NewNodeClaim,
  SchedulerInstanceType,
  SchedulerOptions,
  SchedulingResults,
  SolveOptions,
} from './scheduler-types.js';
import { toleratesAll } from './taints.js';
import { VolumeUsage, type PodVolumes } from './volumes.js';
import { TopologyDomains } from './topology/domains.js';
import { templateDomainPairs } from './topology/template-domains.js';
import {
  Topology,
  TopologyGroupSpecs,
  type AttemptTopology,
  type TopologyMemo,
} from './topology/topology.js';

const HOSTNAME = Labels.Hostname;
const TOLERATE_PREFER_NO_SCHEDULE: Toleration = { operator: 'Exists', effect: 'PreferNoSchedule' };
/** Claims tried in plain order before a pod with topology constraints switches to the domain index. */
const SCAN_BEFORE_INDEX = 48;
/** Why a template whose remaining limits admit none of its instance types cannot take a pod. */
const ALL_TYPES_EXCEED_LIMITS = `all instance types exceed the nodepool's remaining limits`;
/** Upstream `MaxInstanceTypes`. */
export const DEFAULT_MAX_INSTANCE_TYPES = 600;

/** One scheduling attempt of a pod: its (possibly relaxed) constraints and what follows from them. */
interface Attempt {
  readonly data: PodData;
  readonly constraints: PodConstraints;
  readonly requirements: Requirements;
  readonly strict: Requirements;
  readonly tolerations: readonly Toleration[];
  readonly topology: AttemptTopology;
  readonly requests: Float64Array;
  /** Rows the pod could use at all (a superset of what any claim will allow). */
  readonly podMask: Uint32Array;
  readonly portMask: Uint32Array | undefined;
  /** Per template: undefined when the pod may use it, else why not. */
  readonly templateRejection: readonly (string | undefined)[];
  /** The topology cache of the pod under these constraints. */
  readonly topologyMemo: TopologyMemo;
}

/** What an attempt derives from the pod and its constraints alone; see `attemptStatic`. */
interface AttemptStatic {
  readonly data: PodData;
  readonly requirements: Requirements;
  readonly strict: Requirements;
  readonly tolerations: readonly Toleration[];
  readonly templateRejection: readonly (string | undefined)[];
  readonly portMask: Uint32Array | undefined;
  readonly podMask: Uint32Array;
  /** The pod's topology groups under these constraints. */
  readonly topology: TopologyMemo;
  /** See {@link SolveRun.existingKey}; filled on first use (null: the pod's volumes count). */
  existingKey?: string | null;
}

/** How an existing node answered an attempt: took the pod, turned it away for good, or for now. */
type ExistingResult = typeof PLACED | typeof LASTING | typeof FOR_NOW;
const PLACED = 0;
/** By a check that cannot start passing within the solve (see `tryExistingNodes`). */
const LASTING = 1;
/** By topology, which placements elsewhere may change. */
const FOR_NOW = 2;

/** An existing node during one solve. */
interface ExistingNodeState {
  readonly input: ExistingNodeInput;
  readonly requirements: Requirements;
  readonly taints: NonNullable<ExistingNodeInput['taints']>;
  available: ResourceList;
  readonly hostPorts: HostPortUsage;
  /** Volumes attached there, against its CSI attach limits; undefined without limits. */
  readonly volumes: VolumeUsage | undefined;
  readonly placed: Pod[];
}

/** An in-flight node claim during one solve; `id` is its solver claim id. */
interface ClaimState {
  readonly id: number;
  readonly template: number;
  readonly hostname: string;
  requirements: Requirements;
  /** `catalog.requirementMask(requirements)`, kept while `requirements` is the same object. */
  requirementMask: Uint32Array | undefined;
  readonly pods: PodData[];
  /** The pods' objects, kept as they join (finalizing then touches no pod data). */
  readonly podObjects: Pod[];
  /** The pods' shared `memo.requestKeys`, or null once two pods list different names. */
  requestKeys: readonly string[] | null;
  readonly hostPorts: HostPortUsage;
  minValuesRelaxed: boolean;
}

/** The scheduler. Construct once per set of pools, instance types, nodes and daemonsets. */
export class Scheduler<IT extends SchedulerInstanceType = SchedulerInstanceType> {
  private readonly templates: NodePoolTemplate<IT>[] = [];
  /** Pools dropped before scheduling, with the reason (reported when no pool is left). */
  private readonly droppedPools: string[] = [];
  private readonly daemons: DaemonPod[];
  private readonly catalog: Catalog<IT>;
  private readonly solver: Solver;
  private readonly preferencePolicy: PreferencePolicy;
  private readonly minValuesPolicy: MinValuesPolicy;
  private readonly maxInstanceTypes: number;
  private readonly poolsHavePreferNoSchedule: boolean;
  private readonly podData = new WeakMap<Pod, PodData>();
  /** What an attempt derives from its constraints alone (the templates and catalog are fixed). */
  private readonly attemptStatics = new WeakMap<PodConstraints, AttemptStatic>();
  private readonly groupSpecs: TopologyGroupSpecs;
  /** Keys a pod may require that a NodePool leaves undefined: Karpenter's and the provider's well-known labels. */
  private readonly allowUndefined: ReadonlySet<string>;
  /** The domain universe of the templates: every pool × instance type (see `registerDomains`). */
  private readonly templateDomains = new TopologyDomains();
  /** The existing nodes, prepared on the first solve for every solve. */
  private existingNodes: ExistingNodes | undefined;

  /**
   * @throws Error naming the field for malformed options (pools, quantities, requirements, an
   *   unknown solver or policy).
   */
  constructor(private readonly options: SchedulerOptions<IT>) {
    this.preferencePolicy = options.preferencePolicy ?? 'Respect';
    if (this.preferencePolicy !== 'Respect' && this.preferencePolicy !== 'Ignore') {
      throw new Error(
        `preferencePolicy must be "Respect" or "Ignore", got ${JSON.stringify(this.preferencePolicy)}`,
      );
    }
    this.minValuesPolicy = options.minValuesPolicy ?? 'Strict';
    if (this.minValuesPolicy !== 'Strict' && this.minValuesPolicy !== 'BestEffort') {
      throw new Error(
        `minValuesPolicy must be "Strict" or "BestEffort", got ${JSON.stringify(this.minValuesPolicy)}`,
      );
    }
    this.maxInstanceTypes = options.maxInstanceTypes ?? DEFAULT_MAX_INSTANCE_TYPES;
    if (!Number.isInteger(this.maxInstanceTypes) || this.maxInstanceTypes < 1) {
      throw new Error(`maxInstanceTypes must be a positive integer, got ${this.maxInstanceTypes}`);
    }
    this.allowUndefined = allowUndefinedWellKnownLabels(options.wellKnownLabels);
    this.solver = createSolver(options.solver ?? 'wasm');
    const cache = options.podDataCache;
    if (cache !== undefined && cache.preferencePolicy !== this.preferencePolicy) {
      throw new Error(
        `podDataCache was built for preferencePolicy ${cache.preferencePolicy}, the scheduler has ${this.preferencePolicy}`,
      );
    }
    if (
      cache !== undefined &&
      options.namespaceLabels !== undefined &&
      options.namespaceLabels !== cache.namespaceLabels
    ) {
      throw new Error('namespaceLabels must be the podDataCache’s own (give them to the cache)');
    }
    this.groupSpecs = cache?.groupSpecs ?? new TopologyGroupSpecs(options.namespaceLabels);
    this.requestKeyLists = cache?.requestKeyLists ?? new RequestKeyLists();
    this.daemons = (options.daemonSetPods ?? []).map((p) => daemonPod(p));

    for (const pool of orderByWeight(options.nodePools)) {
      const name = pool.metadata.name ?? '';
      const types = options.instanceTypes.get(name) ?? [];
      const template = nodePoolTemplate(pool, types);
      if (types.length === 0) this.droppedPools.push(`nodepool "${name}" has no instance types`);
      else if (template.instanceTypes.length === 0) {
        this.droppedPools.push(
          `nodepool "${name}" has no instance types compatible with its requirements`,
        );
      } else this.templates.push(template);
    }
    this.poolsHavePreferNoSchedule = this.templates.some((t) =>
      t.taints.some((x) => x.effect === 'PreferNoSchedule'),
    );

    // Catalog rows: (template, instance type) with the type's daemon group for that template.
    const rows: CatalogRow<IT>[] = [];
    const groups: DaemonGroup[] = [];
    const typeIndex = new Map<IT, number>();
    this.templates.forEach((t, pool) => {
      const { groupOf, groups: poolGroups } = groupDaemonsByInstanceType(
        this.daemons,
        t,
        t.instanceTypes.map((it) => it.requirements),
        this.allowUndefined,
      );
      const base = groups.length;
      groups.push(...poolGroups);
      t.instanceTypes.forEach((it, i) => {
        let ti = typeIndex.get(it);
        if (ti === undefined) {
          ti = typeIndex.size;
          typeIndex.set(it, ti);
        }
        rows.push({
          pool,
          instanceType: it,
          daemonGroup: base + (groupOf[i] as number),
          typeIndex: ti,
        });
      });
    });
    this.catalog = new Catalog(rows, groups, this.templates.length);
    rows.forEach((_, r) => {
      if (this.catalog.overheadFits(r)) this.catalog.enable(r);
    });
    this.registerDomains();
  }

  /**
   * The domain universe of the templates: every pool × instance type's requirements and
   * offerings ({@link templateDomainPairs}), each pair registered once with the pool's taints.
   * Template registrations are never taken back (only existing nodes are), so one per pair is
   * as good as one per occurrence.
   */
  private registerDomains(): void {
    for (const t of this.templates) {
      for (const [key, values] of templateDomainPairs(t.requirements, t.instanceTypes))
        for (const v of values) this.templateDomains.register(key, v, t.taints);
    }
  }

  /** The existing nodes as every solve starts from them, prepared on first use. */
  private existing(): ExistingNodes {
    this.existingNodes ??= new ExistingNodes(this.options.existingNodes ?? [], {
      daemons: this.daemons,
      ...(this.options.podVolumes ? { podVolumes: this.options.podVolumes } : {}),
      templateNames: this.templates.map((t) => t.name),
      templateDomains: this.templateDomains,
      groupSpecs: this.groupSpecs,
      allowUndefined: this.allowUndefined,
    });
    return this.existingNodes;
  }

  /**
   * Each constraints object's relaxation (null: nothing left to relax), so a pod's relaxed
   * constraints are the same objects in every batch and the caches keyed by them hit.
   */
  private readonly relaxations = new WeakMap<PodConstraints, PodConstraints | null>();

  /**
   * `relax(constraints)` of one of the pod's constraints objects, computed once per object: in
   * the pod's memo for its unrelaxed constraints (every pod that fails reaches this, and a memo
   * slot is cheaper than a WeakMap entry per pod), in `relaxations` for relaxed ones.
   */
  private relaxed(d: PodData, constraints: PodConstraints): PodConstraints | undefined {
    const unrelaxed = constraints === d.constraints;
    let next = unrelaxed ? d.memo.relaxed : this.relaxations.get(constraints);
    if (next === undefined) {
      next = relax(constraints, this.poolsHavePreferNoSchedule)?.constraints ?? null;
      if (unrelaxed) d.memo.relaxed = next;
      else this.relaxations.set(constraints, next);
    }
    return next ?? undefined;
  }

  /** Interned request name lists (see `PodMemo.requestKeys`): the cache's when given one. */
  private readonly requestKeyLists: RequestKeyLists;

  /**
   * The pod's cached scheduling data: from `options.podDataCache` when the pod's volumes do not
   * constrain placement (see PodDataCache), else this scheduler's own. Volumes are read once per
   * pod and scheduler. Throws for a pod with malformed requests.
   */
  private data(pod: Pod): PodData {
    const cache = this.options.podDataCache;
    const shared = cache?.get(pod);
    if (shared !== undefined && shared.memo.owner === this) return shared;
    let d = this.podData.get(pod);
    if (d !== undefined) return d;
    const volumes = this.options.podVolumes?.(pod);
    if (cache !== undefined && !volumesMatter(volumes)) {
      if (shared !== undefined) {
        d = shared;
        // What another scheduler derived from its own pools and catalog does not hold here.
        d.memo.attempt = undefined;
        d.memo.relaxed = undefined;
      } else {
        d = this.build(pod, undefined);
        cache.set(pod, d);
      }
      d.memo.owner = this;
      return d;
    }
    d = this.build(pod, volumes);
    this.podData.set(pod, d);
    return d;
  }

  /** New scheduling data of the pod, its request names interned (see `PodMemo.requestKeys`). */
  private build(pod: Pod, volumes: PodVolumes | undefined): PodData {
    const d = buildPodData(pod, this.preferencePolicy, volumes);
    d.memo.requestKeys = this.requestKeyLists.intern(Object.keys(d.requests));
    return d;
  }

  /**
   * Schedules the pods. Every call starts from the scheduler's inputs (existing nodes, no
   * in-flight node claims), so repeated calls with the same pods give the same results.
   * `options.without` leaves existing nodes out by name: the results are those of a Scheduler
   * built without them (a disruption pass builds one Scheduler over the cluster and solves once
   * per candidate set, each without the candidates). The existing nodes' state (requirements,
   * resources left, daemonset overhead, host ports, volumes, topology counts) is prepared once,
   * on the first call.
   */
  solve(pods: readonly Pod[], options: SolveOptions = {}): SchedulingResults<IT> {
    return new SolveRun(this, pods, options.without).run();
  }

  /** @internal state shared with a run. */
  get internals() {
    return {
      templates: this.templates,
      droppedPools: this.droppedPools,
      daemons: this.daemons,
      catalog: this.catalog,
      solver: this.solver,
      minValuesPolicy: this.minValuesPolicy,
      maxInstanceTypes: this.maxInstanceTypes,
      poolsHavePreferNoSchedule: this.poolsHavePreferNoSchedule,
      options: this.options,
      data: (pod: Pod) => this.data(pod),
      relaxed: (d: PodData, constraints: PodConstraints) => this.relaxed(d, constraints),
      groupSpecs: this.groupSpecs,
      attemptStatics: this.attemptStatics,
      allowUndefined: this.allowUndefined,
      existing: () => this.existing(),
    };
  }
}

/** One `solve`: all per-batch state. */
class SolveRun<IT extends SchedulerInstanceType> {
  private readonly s: Scheduler<IT>['internals'];
  private readonly columns: string[];
  /** The columns as one string, the key of the request vectors cached on pods. */
  private readonly columnsKey: string;
  private readonly catalog: Catalog<IT>;
  private readonly solver: Solver;
  private readonly templates: readonly NodePoolTemplate<IT>[];
  private readonly topology: Topology;
  private readonly domains: TopologyDomains;
  private readonly existing: ExistingNodeState[] = [];
  private readonly claims: ClaimState[] = [];
  private readonly claimByHostname = new Map<string, ClaimState>();
  private readonly order = new ClaimOrder();
  private readonly indexes = new Map<string, ClaimDomainIndex>();
  /** The entries of `indexes` as arrays, for iteration without allocation. */
  private readonly indexKeys: string[] = [];
  private readonly indexList: ClaimDomainIndex[] = [];
  private readonly largestCache = new MaskMap<ResourceList>();
  /** Remaining limits per template (undefined = unlimited). */
  private readonly remaining: (ResourceList | undefined)[];
  /** Per template, the largest capacity of any of its instance types, per resource. */
  private readonly largestCapacity: ResourceList[];
  /** Rows each template may still open within its limits. */
  private readonly limitMasks: Uint32Array[];
  /** Per template: no row is within its remaining limits (`limitMasks[t]` is empty). */
  private readonly limitsExhausted: boolean[];
  private readonly errors = new Map<Pod, string>();
  private readonly podMaskCache = new Map<string, Uint32Array>();
  private readonly scratch: Uint32Array;
  private readonly fit: Uint32Array;
  private readonly zeros: Float64Array;
  /** Per requirement signature and minValues: the options of each final row mask. */
  private readonly optionCache = new Map<string, MaskMap<FinalOptions<IT>>>();
  /** Catalog rows in price order, per requirement signature (see `options`). */
  private readonly priceOrders = new Map<string, RowPriceOrder>();
  /** The data of the batch's valid pods, in input order, and why the others are invalid. */
  private readonly podDatas: PodData[] = [];
  private readonly invalid = new Map<Pod, string>();
  /** Column of each resource name in the solver's vectors. */
  private readonly columnIndex = new Map<string, number>();

  constructor(
    scheduler: Scheduler<IT>,
    private readonly pods: readonly Pod[],
    without: ReadonlySet<string> | undefined,
  ) {
    this.s = scheduler.internals;
    this.catalog = this.s.catalog;
    this.solver = this.s.solver;
    this.templates = this.s.templates;
    const names = new Set<string>();
    for (const row of this.catalog.rows)
      for (const k in row.instanceType.allocatable()) names.add(k);
    for (const d of this.s.daemons) for (const k in d.requests) names.add(k);
    // Each pod's data once per solve (an invalid pod is reported by `run`).
    let lastKeys: readonly string[] | undefined;
    for (const p of pods) {
      let d: PodData;
      try {
        d = this.s.data(p);
      } catch (e) {
        this.invalid.set(p, `invalid pod: ${(e as Error).message}`);
        continue;
      }
      this.podDatas.push(d);
      const keys = d.memo.requestKeys as readonly string[];
      if (keys !== lastKeys) for (const k of keys) names.add(k);
      lastKeys = keys;
    }
    this.columns = columnOrder(names);
    this.columnsKey = this.columns.join('\n');
    this.columns.forEach((name, c) => this.columnIndex.set(name, c));
    this.solver.load(this.catalog.solverCatalog(this.columns));
    this.scratch = new Uint32Array(this.catalog.words);
    this.fit = new Uint32Array(this.catalog.words);
    this.zeros = new Float64Array(this.columns.length);
    const nodes = this.s.existing();
    const removed = nodes.indicesOf(without);
    this.domains = nodes.domainsWithout(removed);
    this.topology = new Topology(this.domains, this.s.groupSpecs, this.s.allowUndefined);
    this.topology.seedExisting(nodes.topology, removed, nodes.templateHostnames);
    this.remaining = this.templates.map((t) =>
      t.limits === undefined ? undefined : { ...t.limits },
    );
    this.largestCapacity = this.templates.map((t) =>
      maxResources(...t.instanceTypes.map((it) => it.capacity)),
    );
    this.initExistingNodes(nodes.nodes, removed);
    this.limitMasks = this.templates.map((_, i) => this.limitMask(i));
    this.limitsExhausted = this.limitMasks.map((m) => countBits(m) === 0);
  }

  /**
   * Existing nodes, initialized first, then by name, except the `removed` indices: each starts
   * from its prepared state (copied where a solve changes it), and uses its NodePool's limits.
   */
  private initExistingNodes(nodes: readonly PreparedNode[], removed: readonly number[]): void {
    let next = 0;
    for (const node of nodes) {
      if (removed[next] === node.index) {
        next++;
        continue;
      }
      this.existing.push({
        input: node.input,
        requirements: node.requirements,
        taints: node.taints,
        available: node.available,
        hostPorts: new HostPortUsage(node.hostPorts),
        volumes: node.volumes?.copy(),
        placed: [],
      });
      const t = node.template;
      const rem = this.remaining[t];
      if (t >= 0 && rem !== undefined) this.remaining[t] = subtractResources(rem, node.limitUsage);
    }
  }

  /** Rows of template `t` whose capacity is within the remaining limits. */
  private limitMask(t: number): Uint32Array {
    const poolMask = this.catalog.poolMasks[t] as Uint32Array;
    const rem = this.remaining[t];
    if (rem === undefined) return poolMask;
    const largest = this.largestCapacity[t] as ResourceList;
    let anyBinding = false;
    for (const k in rem)
      if (k !== 'nodes' && (largest[k] ?? 0) > (rem[k] as number)) anyBinding = true;
    if (!anyBinding) return poolMask;
    const mask = new Uint32Array(this.catalog.words);
    forEachRow(poolMask, (row) => {
      const cap = (this.catalog.rows[row] as CatalogRow<IT>).instanceType.capacity;
      for (const k in rem) {
        if (k === 'nodes') continue;
        if ((cap[k] ?? 0) > (rem[k] as number)) return;
      }
      mask[row >>> 5] = ((mask[row >>> 5] as number) | (1 << (row & 31))) >>> 0;
    });
    return mask;
  }

  run(): SchedulingResults<IT> {
    const queued: PodData[] = [];
    let next = 0;
    for (const pod of this.pods) {
      const invalid = this.invalid.size > 0 ? this.invalid.get(pod) : undefined;
      if (invalid !== undefined) {
        this.errors.set(pod, invalid);
        continue;
      }
      const d = this.podDatas[next++] as PodData;
      if (d.usesResourceClaims) {
        // Upstream's default (IGNORE_DRA_REQUESTS=true): such pods are not simulated and never relaxed.
        this.errors.set(
          pod,
          'pod uses Dynamic Resource Allocation resource claims, which the scheduler does not simulate',
        );
        continue;
      }
      queued.push(d);
    }
    const queue = new SchedulingQueue(queued, (keys, width, order) =>
      this.solver.orderRows(keys, width, order),
    );
    for (let d = queue.pop(); d !== undefined; d = queue.pop()) {
      const error = this.schedule(d);
      if (error === undefined) {
        if (this.errors.size > 0) this.errors.delete(d.pod);
      } else {
        this.errors.set(d.pod, error);
        queue.pushBack(d);
      }
    }
    return this.results();
  }

  /** Tries the pod, relaxing one preference at a time; returns the last error, or undefined on success. */
  private schedule(d: PodData): string | undefined {
    let constraints: PodConstraints = d.constraints;
    // A pod's volume alternatives are tried in order under each relaxation (upstream adds them
    // to the node's requirements, one alternative per attempt).
    const volumeAlternatives: readonly (Requirements | undefined)[] =
      d.volumes !== undefined && d.volumes.requirements.length > 0
        ? d.volumes.requirements
        : [undefined];
    for (;;) {
      let error = '';
      try {
        for (const volume of volumeAlternatives) {
          error = this.tryAttempt(d, constraints, volume) ?? '';
          if (error === '') break;
        }
      } catch (e) {
        return `invalid pod: ${(e as Error).message}`;
      }
      if (error === '') return undefined;
      const next = this.s.relaxed(d, constraints);
      if (next === undefined) return error;
      constraints = next;
    }
  }

  private vector(d: PodData): Float64Array {
    const memo = d.memo;
    if (memo.vector !== undefined && memo.vectorKey === this.columnsKey) return memo.vector;
    const v = requestVector(d.requests, this.columns);
    memo.vector = v;
    memo.vectorKey = this.columnsKey;
    return v;
  }

  /**
   * The parts of an attempt that depend only on the pod and its constraints, cached per
   * constraints object across batches (the templates and the catalog belong to the scheduler).
   */
  private attemptStatic(
    d: PodData,
    constraints: PodConstraints,
    volume: Requirements | undefined,
  ): AttemptStatic {
    // Attempts under a volume alternative are not cached: such pods are few, and the caches
    // are keyed by constraints alone.
    const unrelaxed = constraints === d.constraints;
    const cached =
      volume !== undefined
        ? undefined
        : unrelaxed
          ? (d.memo.attempt as AttemptStatic | undefined)
          : this.s.attemptStatics.get(constraints);
    if (cached !== undefined && cached.data === d) return cached;
    const own = constraintRequirements(constraints);
    const strict = own.strict;
    // The volume's requirements narrow the node (not the pod's affinity: topology uses `strict`).
    const requirements =
      volume === undefined ? own.requirements : own.requirements.intersection(volume);
    const tolerations = constraints.toleratesPreferNoSchedule
      ? [...constraints.tolerations, TOLERATE_PREFER_NO_SCHEDULE]
      : constraints.tolerations;
    const templateRejection = this.templates.map((t) => {
      const taints = toleratesAll(tolerations, t.taints);
      if (taints !== undefined) return taints;
      const incompatible = t.requirements.compatible(requirements, this.s.allowUndefined);
      return incompatible === undefined ? undefined : `incompatible requirements, ${incompatible}`;
    });
    const portMask = d.hostPorts.length > 0 ? this.catalog.hostPortMask(d.hostPorts) : undefined;
    const entry: AttemptStatic = {
      data: d,
      requirements,
      strict,
      tolerations,
      templateRejection,
      portMask,
      podMask: this.podMask(requirements, templateRejection, portMask),
      // The unrelaxed constraints' group specs are the pod's own: kept on the pod, so data
      // shared by later schedulers (PodDataCache) does not rebuild them.
      topology: unrelaxed && volume === undefined ? (d.memo.topology ??= {}) : {},
    };
    if (volume !== undefined) return entry;
    if (unrelaxed) d.memo.attempt = entry;
    else this.s.attemptStatics.set(constraints, entry);
    return entry;
  }

  /** One attempt with fixed constraints: existing nodes, then in-flight claims, then new claims. */
  private tryAttempt(
    d: PodData,
    constraints: PodConstraints,
    volume?: Requirements,
  ): string | undefined {
    const st = this.attemptStatic(d, constraints, volume);
    const topology = this.topology.prepare(d, constraints, st.strict, st.topology);
    if (topology.failure !== undefined) return topology.failure;
    const attempt: Attempt = {
      data: d,
      constraints,
      requirements: st.requirements,
      strict: st.strict,
      tolerations: st.tolerations,
      topology,
      requests: this.vector(d),
      podMask: st.podMask,
      portMask: st.portMask,
      templateRejection: st.templateRejection,
      topologyMemo: st.topology,
    };
    if (this.existing.length > 0 && this.tryExistingNodes(attempt, st)) return undefined;
    if (this.claims.length > 0 && this.tryInFlight(attempt)) return undefined;
    return this.tryNewClaim(attempt);
  }

  /** Rows of usable templates that the pod's own requirements (and host ports) allow. */
  private podMask(
    requirements: Requirements,
    rejection: readonly (string | undefined)[],
    portMask: Uint32Array | undefined,
  ): Uint32Array {
    const sig = `${this.catalog.signature(requirements)}|${rejection.map((r) => (r === undefined ? 1 : 0)).join('')}`;
    // Masks with host ports are rare and not cached (the port set would have to be in the key).
    let mask = portMask === undefined ? this.podMaskCache.get(sig) : undefined;
    if (mask === undefined) {
      mask = new Uint32Array(this.catalog.words);
      rejection.forEach((r, t) => {
        if (r !== undefined) return;
        const pool = this.catalog.poolMasks[t] as Uint32Array;
        for (let i = 0; i < mask!.length; i++)
          mask![i] = ((mask![i] as number) | (pool[i] as number)) >>> 0;
      });
      andMask(mask, this.catalog.requirementMask(requirements), mask);
      if (portMask !== undefined) andMask(mask, portMask, mask);
      else this.podMaskCache.set(sig, mask);
    }
    return mask;
  }

  private tolerates(
    tolerations: readonly Toleration[],
    taints: ExistingNodeState['taints'],
  ): boolean {
    return toleratesAll(tolerations, taints) === undefined;
  }

  /**
   * The existing nodes in order; the first that takes the pod wins. A node turned away by the
   * checks that cannot start passing within a solve (resources only shrink, host ports and volume
   * attachments only grow, taints and labels stay) is skipped for every later attempt with the
   * same {@link existingKey}: with thousands of nodes and pods that each need a node of
   * their own (a host port), every attempt walked every node.
   */
  private tryExistingNodes(a: Attempt, st: AttemptStatic): boolean {
    let rejected: Uint8Array | undefined;
    const key = this.existingKey(a, st);
    if (key !== null) {
      rejected = this.existingRejected.get(key);
      if (rejected === undefined) {
        rejected = new Uint8Array(this.existing.length);
        this.existingRejected.set(key, rejected);
      }
    }
    for (let i = 0; i < this.existing.length; i++) {
      if (rejected !== undefined && rejected[i] === 1) continue;
      const result = this.tryExisting(this.existing[i] as ExistingNodeState, a);
      if (result === PLACED) return true;
      if (result === LASTING && rejected !== undefined) rejected[i] = 1;
    }
    return false;
  }
  /** Per {@link existingKey}: 1 for each existing node turned away for good. */
  private readonly existingRejected = new Map<string, Uint8Array>();

  /**
   * What the existing-node checks that can only go on failing within a solve read (requests,
   * tolerations, requirements, host ports), as text: attempts with the same key skip the nodes
   * one of them was turned away from by those checks. Null when the pod's volumes count too.
   * Kept on the attempt's static part (it depends on the pod and its constraints alone).
   */
  private existingKey(a: Attempt, st: AttemptStatic): string | null {
    if (st.existingKey !== undefined) return st.existingKey;
    const d = a.data;
    st.existingKey =
      d.volumes?.attachments === undefined
        ? JSON.stringify([
            st.requirements.values().map(requirementSignature).join(''),
            st.tolerations,
            d.hostPorts,
            Object.entries(d.requests).sort(([x], [y]) => (x < y ? -1 : x > y ? 1 : 0)),
          ])
        : null;
    return st.existingKey;
  }

  /** Places the pod on `node` ({@link PLACED}) or says why not: {@link LASTING} or {@link FOR_NOW}. */
  private tryExisting(node: ExistingNodeState, a: Attempt): ExistingResult {
    const d = a.data;
    if (!fits(d.requests, node.available)) return LASTING;
    if (!this.tolerates(a.tolerations, node.taints)) return LASTING;
    if (!node.requirements.isCompatible(a.requirements)) return LASTING;
    if (d.hostPorts.length > 0 && node.hostPorts.conflict(d.hostPorts) !== undefined)
      return LASTING;
    const attachments = d.volumes?.attachments;
    if (
      node.volumes !== undefined &&
      attachments !== undefined &&
      node.volumes.exceeds(attachments) !== undefined
    )
      return LASTING;
    // Topology counts change as pods are placed: this may pass later.
    const hostname = node.requirements.get(HOSTNAME).valuesList()[0] ?? node.input.name;
    if (!this.topology.mayPass(a.topology, node.requirements, hostname)) return FOR_NOW;
    const narrowed = this.topology.narrow(a.topology, node.requirements);
    if (typeof narrowed === 'string') return FOR_NOW;
    node.available = subtractResources(node.available, d.requests);
    node.hostPorts.add(d.hostPorts);
    if (node.volumes !== undefined && attachments !== undefined) node.volumes.add(attachments);
    node.placed.push(d.pod);
    this.topology.record(
      d,
      a.constraints.requiredAntiAffinity,
      node.requirements,
      node.taints,
      false,
      a.topologyMemo,
    );
    return PLACED;
  }

  /** In-flight claims, fewest pods first (lowest id on ties); the first that takes the pod wins. */
  private tryInFlight(a: Attempt): boolean {
    const topology = a.topology;
    if (topology.checks.length === 0) {
      // No topology: the solver walks the claims and skips those the pod cannot fit in one call.
      for (let after = -1; ;) {
        const id = this.solver.findClaim(a.requests, a.podMask, after);
        if (id < 0) return false;
        if (this.tryClaim(this.claims[id] as ClaimState, a)) return true;
        after = id;
      }
    }
    const candidates = this.topology.hostnameCandidates(topology);
    const size =
      candidates instanceof Set
        ? candidates.size
        : (candidates as readonly string[] | undefined)?.length;
    if (candidates !== undefined && (size as number) * 4 < this.claims.length) {
      // Few hostnames qualify (typically hostname anti-affinity): try just their claims, in order.
      const picked: ClaimState[] = [];
      for (const h of candidates) {
        const c = this.claimByHostname.get(h);
        if (c !== undefined) picked.push(c);
      }
      picked.sort((x, y) => x.pods.length - y.pods.length || x.id - y.id);
      for (const c of picked) {
        if (this.topology.mayPass(topology, c.requirements, c.hostname) && this.tryClaim(c, a))
          return true;
      }
      return false;
    }
    // Walk claims in order behind a cheap topology filter. Most pods succeed within a few
    // claims; when many claims are ruled out (e.g. zonal affinity with thousands of claims pinned
    // to other zones), switch to the per-domain lists, which hold only claims that may qualify.
    let visited = 0;
    let gaveUp = false;
    const found = this.order.find((id) => {
      if (++visited > SCAN_BEFORE_INDEX) {
        gaveUp = true;
        return true;
      }
      const c = this.claims[id] as ClaimState;
      return this.topology.mayPass(topology, c.requirements, c.hostname) && this.tryClaim(c, a);
    });
    if (!gaveUp) return found >= 0;
    const narrowest = this.topology.narrowestDomains(topology);
    if (narrowest === undefined) {
      return (
        this.order.find((id) => {
          const c = this.claims[id] as ClaimState;
          return this.topology.mayPass(topology, c.requirements, c.hostname) && this.tryClaim(c, a);
        }) >= 0
      );
    }
    // The first claim in (pods, id) order across the lists of the allowed domains.
    let best: ClaimState | undefined;
    for (const order of this.domainIndex(narrowest.key).ordersFor(narrowest.domains)) {
      order.find((id) => {
        const c = this.claims[id] as ClaimState;
        if (
          best !== undefined &&
          (c.pods.length > best.pods.length ||
            (c.pods.length === best.pods.length && c.id >= best.id))
        ) {
          return true; // nothing later in this list can come first
        }
        if (
          this.topology.mayPass(topology, c.requirements, c.hostname) &&
          this.tryClaim(c, a, false)
        ) {
          best = c;
          return true;
        }
        return false;
      });
    }
    return best !== undefined && this.tryClaim(best, a);
  }

  /** Whether the claim can take the pod; adds it when `commit` (the default). */
  private tryClaim(claim: ClaimState, a: Attempt, commit = true): boolean {
    if (a.templateRejection[claim.template] !== undefined) return false;
    if (!claim.requirements.isCompatible(a.requirements, this.s.allowUndefined)) return false;
    const d = a.data;
    if (d.hostPorts.length > 0 && claim.hostPorts.conflict(d.hostPorts) !== undefined) return false;
    let reqs = intersectOrSame(claim.requirements, a.requirements);
    const narrowed = this.topology.narrow(a.topology, reqs);
    if (typeof narrowed === 'string') return false;
    if (narrowed !== undefined && narrowed.length > 0) {
      if (reqs === claim.requirements) reqs = reqs.copy();
      reqs.add(...narrowed);
    }
    let mask: Uint32Array;
    if (reqs === claim.requirements && claim.requirementMask !== undefined) {
      mask = claim.requirementMask;
    } else {
      mask = this.catalog.requirementMask(reqs);
    }
    const exact = a.portMask === undefined ? mask : andMask(mask, a.portMask, this.scratch);
    let relaxed = false;
    if (commit && !reqs.hasMinValues()) {
      // Nothing to check between fit and commit: one solver call does both.
      if (this.solver.claimFitCommit(claim.id, a.requests, exact, this.fit) === 0) return false;
    } else {
      if (this.solver.claimFit(claim.id, a.requests, exact, this.fit) === 0) return false;
      if (reqs.hasMinValues()) {
        const mv = checkMinValues(reqs, this.typesOf(this.fit));
        if (!mv.satisfied) {
          if (this.s.minValuesPolicy === 'Strict') return false;
          relaxed = true;
        }
      }
      if (!commit) return true;
      this.solver.commit(claim.id, a.requests, this.fit);
    }
    this.order.increment(claim.id, claim.pods.length);
    claim.pods.push(d);
    claim.podObjects.push(d.pod);
    if (claim.requestKeys !== d.memo.requestKeys) claim.requestKeys = null;
    claim.requirements = reqs;
    claim.requirementMask = mask;
    this.reindex(claim, claim.pods.length - 1);
    claim.minValuesRelaxed ||= relaxed;
    claim.hostPorts.add(d.hostPorts);
    this.topology.record(
      d,
      a.constraints.requiredAntiAffinity,
      reqs,
      this.templates[claim.template]!.taints,
      true,
      a.topologyMemo,
    );
    return true;
  }

  /** The largest capacity among the rows of `mask` for the limited resources, plus `nodes: 1`; cached per mask. */
  private largestOption(mask: Uint32Array, limited: ResourceList): ResourceList {
    let max = this.largestCache.get(mask);
    if (max === undefined) {
      const m: ResourceList = { nodes: 1 };
      forEachRow(mask, (row) => {
        const cap = (this.catalog.rows[row] as CatalogRow<IT>).instanceType.capacity;
        for (const k in limited) {
          const v = cap[k];
          if (v !== undefined && v > (m[k] ?? 0)) m[k] = v;
        }
      });
      max = m;
      this.largestCache.set(mask, max);
    }
    return max;
  }

  /** The domain index of a topology key, built on first use from every claim. */
  private domainIndex(key: string): ClaimDomainIndex {
    let index = this.indexes.get(key);
    if (index === undefined) {
      index = new ClaimDomainIndex();
      this.indexes.set(key, index);
      this.indexKeys.push(key);
      this.indexList.push(index);
      for (const c of this.claims) {
        const r = c.requirements.get(key);
        index.update(c.id, c.pods.length, c.pods.length, r.complement ? undefined : r.valuesList());
      }
    }
    return index;
  }

  /** Refreshes a claim in every domain index after it changed (it had `previousPods` pods). */
  private reindex(claim: ClaimState, previousPods: number): void {
    for (let i = 0; i < this.indexKeys.length; i++) {
      const r = claim.requirements.get(this.indexKeys[i] as string);
      (this.indexList[i] as ClaimDomainIndex).update(
        claim.id,
        previousPods,
        claim.pods.length,
        r.complement ? undefined : r.valuesList(),
      );
    }
  }

  private typesOf(mask: Uint32Array): IT[] {
    return this.catalog.rowsOf(mask).map((r) => r.instanceType);
  }

  /** Opens a node claim from the first template (in weight order) that can take the pod. */
  private tryNewClaim(a: Attempt): string | undefined {
    if (this.templates.length === 0) {
      return this.s.droppedPools.length > 0 ? this.s.droppedPools.join('; ') : 'no nodepools found';
    }
    const clauses: string[] = [];
    for (let t = 0; t < this.templates.length; t++) {
      const reason = this.newClaimFrom(t, a);
      if (reason === undefined) return undefined;
      clauses.push(this.incompatibleClause(t, reason));
    }
    return this.joinedClauses(clauses);
  }

  /**
   * `incompatible with nodepool "NAME", REASON`, the same string object while template `t`'s
   * reason stays the same: with hundreds of NodePools and thousands of pods turned away for the
   * same reasons, building each clause and joining them per pod was most of a solve, and kept
   * one copy of a reason of hundreds of KB per pod.
   */
  private incompatibleClause(t: number, reason: string): string {
    const cached = this.clauses[t];
    if (cached !== undefined && cached.reason === reason) return cached.clause;
    const clause = `incompatible with nodepool "${(this.templates[t] as NodePoolTemplate<IT>).name}", ${reason}`;
    this.clauses[t] = { reason, clause };
    return clause;
  }
  private readonly clauses: { reason: string; clause: string }[] = [];

  /** `clauses` joined by `; `: the previous pod's string when its clauses were the same. */
  private joinedClauses(clauses: string[]): string {
    const last = this.lastJoined;
    if (
      last !== undefined &&
      last.clauses.length === clauses.length &&
      last.clauses.every((c, i) => c === clauses[i])
    )
      return last.joined;
    const joined = clauses.join('; ');
    this.lastJoined = { clauses, joined };
    return joined;
  }
  private lastJoined: { clauses: string[]; joined: string } | undefined;

  /** Returns undefined when a claim was opened, else why template `t` cannot take the pod. */
  private newClaimFrom(t: number, a: Attempt): string | undefined {
    // Upstream checks the pool's limits first (nodes, then its instance types filtered by the
    // remaining resources) and fails at once when nothing is left, before it tries the pod's
    // taints, requirements and topology: once a pool is used up, every pod that reaches it
    // (often most of a batch) is turned away here without building requirements or masks.
    const rem = this.remaining[t];
    if (rem !== undefined && rem['nodes'] !== undefined && rem['nodes'] <= 0)
      return 'nodepool limit on nodes reached';
    if (this.limitsExhausted[t] === true) return this.exhaustedReason(t);
    const rejection = a.templateRejection[t];
    if (rejection !== undefined) return rejection;
    const template = this.templates[t] as NodePoolTemplate<IT>;
    const d = a.data;
    const id = this.solver.claimCount;
    const hostname = `hostname-placeholder-${String(id).padStart(5, '0')}`;
    const reqs = template.requirements.intersection(a.requirements);
    reqs.add(Requirement.create(HOSTNAME, 'In', [hostname]));
    const narrowed = this.topology.narrow(a.topology, reqs);
    if (typeof narrowed === 'string') return narrowed;
    if (narrowed !== undefined) reqs.add(...narrowed);
    const limitMask = this.limitMasks[t] as Uint32Array;
    const reqMask = this.catalog.requirementMask(reqs);
    const candidates = andMask(limitMask, reqMask, this.scratch);
    if (a.portMask !== undefined) andMask(candidates, a.portMask, candidates);
    let relaxed = false;
    let opened: number;
    if (!reqs.hasMinValues()) {
      // Nothing to check between fit and open: one solver call does both.
      opened = this.solver.openWithPod(a.requests, candidates, this.fit);
      if (opened < 0) return this.noInstanceTypeReason(t, a, reqs, reqMask);
    } else {
      if (this.solver.fitTypes(a.requests, candidates, this.fit) === 0) {
        return this.noInstanceTypeReason(t, a, reqs, reqMask);
      }
      const mv = checkMinValues(reqs, this.typesOf(this.fit));
      if (!mv.satisfied) {
        if (this.s.minValuesPolicy === 'Strict') return describeShortfall(reqs, mv.shortfall);
        relaxed = true;
      }
      opened = this.solver.openClaim(this.zeros, this.fit);
      this.solver.commit(opened, a.requests, this.fit);
    }
    const claim: ClaimState = {
      id: opened,
      template: t,
      hostname,
      requirements: reqs,
      requirementMask: reqMask,
      pods: [d],
      podObjects: [d.pod],
      requestKeys: d.memo.requestKeys ?? null,
      // Daemon ports are per row: the pod port mask already removed rows whose daemons conflict.
      hostPorts: new HostPortUsage(d.hostPorts),
      minValuesRelaxed: relaxed,
    };
    this.claims[opened] = claim;
    this.order.add(opened, 1);
    this.reindex(claim, 0);
    this.claimByHostname.set(hostname, claim);
    this.topology.registerHostname(hostname, template.taints);
    if (rem !== undefined) {
      // Pessimistic: the claim may launch as its largest option.
      const max = this.largestOption(this.fit, rem);
      this.remaining[t] = subtractResources(rem, max);
      this.limitMasks[t] = this.limitMask(t);
      this.limitsExhausted[t] = countBits(this.limitMasks[t]) === 0;
    }
    this.topology.record(
      d,
      a.constraints.requiredAntiAffinity,
      reqs,
      template.taints,
      true,
      a.topologyMemo,
    );
    return undefined;
  }

  /**
   * Why template `t` has no instance type left for any pod: its NodePool's remaining limits, or,
   * when no type was usable to begin with, its DaemonSets' overhead (pods, cpu or memory) that no
   * instance type's allocatable holds even without the pod (e.g. more DaemonSets than the
   * NodeClass's maxPods).
   */
  private exhaustedReason(t: number): string {
    // Every pod that reaches a used-up pool asks: the catalog does not change within a solve.
    let reason = this.exhaustedReasons[t];
    if (reason !== undefined) return reason;
    reason = ALL_TYPES_EXCEED_LIMITS;
    if (countBits(this.catalog.poolMasks[t] as Uint32Array) === 0) {
      const daemons = this.poolDaemonCounts()[t] ?? 0;
      reason = `no instance type has room for the daemonset overhead alone (${daemons} daemonset pod${daemons === 1 ? '' : 's'})`;
    }
    this.exhaustedReasons[t] = reason;
    return reason;
  }
  private readonly exhaustedReasons: string[] = [];

  /** Per template, the most DaemonSet pods any of its instance types carries (one catalog walk). */
  private poolDaemonCounts(): number[] {
    if (this.daemonCounts !== undefined) return this.daemonCounts;
    const counts: number[] = [];
    for (const r of this.catalog.rows) {
      const group = this.catalog.daemonGroups[r.daemonGroup] as DaemonGroup;
      counts[r.pool] = Math.max(counts[r.pool] ?? 0, group.daemons.length);
    }
    this.daemonCounts = counts;
    return counts;
  }
  private daemonCounts: number[] | undefined;

  /** Explains why no instance type of template `t` can take the pod (built only on failure). */
  private noInstanceTypeReason(
    t: number,
    a: Attempt,
    reqs: Requirements,
    reqMask: Uint32Array,
  ): string {
    const pool = this.catalog.poolMasks[t] as Uint32Array;
    const limits = this.limitMasks[t] as Uint32Array;
    if (countBits(limits) === 0) return this.exhaustedReason(t);
    const resources = formatResources(a.data.requests);
    // Only name the overhead when some DaemonSet adds it to this pool's instance types.
    const overheadNote = (this.poolDaemonCounts()[t] ?? 0) > 0 ? ' plus daemonset overhead' : '';
    const shown = new Requirements(...reqs.values().filter((r) => r.key !== HOSTNAME));
    const reqRows = andMask(pool, reqMask, new Uint32Array(this.catalog.words));
    if (countBits(reqRows) === 0)
      return `no instance type met the requirements ${shown.toString()}`;
    const fitAll = new Uint32Array(this.catalog.words);
    if (this.solver.fitTypes(a.requests, pool, fitAll) === 0) {
      return `no instance type has enough resources for requests ${resources}${overheadNote}`;
    }
    if (
      a.portMask !== undefined &&
      countBits(andMask(reqRows, a.portMask, new Uint32Array(this.catalog.words))) === 0
    ) {
      return `host ports ${a.data.hostPorts.map(formatHostPort).join(', ')} conflict with daemonset host ports`;
    }
    if (countBits(andMask(reqRows, limits, new Uint32Array(this.catalog.words))) === 0) {
      return `the instance types meeting the requirements exceed the nodepool's remaining limits`;
    }
    if (this.solver.fitTypes(a.requests, reqRows, new Uint32Array(this.catalog.words)) > 0) {
      return `the instance types that fit the pod exceed the nodepool's remaining limits`;
    }
    return `no instance type satisfied both resources ${resources}${overheadNote ? ` (${overheadNote.trim()})` : ''} and requirements ${shown.toString()}`;
  }

  /** Builds the results: finalized new node claims, existing node placements, pod errors. */
  private results(): SchedulingResults<IT> {
    const newNodeClaims: NewNodeClaim<IT>[] = [];
    for (const claim of this.claims) {
      const finalized = this.finalize(claim);
      if (typeof finalized === 'string') {
        for (const p of claim.pods) this.errors.set(p.pod, finalized);
      } else {
        newNodeClaims.push(finalized);
      }
    }
    const existingNodes: ExistingNodePlacement[] = this.existing
      .filter((n) => n.placed.length > 0)
      .map((n) => ({ name: n.input.name, pods: n.placed }));
    return { newNodeClaims, existingNodes, podErrors: this.errors };
  }

  /**
   * Finalizes a claim: drops the placeholder hostname, orders options by price, truncates them
   * to `maxInstanceTypes` keeping minValues, pins instance-type and capacity-type requirements,
   * and adds the smallest daemon overhead among the kept options' groups to the requests.
   */
  private finalize(claim: ClaimState): NewNodeClaim<IT> | string {
    const template = this.templates[claim.template] as NodePoolTemplate<IT>;
    const reqs = new Requirements(...claim.requirements.values().filter((r) => r.key !== HOSTNAME));
    const options = this.options(reqs, this.solver.claimMask(claim.id));
    if (options.minValuesShortfall !== undefined && this.s.minValuesPolicy === 'Strict') {
      return `nodepool "${template.name}": ${options.minValuesShortfall} after keeping the ${options.kept.length} cheapest instance types`;
    }
    const requests = this.claimRequests(claim, options.overhead);
    reqs.add(options.instanceTypeRequirement);
    if (options.capacityTypeRequirement !== undefined) reqs.add(options.capacityTypeRequirement);
    const relaxed = claim.minValuesRelaxed || options.minValuesShortfall !== undefined;
    if (relaxed) {
      // BestEffort: each minValues the kept options cannot meet is lowered to what they reach
      // (upstream RelaxMinValues), so the NodeClaim never asks for more values than it allows.
      const { shortfall } = checkMinValues(reqs, options.kept);
      for (const [key, reached] of Object.entries(shortfall))
        reqs.replace(reqs.get(key).withMinValues(reached > 0 ? reached : undefined));
    }
    return {
      nodePoolName: template.name,
      requirements: reqs,
      instanceTypeOptions: options.kept,
      pods: claim.podObjects,
      requests,
      minValuesRelaxed: relaxed,
    };
  }

  /**
   * The claim's pod requests plus `overhead`, as `addResources(...pod requests, overhead)`: from
   * the solver's exact per-claim sums when every pod lists the same resource names (the usual
   * case), else summed list by list.
   */
  private claimRequests(claim: ClaimState, overhead: ResourceList): ResourceList {
    const keys = (claim.pods[0] as PodData).memo.requestKeys;
    for (const p of claim.pods) {
      if (p.memo.requestKeys !== keys)
        return addResources(...claim.pods.map((x) => x.requests), overhead);
    }
    const sums = this.solver.claimRequests(claim.id);
    const out: ResourceList = {};
    for (const k of keys as readonly string[])
      out[k] = sums[this.columnIndex.get(k) as number] as number;
    for (const k in overhead) out[k] = (out[k] ?? 0) + (overhead[k] as number);
    return out;
  }

  /**
   * The kept instance-type options of a claim's final rows, cached by (requirements on catalog
   * keys, minValues, rows): thousands of claims usually share a handful of shapes.
   */
  private options(reqs: Requirements, mask: Uint32Array): FinalOptions<IT> {
    const sig = this.catalog.signature(reqs);
    const key = `${sig}|${JSON.stringify(reqs.minValues())}`;
    let byMask = this.optionCache.get(key);
    if (byMask === undefined) {
      byMask = new MaskMap();
      this.optionCache.set(key, byMask);
    }
    let cached = byMask.get(mask);
    if (cached === undefined) {
      let order = this.priceOrders.get(sig);
      if (order === undefined) {
        order = rowPriceOrder(
          this.catalog.rows.map((r) => r.instanceType),
          reqs,
        );
        this.priceOrders.set(sig, order);
      }
      // The claim's rows in price order, truncated; a claim's rows are one pool's, one per type.
      const kept: IT[] = [];
      const keptRows: number[] = [];
      const max = this.s.maxInstanceTypes;
      for (let i = 0; i < order.rows.length && kept.length < max; i++) {
        const t = order.rows[i] as number;
        if ((((mask[t >>> 5] as number) >>> (t & 31)) & 1) === 0) continue;
        kept.push((this.catalog.rows[t] as CatalogRow<IT>).instanceType);
        keptRows.push(t);
      }
      let minValuesShortfall: string | undefined;
      if (reqs.hasMinValues()) {
        const mv = checkMinValues(reqs, kept);
        if (!mv.satisfied) minValuesShortfall = describeShortfall(reqs, mv.shortfall);
      }
      // The smallest overhead among the daemon groups the kept options belong to.
      let overhead: ResourceList | undefined;
      const groups = new Set(
        keptRows.map((t) => (this.catalog.rows[t] as CatalogRow<IT>).daemonGroup),
      );
      for (const g of groups) {
        const o = (this.catalog.daemonGroups[g] as DaemonGroup).overhead;
        overhead = overhead === undefined ? { ...o } : minResources(overhead, o);
      }
      const capacitySet = new Set<string>();
      for (const t of keptRows)
        for (const c of order.capacityTypes[t] as readonly string[]) capacitySet.add(c);
      const capacityTypes = [...capacitySet].sort();
      cached = {
        kept,
        instanceTypeRequirement: Requirement.create(
          Labels.InstanceType,
          'In',
          kept.map((it) => it.name),
          reqs.get(Labels.InstanceType).minValues,
        ),
        capacityTypeRequirement:
          capacityTypes.length === 0
            ? undefined
            : Requirement.create(
                Labels.CapacityType,
                'In',
                capacityTypes,
                reqs.get(Labels.CapacityType).minValues,
              ),
        overhead: overhead ?? {},
        minValuesShortfall,
      };
      byMask.set(mask, cached);
    }
    return cached;
  }
}

/** A claim's finalized instance-type options. */
interface FinalOptions<IT> {
  readonly kept: IT[];
  /** `node.kubernetes.io/instance-type In` the kept names (minValues kept). */
  readonly instanceTypeRequirement: Requirement;
  /** `karpenter.sh/capacity-type In` the kept options' compatible capacity types. */
  readonly capacityTypeRequirement: Requirement | undefined;
  readonly overhead: ResourceList;
  readonly minValuesShortfall: string | undefined;
}

/**
 * `base.intersection(other)`, or `base` itself when `other` narrows none of its keys (the usual
 * case once a node claim holds a few pods): saves copying the claim's requirements per attempt.
 * Callers must copy before adding to the result.
 */
function intersectOrSame(base: Requirements, other: Requirements): Requirements {
  const incoming = other.values();
  for (let i = 0; i < incoming.length; i++) {
    const r = incoming[i] as Requirement;
    if (!base.has(r.key)) return base.intersection(other);
    const existing = base.get(r.key);
    if (existing.intersection(r) !== existing) return base.intersection(other);
  }
  return base;
}

/** Key-wise minimum over the keys of both lists (a key missing from one counts as 0). */
function minResources(a: ResourceList, b: ResourceList): ResourceList {
  const out: ResourceList = {};
  for (const k of new Set([...Object.keys(a), ...Object.keys(b)]))
    out[k] = Math.min(a[k] ?? 0, b[k] ?? 0);
  return out;
}

function formatResources(r: ResourceList): string {
  const f = formatResourceList(r);
  return `{${Object.keys(f)
    .sort()
    .map((k) => `${k}: ${f[k]}`)
    .join(', ')}}`;
}
