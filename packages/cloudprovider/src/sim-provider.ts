/**
 * `sim`: a simulated cloud implementing {@link CloudProvider}. It launches nothing; `create`
 * records a machine for the NodeClaim on the cheapest available compatible offering among the
 * NodeClaim's instance-type options, the way upstream's fake and KWOK providers choose.
 * Tests and simulator scenarios shape it by injecting
 * insufficient-capacity errors per instance type / zone / capacity type, drift reasons, NodeClass
 * readiness and one-off create failures. Time comes from an injectable {@link Clock}.
 *
 * Capacity errors follow the AWS provider's model: a launch that hits an injected error raises
 * InsufficientCapacityError and puts the offering into an unavailable-offerings cache for
 * `insufficientCapacityTtlSeconds` (default 180 s, AWS's 3 minutes), during which
 * `getInstanceTypes` reports it `available: false` and `create` skips it.
 */
import type { NodeClaim, NodePool } from '@karpenter-ts/api';
import { Requirements, fits, formatResourceList } from '@karpenter-ts/scheduling';
import { systemClock, type Clock } from './clock.js';
import {
  InsufficientCapacityError,
  NodeClaimNotFoundError,
  NodeClassNotReadyError,
  type OfferingKey,
} from './errors.js';
import { launchNodeClaimName, launchRequests } from './launch-request.js';
import { isOfferingCompatible } from './offering.js';
import type { SimMachineRecord, SimMachineStore } from './sim/machine-store.js';
import type {
  CapacityType,
  CloudProvider,
  InstanceType,
  NodeClassKind,
  Offering,
  RepairPolicy,
} from './types.js';

/** Returns the instance types a NodePool (by name; `''` when unknown) may launch. */
export type InstanceTypeSource = (
  nodePoolName: string,
) => readonly InstanceType[] | Promise<readonly InstanceType[]>;

/** The NodeClass kind the sim provider manages unless told otherwise. */
export const SimNodeClassKind: NodeClassKind = { group: 'karpenter.sim', kind: 'SimNodeClass' };

/** Scheme prefix of sim provider IDs: `sim:///<zone>/<node claim name>`. */
export const SimProviderIDPrefix = 'sim:///';

/** Options of {@link SimCloudProvider}. */
export interface SimCloudProviderOptions {
  /** The catalog: a fixed list for every NodePool, or a function of the NodePool name. */
  readonly instanceTypes: readonly InstanceType[] | InstanceTypeSource;
  /** Default: the system clock. */
  readonly clock?: Clock;
  /** NodeClass kinds reported by getSupportedNodeClasses; default [{@link SimNodeClassKind}]. */
  readonly nodeClasses?: readonly NodeClassKind[];
  /** Seconds an offering stays unavailable after a capacity error; default 180. */
  readonly insufficientCapacityTtlSeconds?: number;
  /** Image ID written to launched NodeClaims; default `sim-image`. */
  readonly imageID?: string;
  /** Default: Ready False or Unknown for 10 minutes (upstream KWOK). */
  readonly repairPolicies?: readonly RepairPolicy[];
  /**
   * Durable storage of the machines (e.g. a {@link FileMachineStore}), so they survive a restart
   * of the process and are shared by every instance on the same store, as a real cloud's are.
   * Default: memory only. The unavailable-offerings cache, injected errors, drift reasons and
   * reservation counts stay in memory (upstream keeps its offering cache in the controller too).
   */
  readonly store?: SimMachineStore;
  /**
   * Label keys a NodeClaim may require although an offering leaves them undefined (see
   * isOfferingCompatible; default the well-known labels). A sim over a real provider's catalog
   * passes that provider's well-known labels too (`karpenter.azure.com/sku-family`, ...), as the
   * provider's own launch does.
   */
  readonly allowUndefinedLabels?: ReadonlySet<string>;
}

/** Matches offerings; an omitted field matches every value. */
export interface OfferingSelector {
  readonly instanceType?: string;
  readonly zone?: string;
  readonly capacityType?: CapacityType;
}

