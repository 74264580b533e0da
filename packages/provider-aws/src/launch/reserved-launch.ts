/**
 * How a launch into a capacity reservation is made (upstream's reference 4.2): which market a
 * reserved launch uses, which of its offerings are tried, and what the launch template and
 * CreateFleet say for that market. Prices are USD/hour; reservation capacity is instances.
 */
import type { InstanceType, Offering } from '@karpenter-ts/cloudprovider';
import { AwsLabels } from '../labels.js';

/** An instance type with the offerings a launch may use. */
export interface LaunchOption {
  readonly it: Pick<InstanceType, 'name'>;
  readonly offerings: Offering[];
}

/** The market of a reserved launch: an ODCR, a capacity block or an interruptible ODCR. */
export type ReservationMarket = 'default' | 'capacity-block' | 'interruptible';

/** Upstream's tie order between reservation markets of equal price. */
const ReservationMarketOrder: readonly ReservationMarket[] = [
  'default',
  'capacity-block',
  'interruptible',
];

/** The capacity reservation an offering launches into; undefined for spot and on-demand. */
export const reservationIdOf = (o: Offering): string | undefined =>
  o.requirements.labels()[AwsLabels.CapacityReservationID];

/** The market of a reserved offering, from its reservation labels. */
function reservationMarketOf(o: Offering): ReservationMarket {
  const labels = o.requirements.labels();
  if (labels[AwsLabels.CapacityReservationType] === 'capacity-block') return 'capacity-block';
  return labels[AwsLabels.CapacityReservationInterruptible] === 'true'
    ? 'interruptible'
    : 'default';
}

const cheapest = (offerings: readonly Offering[]): number =>
  Math.min(...offerings.map((o) => o.price));

/**
 * Upstream's reserved-launch filters (reference 4.2 step 3): one market only (the cheapest;
 * ties default ODCR, capacity block, interruptible ODCR), only the cheapest type for a capacity
 * block, and per type and zone the reservation with the most capacity left.
 */
export function reservedLaunchCandidates<C extends LaunchOption>(
  candidates: readonly C[],
): {
  candidates: C[];
  market: ReservationMarket;
} {
  let market: ReservationMarket = 'default';
  let best = Number.POSITIVE_INFINITY;
  for (const m of ReservationMarketOrder) {
    const offerings = candidates.flatMap((c) =>
      c.offerings.filter((o) => reservationMarketOf(o) === m),
    );
    if (offerings.length > 0 && cheapest(offerings) < best) {
      best = cheapest(offerings);
      market = m;
    }
  }
  let out = candidates
    .map((c) => ({ ...c, offerings: c.offerings.filter((o) => reservationMarketOf(o) === market) }))
    .filter((c) => c.offerings.length > 0);
  if (market === 'capacity-block') {
    const first = [...out].sort(
      (a, b) => cheapest(a.offerings) - cheapest(b.offerings) || a.it.name.localeCompare(b.it.name),
    )[0];
    out = first ? [first] : [];
  }
  out = out.map((c) => {
    const byZone = new Map<string, Offering>();
    for (const o of c.offerings) {
      const kept = byZone.get(o.zone);
      if (!kept || (o.reservationCapacity ?? 0) > (kept.reservationCapacity ?? 0))
        byZone.set(o.zone, o);
    }
    return { ...c, offerings: [...byZone.values()] };
  });
  return { candidates: out, market };
}

/**
 * Per market, upstream's CreateFleet target capacity type and the launch template's market type:
 * an ODCR launches as on-demand, a capacity block as capacity-block, an interruptible ODCR as
 * reserved-capacity.
 */
export const ReservationMarketLaunch: Readonly<
  Record<
    ReservationMarket,
    {
      readonly fleetTarget: 'on-demand' | 'capacity-block' | 'reserved-capacity';
      readonly templateMarket: {
        readonly marketType?: 'capacity-block' | 'interruptible-capacity-reservation';
      };
    }
  >
> = {
  default: { fleetTarget: 'on-demand', templateMarket: {} },
  'capacity-block': {
    fleetTarget: 'capacity-block',
    templateMarket: { marketType: 'capacity-block' },
  },
  interruptible: {
    fleetTarget: 'reserved-capacity',
    templateMarket: { marketType: 'interruptible-capacity-reservation' },
  },
};
