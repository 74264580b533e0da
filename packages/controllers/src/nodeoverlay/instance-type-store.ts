/**
 * The instance types as NodeOverlays change them (upstream `nodeoverlay.InstanceTypeStore`): one
 * evaluation per pass of the overlay controller, holding for every
 * NodePool × instance type the price change of each offering and the resources added to
 * capacity, and the NodePools it covered. The overlaid cloud provider reads it in
 * `getInstanceTypes`; a pool the evaluation has not covered is refused with
 * UnevaluatedNodePoolError until the next evaluation.
 */
import { UnevaluatedNodePoolError, totalOverhead } from '@karpenter-ts/cloudprovider';
import type { InstanceType, Offering } from '@karpenter-ts/cloudprovider';
import type { ResourceList } from '@karpenter-ts/scheduling';
import { adjustedPrice } from './adjusted-price.js';

/** The price change an overlay made to one offering. */
export interface OfferingPriceUpdate {
  /** `spec.price` or `spec.priceAdjustment` of the winning overlay. */
  readonly change: string;
  /** The winning (highest-weight) overlay. */
  readonly overlay: string;
  /** Weight of the lowest-weight overlay that selected this offering so far (conflict check). */
  lowestWeight: number;
  /** That overlay's name. */
  lowestWeightOverlay: string;
}

/** The resources overlays added to one instance type's capacity. */
export interface CapacityUpdate {
  /** Resource name → count (canonical integers), the higher-weight overlay's value winning per resource. */
  readonly resources: Record<string, number>;
  /** Overlays that contributed, highest weight first. */
  readonly overlays: string[];
  lowestWeight: number;
  lowestWeightOverlay: string;
  /** Resource names of the lowest-weight overlay so far (conflict check). */
  lowestWeightResources: ReadonlySet<string>;
}

/** What overlays change on one instance type of one NodePool. */
export interface InstanceTypeUpdate {
  /** By offering key ({@link offeringKey}). */
  readonly price: Map<string, OfferingPriceUpdate>;
  capacity: CapacityUpdate | undefined;
}

/** The key of an offering within its instance type: its requirements as text. */
export function offeringKey(offering: Offering): string {
  return offering.requirements.toString();
}

/** One evaluation: NodePool name → instance type name → update, and the pools it covered. */
export class NodeOverlayEvaluation {
  readonly updates = new Map<string, Map<string, InstanceTypeUpdate>>();
  readonly evaluatedNodePools = new Set<string>();
  /** The provider's instance types of each evaluated pool, as listed for this evaluation. */
  readonly providerInstanceTypes = new Map<string, readonly InstanceType[]>();
  /** Overlaid copies, so the same provider object yields the same overlaid object. */
  readonly #cache = new Map<string, WeakMap<InstanceType, InstanceType>>();

  /** The update of one instance type of a pool, created empty when absent. */
  updateOf(nodePool: string, instanceType: string): InstanceTypeUpdate {
    let pool = this.updates.get(nodePool);
    if (pool === undefined) this.updates.set(nodePool, (pool = new Map()));
    let update = pool.get(instanceType);
    if (update === undefined)
      pool.set(instanceType, (update = { price: new Map(), capacity: undefined }));
    return update;
  }

  /**
   * Whether an overlay changed the price of any of `instanceTypes` in `nodePool` (a launch of
   * such a claim follows the overlaid prices, see OverlaidCloudProvider).
   */
  pricesAny(nodePool: string, instanceTypes: readonly string[]): boolean {
    return instanceTypes.some((name) => (this.find(nodePool, name)?.price.size ?? 0) > 0);
  }

  /** The update of one instance type of a pool, if any overlay selected it. */
  find(nodePool: string, instanceType: string): InstanceTypeUpdate | undefined {
    return this.updates.get(nodePool)?.get(instanceType);
  }

  /**
   * `types` as the overlays change them for `nodePool`: types no overlay selected are returned
   * as they are; the others are copies with the overlaid offering prices
   * (`priceOverlayApplied`) and the added capacity (`capacityOverlayApplied`, allocatable grown
   * by the same resources).
   * @throws UnevaluatedNodePoolError when this evaluation did not cover `nodePool`.
   */
  apply(nodePool: string, types: readonly InstanceType[]): InstanceType[] {
    if (!this.evaluatedNodePools.has(nodePool)) throw new UnevaluatedNodePoolError(nodePool);
    const updates = this.updates.get(nodePool);
    if (updates === undefined) return [...types];
    let cache = this.#cache.get(nodePool);
    if (cache === undefined) this.#cache.set(nodePool, (cache = new WeakMap()));
    return types.map((it) => {
      const update = updates.get(it.name);
      if (update === undefined) return it;
      let out = cache.get(it);
      if (out === undefined) cache.set(it, (out = overlaidInstanceType(it, update)));
      return out;
    });
  }
}

/**
 * Holds the current {@link NodeOverlayEvaluation}, swapped whole by the overlay controller so
 * readers never see half an evaluation. Starts with an empty evaluation that covers no pool.
 */
export class InstanceTypeStore {
  #current = new NodeOverlayEvaluation();

  /** The evaluation readers use now. */
  get current(): NodeOverlayEvaluation {
    return this.#current;
  }

  /** Replaces the evaluation (the overlay controller, after each pass). */
  replace(evaluation: NodeOverlayEvaluation): void {
    this.#current = evaluation;
  }

  /** See {@link NodeOverlayEvaluation.apply}; raises UnevaluatedNodePoolError. */
  applyAll(nodePool: string, types: readonly InstanceType[]): InstanceType[] {
    return this.#current.apply(nodePool, types);
  }
}

/** A copy of `it` with `update` applied (requirements and overhead shared). */
function overlaidInstanceType(it: InstanceType, update: InstanceTypeUpdate): InstanceType {
  const offerings =
    update.price.size === 0
      ? it.offerings
      : it.offerings.map((o): Offering => {
          const change = update.price.get(offeringKey(o));
          return change === undefined
            ? o
            : { ...o, price: adjustedPrice(o.price, change.change), priceOverlayApplied: true };
        });
  const added = update.capacity?.resources;
  if (added === undefined || Object.keys(added).length === 0) {
    return {
      name: it.name,
      requirements: it.requirements,
      offerings,
      capacity: it.capacity,
      overhead: it.overhead,
      allocatable: () => it.allocatable(),
      ...(it.capacityOverlayApplied ? { capacityOverlayApplied: true } : {}),
    };
  }
  const capacity: ResourceList = { ...it.capacity, ...added };
  let allocatable: ResourceList | undefined;
  return {
    name: it.name,
    requirements: it.requirements,
    offerings,
    capacity,
    overhead: it.overhead,
    // The provider's allocatable (its own memory math kept), with each added resource less any
    // overhead reserved of it.
    allocatable() {
      if (allocatable === undefined) {
        const reserved = totalOverhead(it.overhead);
        allocatable = { ...it.allocatable() };
        for (const [name, value] of Object.entries(added))
          allocatable[name] = Math.max(0, value - (reserved[name] ?? 0));
      }
      return allocatable;
    },
    capacityOverlayApplied: true,
  };
}
