/**
 * Resource lists as canonical integers, and the arithmetic the scheduler does on them
 * (upstream `pkg/utils/resources`). Every function is pure: inputs are never mutated.
 */
import { parseQuantity, quantityToMilli, quantityToValue, QuantityError } from './quantity.js';

/**
 * Resource name → amount as an exact integer: `cpu` in millicores; every other resource (memory,
 * ephemeral-storage, pods, hugepages-*, extended resources such as nvidia.com/gpu) in base units
 * (bytes for memory, storage and hugepages; a count otherwise), rounded up.
 */
export type ResourceList = Record<string, number>;

/** The one resource kept in thousandths; Kubernetes lets cpu be requested in millicores. */
export const CPU = 'cpu';

const MEMORY_LIKE = /^(memory|ephemeral-storage|storage|hugepages-.+)$/;
const GI = 1024 ** 3;
const MI = 1024 ** 2;

/**
 * Parsed quantity strings, as millis (cpu) and as values (the rest): a cluster's pods repeat a
 * handful of spellings ("500m", "1Gi"), and parsing dominates building pod requests. Bounded.
 */
const MILLI_MEMO = new Map<string, number>();
const VALUE_MEMO = new Map<string, number>();
const QUANTITY_MEMO_LIMIT = 4096;

/** Thrown by `resourceListFromQuantities` with the resource name and the quantity's problem. */
export class ResourceListError extends Error {
  readonly resource: string;

  constructor(resource: string, message: string) {
    super(`resource ${JSON.stringify(resource)}: ${message}`);
    this.name = 'ResourceListError';
    this.resource = resource;
  }
}

/**
 * Converts Kubernetes quantities (`{cpu: "1500m", memory: "1.5Gi", pods: 110}`) to a ResourceList
 * (`{cpu: 1500, memory: 1610612736, pods: 110}`): cpu via `MilliValue()`, everything else via
 * `Value()`, both rounded up as Kubernetes does.
 * @throws ResourceListError naming the resource when a quantity does not parse or exceeds
 *   Number.MAX_SAFE_INTEGER in its canonical unit.
 */
export function resourceListFromQuantities(map: Record<string, string | number>): ResourceList {
  const result: ResourceList = {};
  for (const [name, raw] of Object.entries(map)) {
    const memo = typeof raw === 'string' ? (name === CPU ? MILLI_MEMO : VALUE_MEMO) : undefined;
    const known = memo?.get(raw as string);
    if (known !== undefined) {
      result[name] = known;
      continue;
    }
    try {
      const q = parseQuantity(raw);
      const value = name === CPU ? quantityToMilli(q) : quantityToValue(q);
      result[name] = value;
      if (memo !== undefined) {
        if (memo.size >= QUANTITY_MEMO_LIMIT) memo.clear();
        memo.set(raw as string, value);
      }
    } catch (err) {
      if (err instanceof QuantityError || err instanceof RangeError) {
        throw new ResourceListError(name, err.message);
      }
      throw err;
    }
  }
  return result;
}

/**
 * Prints a ResourceList as Kubernetes quantities: cpu as "2" or "1500m"; memory, storage and
 * hugepages as "Gi" or "Mi" when exact, else bytes ("1536Mi", "4Gi", "1000"); anything else as
 * its integer.
 */
export function formatResourceList(rl: ResourceList): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(rl)) {
    if (name === CPU) {
      out[name] = value % 1000 === 0 ? String(value / 1000) : `${value}m`;
    } else if (MEMORY_LIKE.test(name) && value !== 0 && value % GI === 0) {
      out[name] = `${value / GI}Gi`;
    } else if (MEMORY_LIKE.test(name) && value !== 0 && value % MI === 0) {
      out[name] = `${value / MI}Mi`;
    } else {
      out[name] = String(value);
    }
  }
  return out;
}

/** Sums lists key by key; a key missing from a list counts as 0. `addResources()` is `{}`. */
export function addResources(...lists: ResourceList[]): ResourceList {
  const result: ResourceList = {};
  for (const list of lists) {
    for (const name in list) {
      result[name] = (result[name] ?? 0) + (list[name] as number);
    }
  }
  return result;
}

/**
 * `a − b` for the keys of `a` (results may be negative). As upstream `resources.Subtract`, keys
 * only in `b` are ignored: they are not in `a`'s list and count as 0 there for `fits`.
 */
export function subtractResources(a: ResourceList, b: ResourceList): ResourceList {
  const result: ResourceList = {};
  for (const name in a) {
    result[name] = (a[name] as number) - (b[name] ?? 0);
  }
  return result;
}

/**
 * Whether `requests` fit in `available` (upstream `resources.Fits`): false if any amount in
 * `available` is negative (an over-committed node fits nothing); otherwise every requested
 * amount must be ≤ the available one, a resource missing from `available` counting as 0.
 */
export function fits(requests: ResourceList, available: ResourceList): boolean {
  for (const name in available) {
    if ((available[name] as number) < 0) return false;
  }
  for (const name in requests) {
    if ((requests[name] as number) > (available[name] ?? 0)) return false;
  }
  return true;
}

/** Key-by-key maximum over the lists (keys present in any list); upstream `MaxResources`. */
export function maxResources(...lists: ResourceList[]): ResourceList {
  const result: ResourceList = {};
  for (const list of lists) {
    for (const name in list) {
      const value = list[name] as number;
      const current = result[name];
      result[name] = current === undefined || value > current ? value : current;
    }
  }
  return result;
}

/** True when every amount is 0 (an empty list is zero). */
export function isZero(rl: ResourceList): boolean {
  for (const name in rl) {
    if (rl[name] !== 0) return false;
  }
  return true;
}

/** The sorted union of resource names across the lists. */
export function resourceNames(...lists: ResourceList[]): string[] {
  const names = new Set<string>();
  for (const list of lists) {
    for (const name in list) names.add(name);
  }
  return [...names].sort();
}