/** A machine the sim cloud is running. */
export interface SimInstance {
  readonly providerID: string;
  readonly nodeClaimName: string;
  readonly instanceType: string;
  readonly zone: string;
  readonly capacityType: CapacityType;
  /** USD per hour of the offering it launched on. */
  readonly price: number;
  /** Clock milliseconds at launch. */
  readonly launchedAt: number;
}

interface InjectedCapacityError {
  readonly selector: OfferingSelector;
  /** Launches left to fail; Infinity until removed. */
  remaining: number;
}

type Machine = SimMachineRecord;

interface Candidate {
  readonly instanceType: InstanceType;
  readonly offering: Offering;
}

const NodePoolLabel = 'karpenter.sh/nodepool';

/**
 * The simulated cloud. All state is in memory; every method is safe to call in any order.
 * Returned NodeClaims are copies: mutating them does not change the cloud.
 */
export class SimCloudProvider implements CloudProvider {
  readonly name = 'sim';
  readonly #source: InstanceTypeSource;
  readonly #clock: Clock;
  readonly #nodeClasses: readonly NodeClassKind[];
  readonly #iceTtlMs: number;
  readonly #imageID: string;
  readonly #repairPolicies: readonly RepairPolicy[];
  readonly #machines = new Map<string, Machine>(); // by providerID
  readonly #store: SimMachineStore | undefined;
  readonly #injected = new Set<InjectedCapacityError>();
  readonly #unavailable = new Map<string, { key: OfferingKey; until: number }>();
  readonly #reservationsUsed = new Map<string, number>();
  readonly #drift = new Map<string, string>();
  readonly #notReadyNodeClasses = new Set<string>();
  readonly #allowUndefined: ReadonlySet<string> | undefined;
  #nextCreateErrors: Error[] = [];

