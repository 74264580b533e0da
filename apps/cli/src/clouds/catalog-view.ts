/**
 * The instance types a NodePool with given requirements could launch, priced the way the
 * scheduler orders them.
 */
import type { InstanceType, Offering } from '@karpenter-ts/cloudprovider';
import {
  formatResourceList,
  Requirements,
  WELL_KNOWN_LABELS_ALLOW_UNDEFINED,
} from '@karpenter-ts/scheduling';
import { roundUsd } from '../output/units.js';

/** One launchable instance type. */
export interface CatalogEntry {
  readonly instanceType: InstanceType;
  /** Labels the instance type pins to one value (arch, os, instance type, provider labels). */
  readonly labels: Record<string, string>;
  /** Offerings compatible with the requirements (available or not), cheapest first. */
  readonly offerings: readonly Offering[];
  /** USD/hour of the cheapest available compatible offering. */
  readonly price: number;
}

/**
 * Instance types whose requirements intersect `requirements` and that have at least one
 * available offering compatible with them (upstream's three-way filter minus the resource fit),
 * cheapest first (ties by name), as in upstream `InstanceTypes.OrderByPrice`. `allowUndefined`:
 * label keys the requirements may leave undefined (default Karpenter's well-known labels).
 */
export function launchableInstanceTypes(
  instanceTypes: readonly InstanceType[],
  requirements: Requirements,
  allowUndefined: ReadonlySet<string> = WELL_KNOWN_LABELS_ALLOW_UNDEFINED,
): CatalogEntry[] {
  const entries: CatalogEntry[] = [];
  for (const instanceType of instanceTypes) {
    if (!instanceType.requirements.isIntersecting(requirements)) continue;
    const offerings = instanceType.offerings
      .filter((o) => requirements.isCompatible(o.requirements, allowUndefined))
      .sort(
        (a, b) =>
          a.price - b.price || compare(a.zone, b.zone) || compare(a.capacityType, b.capacityType),
      );
    const cheapest = offerings.find((o) => o.available);
    if (!cheapest) continue;
    entries.push({
      instanceType,
      labels: instanceType.requirements.labels(),
      offerings,
      price: cheapest.price,
    });
  }
  return entries.sort(
    (a, b) => a.price - b.price || compare(a.instanceType.name, b.instanceType.name),
  );
}

/** The JSON shape of one catalog entry (`karpenter-ts catalog --output json`). */
export interface CatalogEntryJson {
  name: string;
  labels: Record<string, string>;
  /** Resource name → Kubernetes quantity string. */
  capacity: Record<string, string>;
  allocatable: Record<string, string>;
  offerings: { zone: string; capacityType: string; pricePerHour: number; available: boolean }[];
}

/** Converts an entry to its JSON shape (quantities as Kubernetes quantity strings). */
export function catalogEntryJson(entry: CatalogEntry): CatalogEntryJson {
  return {
    name: entry.instanceType.name,
    labels: entry.labels,
    capacity: formatResourceList(entry.instanceType.capacity),
    allocatable: formatResourceList(entry.instanceType.allocatable()),
    offerings: entry.offerings.map((o) => ({
      zone: o.zone,
      capacityType: o.capacityType,
      pricePerHour: roundUsd(o.price),
      available: o.available,
    })),
  };
}

function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
