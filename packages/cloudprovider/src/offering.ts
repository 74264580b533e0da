/**
 * Offerings: building them and choosing among them, as upstream does
 * (kubernetes-sigs/karpenter pkg/cloudprovider/types.go `Offerings`).
 */
import { Requirements, WELL_KNOWN_LABELS_ALLOW_UNDEFINED } from '@karpenter-ts/scheduling';
import { OfferingCompatibility } from './offering-compatibility.js';
import type { CapacityType, InstanceType, Offering } from './types.js';

/** Label keys an offering's requirements always define. */
export const CapacityTypeLabel = 'karpenter.sh/capacity-type';
export const ZoneLabel = 'topology.kubernetes.io/zone';

/** The parts of an offering. */
export interface OfferingParts {
  readonly zone: string;
  readonly capacityType: CapacityType;
  /** USD per hour; a non-negative finite number. */
  readonly price: number;
  /** Default true. */
  readonly available?: boolean;
  /** Reserved offerings only: instances the reservation still holds. */
  readonly reservationCapacity?: number;
  /** Further single-valued labels the offering pins (e.g. a reservation-id label), key → value. */
  readonly labels?: Readonly<Record<string, string>>;
}

/**
 * Builds an {@link Offering} whose requirements pin `karpenter.sh/capacity-type` and
 * `topology.kubernetes.io/zone` (and any extra `labels`) with `In` single values. Throws
 * TypeError for an empty zone or a negative/non-finite price.
 */
export function createOffering(parts: OfferingParts): Offering {
  if (parts.zone === '') throw new TypeError('offering zone must not be empty');
  if (!Number.isFinite(parts.price) || parts.price < 0) {
    throw new TypeError(`offering price must be a non-negative number, got ${parts.price}`);
  }
  const labels = {
    ...parts.labels,
    [CapacityTypeLabel]: parts.capacityType,
    [ZoneLabel]: parts.zone,
  };
  return {
    requirements: Requirements.fromLabels(labels),
    price: parts.price,
    available: parts.available ?? true,
    zone: parts.zone,
    capacityType: parts.capacityType,
    ...(parts.reservationCapacity === undefined
      ? {}
      : { reservationCapacity: parts.reservationCapacity }),
  };
}

/**
 * Whether the offering can serve a NodeClaim (or pod) with these requirements: the offering's
 * requirements are compatible with them, the keys in `allowUndefined` (default: the well-known
 * labels) being allowed although the requirements leave them undefined (upstream
 * `Offerings.Compatible` with `AllowUndefinedWellKnownLabels`). Providers whose offerings pin
 * further labels (a reservation ID) pass a superset.
 */
export function isOfferingCompatible(
  offering: Offering,
  requirements: Requirements,
  allowUndefined: ReadonlySet<string> = WELL_KNOWN_LABELS_ALLOW_UNDEFINED,
): boolean {
  return requirements.isCompatible(offering.requirements, allowUndefined);
}

/** The offerings that are available and compatible with `requirements` (all available ones when omitted). */
export function availableCompatibleOfferings(
  offerings: readonly Offering[],
  requirements?: Requirements,
): Offering[] {
  return offerings.filter(
    (o) => o.available && (requirements === undefined || isOfferingCompatible(o, requirements)),
  );
}

/**
 * The cheapest available offering compatible with `requirements` (any available one when
 * omitted; an {@link OfferingCompatibility} shares its answers across calls); ties keep the
 * earlier offering. Undefined when there is none.
 */
export function cheapestOffering(
  offerings: readonly Offering[],
  requirements?: Requirements | OfferingCompatibility,
): Offering | undefined {
  const compatibility =
    requirements === undefined || requirements instanceof OfferingCompatibility
      ? requirements
      : new OfferingCompatibility(requirements);
  let best: Offering | undefined;
  for (const o of offerings) {
    if (!o.available || (compatibility !== undefined && !compatibility.compatible(o))) {
      continue;
    }
    if (best === undefined || o.price < best.price) best = o;
  }
  return best;
}

/**
 * The price (USD/hour) used to order instance types: that of the cheapest available compatible
 * offering, or `Infinity` when the instance type has none (upstream uses MaxFloat64).
 */
export function instanceTypePrice(
  instanceType: InstanceType,
  requirements?: Requirements | OfferingCompatibility,
): number {
  return cheapestOffering(instanceType.offerings, requirements)?.price ?? Number.POSITIVE_INFINITY;
}

/**
 * Instance types sorted by {@link instanceTypePrice} ascending, ties by name (upstream
 * `InstanceTypes.OrderByPrice`). Returns a new array.
 */
export function orderByPrice(
  instanceTypes: readonly InstanceType[],
  requirements?: Requirements,
): InstanceType[] {
  // One compatibility for every type: their offerings pin the same few zones and capacity types.
  const compatibility = requirements && new OfferingCompatibility(requirements);
  const priced = instanceTypes.map((it) => ({ it, price: instanceTypePrice(it, compatibility) }));
  priced.sort((a, b) =>
    a.price !== b.price
      ? a.price - b.price
      : a.it.name < b.it.name
        ? -1
        : a.it.name > b.it.name
          ? 1
          : 0,
  );
  return priced.map((p) => p.it);
}

/** Capacity types in the order a launch prefers them (upstream: reserved, then spot, then on-demand). */
export const LaunchCapacityTypeOrder: readonly CapacityType[] = ['reserved', 'spot', 'on-demand'];

/**
 * Worst-case price (USD/hour) of launching with these offerings, as consolidation estimates it:
 * among the offerings compatible with `requirements`, take the first capacity type present in
 * the order reserved → spot → on-demand and return its most expensive offering's price.
 * `Infinity` when no offering is compatible. Availability is not checked here: pass the
 * available offerings when that matters (as upstream callers do).
 */
export function worstCaseLaunchPrice(
  offerings: readonly Offering[],
  requirements?: Requirements,
): number {
  const compatible =
    requirements === undefined
      ? offerings
      : offerings.filter((o) => isOfferingCompatible(o, requirements));
  for (const capacityType of LaunchCapacityTypeOrder) {
    let worst = Number.NEGATIVE_INFINITY;
    for (const o of compatible)
      if (o.capacityType === capacityType && o.price > worst) worst = o.price;
    if (worst !== Number.NEGATIVE_INFINITY) return worst;
  }
  return Number.POSITIVE_INFINITY;
}