  constructor(options: SimCloudProviderOptions) {
    const catalog = options.instanceTypes;
    this.#source = typeof catalog === 'function' ? catalog : () => catalog;
    this.#clock = options.clock ?? systemClock;
    this.#nodeClasses = options.nodeClasses ?? [SimNodeClassKind];
    const ttl = options.insufficientCapacityTtlSeconds ?? 180;
    if (!(ttl >= 0))
      throw new RangeError(`insufficientCapacityTtlSeconds must be >= 0, got ${ttl}`);
    this.#iceTtlMs = ttl * 1000;
    this.#imageID = options.imageID ?? 'sim-image';
    this.#store = options.store;
    this.#allowUndefined = options.allowUndefinedLabels;
    this.#repairPolicies = options.repairPolicies ?? [
      { conditionType: 'Ready', conditionStatus: 'False', tolerationSeconds: 600 },
      { conditionType: 'Ready', conditionStatus: 'Unknown', tolerationSeconds: 600 },
    ];
  }

  /**
   * Launches the NodeClaim on the cheapest available offering compatible with its requirements,
   * among instance types whose requirements intersect them and whose allocatable fits
   * `spec.resources.requests`; ties go to the instance type name, then zone, then capacity type.
   * Idempotent per NodeClaim name: a second create returns the running machine, also from
   * another process on the same store (a controller restarted after the launch but before it
   * recorded the result finds the machine instead of launching a second one, as upstream's
   * providers find theirs by the NodeClaim tag).
   * Raises NodeClassNotReadyError (NodeClass marked not ready), InsufficientCapacityError (no
   * candidate, or the chosen offering has an injected capacity error), CreateError (bad requests),
   * or an error queued with {@link failNextCreate}.
   */
  async create(nodeClaim: NodeClaim): Promise<NodeClaim> {
    const queued = this.#nextCreateErrors.shift();
    if (queued !== undefined) throw queued;
    const nodeClassName = nodeClaim.spec.nodeClassRef.name;
    if (this.#notReadyNodeClasses.has(nodeClassName))
      throw new NodeClassNotReadyError(nodeClassName);
    const name = launchNodeClaimName(nodeClaim);
    this.#refresh();
    const running = this.#findByName(name);
    if (running !== undefined) return view(running);

    const requests = launchRequests(nodeClaim, name);
    const requirements = Requirements.fromNodeSelectorRequirements(nodeClaim.spec.requirements);
    const instanceTypes = await this.#instanceTypes(
      nodeClaim.metadata.labels?.[NodePoolLabel] ?? '',
    );
    const candidates: Candidate[] = [];
    for (const instanceType of instanceTypes) {
      if (!requirements.isIntersecting(instanceType.requirements)) continue;
      if (!fits(requests, instanceType.allocatable())) continue;
      for (const offering of instanceType.offerings) {
        if (
          offering.available &&
          isOfferingCompatible(offering, requirements, this.#allowUndefined)
        ) {
          candidates.push({ instanceType, offering });
        }
      }
    }
    if (candidates.length === 0) {
      throw new InsufficientCapacityError(
        `node claim ${name}: no instance type option has an available compatible offering that fits the requests`,
      );
    }
    candidates.sort(compareCandidates);
    const chosen = candidates[0] as Candidate;
    const key = offeringKey(chosen.instanceType.name, chosen.offering);
    const injected = this.#matchInjected(key);
    if (injected !== undefined) {
      injected.remaining -= 1;
      if (injected.remaining <= 0) this.#injected.delete(injected);
      this.#unavailable.set(keyString(key), { key, until: this.#clock.now() + this.#iceTtlMs });
      throw new InsufficientCapacityError(
        `insufficient capacity for ${key.capacityType} ${key.instanceType} in ${key.zone}`,
        { offerings: [key] },
      );
    }
    if (chosen.offering.capacityType === 'reserved') {
      const used = this.#reservationsUsed.get(keyString(key)) ?? 0;
      this.#reservationsUsed.set(keyString(key), used + 1);
    }
    return view(this.#record(nodeClaim, name, requirements, chosen));
  }

  /**
   * Terminates the machine (found by `status.providerID`, else by NodeClaim name). Raises
   * NodeClaimNotFoundError when there is no such machine, which is how callers learn that
   * termination finished (upstream calls Delete until it sees NotFound).
   */
  async delete(nodeClaim: NodeClaim): Promise<void> {
    this.#refresh();
    const providerID = nodeClaim.status?.providerID;
    const machine =
      providerID !== undefined && providerID !== ''
        ? this.#machines.get(providerID)
        : this.#findByName(nodeClaim.metadata.name ?? '');
    if (machine === undefined) {
      throw new NodeClaimNotFoundError(providerID || (nodeClaim.metadata.name ?? ''));
    }
    this.#machines.delete(machine.instance.providerID);
    this.#persist();
  }

  /**
   * The NodeClaim view of a running machine (`metadata.creationTimestamp` is its launch time).
   * Raises NodeClaimNotFoundError for unknown IDs.
   */
  async get(providerID: string): Promise<NodeClaim> {
    this.#refresh();
    const machine = this.#machines.get(providerID);
    if (machine === undefined) throw new NodeClaimNotFoundError(providerID);
    return view(machine);
  }

  /**
   * Every running machine as a NodeClaim, in launch order; `metadata.creationTimestamp` is the
   * machine's launch time (garbage collection measures an orphan's age from it).
   */
  async list(): Promise<NodeClaim[]> {
    this.#refresh();
    return [...this.#machines.values()].map(view);
  }

  /**
   * The catalog for the NodePool, with offerings in the unavailable-offerings cache (and used-up
   * reservations) reported `available: false`. Types without such offerings are returned as-is.
   */
  async getInstanceTypes(nodePool: NodePool): Promise<InstanceType[]> {
    return [...(await this.#instanceTypes(nodePool.metadata.name ?? ''))];
  }

  /** The reason set with {@link setDrifted} for this NodeClaim's name, or `''`. */
  async isDrifted(nodeClaim: NodeClaim): Promise<string> {
    return this.#drift.get(nodeClaim.metadata.name ?? '') ?? '';
  }

  repairPolicies(): readonly RepairPolicy[] {
    return this.#repairPolicies;
  }

  getSupportedNodeClasses(): readonly NodeClassKind[] {
    return this.#nodeClasses;
  }

  /**
   * Makes launches on matching offerings fail with InsufficientCapacityError: the next `times`
   * launches (default: every launch until the returned function is called). Each failure also
   * caches the offering as unavailable for the TTL, so the next create picks another offering.
   */
  injectInsufficientCapacity(
    selector: OfferingSelector,
    options: { times?: number } = {},
  ): () => void {
    const times = options.times ?? Number.POSITIVE_INFINITY;
    if (!(times >= 1)) throw new RangeError(`times must be >= 1, got ${times}`);
    const entry: InjectedCapacityError = { selector: { ...selector }, remaining: times };
    this.#injected.add(entry);
    return () => {
      this.#injected.delete(entry);
    };
  }

  /**
   * Puts matching offerings of the current catalog straight into the unavailable-offerings cache
   * for the TTL (as if a launch had just failed there), without failing a launch first.
   */
  async markUnavailable(selector: OfferingSelector, nodePoolName = ''): Promise<void> {
    const until = this.#clock.now() + this.#iceTtlMs;
    for (const it of await this.#source(nodePoolName)) {
      for (const o of it.offerings) {
        const key = offeringKey(it.name, o);
        if (matches(selector, key)) this.#unavailable.set(keyString(key), { key, until });
      }
    }
  }

  /** Offerings currently in the unavailable-offerings cache (entries past their TTL are dropped). */
  unavailableOfferings(): OfferingKey[] {
    this.#expireUnavailable();
    return [...this.#unavailable.values()].map((e) => e.key);
  }

  /** Removes every injected capacity error and empties the unavailable-offerings cache. */
  clearInsufficientCapacity(): void {
    this.#injected.clear();
    this.#unavailable.clear();
  }

  /** Makes the next create raise `error` (queued; one error per create). */
  failNextCreate(error: Error): void {
    this.#nextCreateErrors.push(error);
  }

  /** Sets (or with `''` clears) the drift reason isDrifted reports for a NodeClaim name. */
  setDrifted(nodeClaimName: string, reason: string): void {
    if (reason === '') this.#drift.delete(nodeClaimName);
    else this.#drift.set(nodeClaimName, reason);
  }

  /** Marks a NodeClass (by name) ready or not; create raises NodeClassNotReadyError for not-ready ones. */
  setNodeClassReady(nodeClassName: string, ready: boolean): void {
    if (ready) this.#notReadyNodeClasses.delete(nodeClassName);
    else this.#notReadyNodeClasses.add(nodeClassName);
  }

  /** The running machines, in launch order (for cost reports and assertions). */
  instances(): SimInstance[] {
    this.#refresh();
    return [...this.#machines.values()].map((m) => m.instance);
  }

  async #instanceTypes(nodePoolName: string): Promise<readonly InstanceType[]> {
    const types = await this.#source(nodePoolName);
    this.#expireUnavailable();
    if (this.#unavailable.size === 0 && this.#reservationsUsed.size === 0) return types;
    return types.map((it) => this.#withCurrentAvailability(it));
  }

  #withCurrentAvailability(it: InstanceType): InstanceType {
    let changed = false;
    const offerings = it.offerings.map((o) => {
      const key = keyString(offeringKey(it.name, o));
      const used = this.#reservationsUsed.get(key) ?? 0;
      const remaining =
        o.reservationCapacity === undefined ? undefined : Math.max(0, o.reservationCapacity - used);
      const available =
        o.available && !this.#unavailable.has(key) && (remaining === undefined || remaining > 0);
      if (available === o.available && remaining === o.reservationCapacity) return o;
      changed = true;
      return {
        ...o,
        available,
        ...(remaining === undefined ? {} : { reservationCapacity: remaining }),
      };
    });
    if (!changed) return it;
    return {
      name: it.name,
      requirements: it.requirements,
      offerings,
      capacity: it.capacity,
      overhead: it.overhead,
      allocatable: () => it.allocatable(),
    };
  }

  #expireUnavailable(): void {
    const now = this.#clock.now();
    for (const [k, entry] of this.#unavailable) if (entry.until <= now) this.#unavailable.delete(k);
  }

  #matchInjected(key: OfferingKey): InjectedCapacityError | undefined {
    for (const entry of this.#injected) if (matches(entry.selector, key)) return entry;
    return undefined;
  }

  /** Reloads the machines when the store changed (another process, or this one restarted). */
  #refresh(): void {
    const stored = this.#store?.load();
    if (stored === undefined) return;
    this.#machines.clear();
    for (const m of stored) this.#machines.set(m.instance.providerID, m);
  }

  #persist(): void {
    this.#store?.save([...this.#machines.values()]);
  }

  #findByName(name: string): Machine | undefined {
    for (const m of this.#machines.values()) if (m.instance.nodeClaimName === name) return m;
    return undefined;
  }

  #record(
    nodeClaim: NodeClaim,
    name: string,
    requirements: Requirements,
    chosen: Candidate,
  ): Machine {
    // The catalog lookup above awaited: re-read the store and check again, then record and save
    // without yielding, so the read-modify-write is one step for this process.
    this.#refresh();
    const running = this.#findByName(name);
    if (running !== undefined) return running;
    const { instanceType, offering } = chosen;
    const providerID = `${SimProviderIDPrefix}${offering.zone}/${name}`;
    // Resolve labels from what the node claim asked, the instance type and the offering. A key
    // still holding several values (e.g. an os the claim left open) gets its first value, as
    // upstream's fake provider does, since a real kubelet reports exactly one.
    const resolved = requirements.intersection(instanceType.requirements);
    resolved.add(...offering.requirements.values());
    const labels: Record<string, string> = {};
    for (const r of resolved.values()) {
      const first = r.complement ? undefined : r.valuesList()[0];
      if (first !== undefined) labels[r.key] = first;
    }
    const launched: NodeClaim = structuredClone(nodeClaim);
    launched.metadata.labels = {
      ...launched.metadata.labels,
      ...labels,
      'node.kubernetes.io/instance-type': instanceType.name,
      'topology.kubernetes.io/zone': offering.zone,
      'karpenter.sh/capacity-type': offering.capacityType,
    };
    launched.status = {
      ...launched.status,
      providerID,
      imageID: this.#imageID,
      capacity: formatResourceList(instanceType.capacity),
      allocatable: formatResourceList(instanceType.allocatable()),
    };
    const machine: Machine = {
      nodeClaim: launched,
      instance: {
        providerID,
        nodeClaimName: name,
        instanceType: instanceType.name,
        zone: offering.zone,
        capacityType: offering.capacityType,
        price: offering.price,
        launchedAt: this.#clock.now(),
      },
    };
    this.#machines.set(providerID, machine);
    this.#persist();
    return machine;
  }
}

/**
 * The NodeClaim a caller gets for a machine: a copy whose `metadata.creationTimestamp` is the
 * machine's `launchedAt` (not the requesting NodeClaim's creation), as a real provider reports
 * its instance's launch time.
 */
function view(machine: Machine): NodeClaim {
  const nodeClaim = structuredClone(machine.nodeClaim);
  nodeClaim.metadata.creationTimestamp = new Date(machine.instance.launchedAt);
  return nodeClaim;
}

function offeringKey(instanceType: string, offering: Offering): OfferingKey {
  return { instanceType, zone: offering.zone, capacityType: offering.capacityType };
}

function keyString(key: OfferingKey): string {
  return `${key.capacityType}:${key.instanceType}:${key.zone}`;
}

function matches(selector: OfferingSelector, key: OfferingKey): boolean {
  return (
    (selector.instanceType === undefined || selector.instanceType === key.instanceType) &&
    (selector.zone === undefined || selector.zone === key.zone) &&
    (selector.capacityType === undefined || selector.capacityType === key.capacityType)
  );
}

function compareCandidates(a: Candidate, b: Candidate): number {
  if (a.offering.price !== b.offering.price) return a.offering.price - b.offering.price;
  return (
    cmp(a.instanceType.name, b.instanceType.name) ||
    cmp(a.offering.zone, b.offering.zone) ||
    cmp(a.offering.capacityType, b.offering.capacityType)
  );
}

function cmp(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
