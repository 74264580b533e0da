/**
 * Building InstanceType values (the contract in types.ts) from plain parts, with allocatable
 * computed the way upstream does (kubernetes-sigs/karpenter pkg/cloudprovider/types.go): capacity
 * − (kubeReserved + systemReserved + evictionThreshold), each
 * hugepages-* capacity also taken out of memory, every resource floored at zero.
 */
import type { Requirements, ResourceList } from '@karpenter-ts/scheduling';
import type { InstanceType, InstanceTypeOverhead, Offering } from './types.js';

/** Resource-name prefix of hugepages resources (`hugepages-2Mi`, `hugepages-1Gi`). */
export const HugePagesPrefix = 'hugepages-';

/** The parts of an instance type; overhead parts that are left out count as empty lists. */
export interface InstanceTypeParts {
  /** Instance type name, e.g. `m5.large`. */
  readonly name: string;
  /** Must define every well-known label the provider knows (DoesNotExist when absent). */
  readonly requirements: Requirements;
  /** All offerings, available or not. */
  readonly offerings: readonly Offering[];
  /** Canonical integers: cpu millicores, memory/storage bytes, pods and extended resources counts. */
  readonly capacity: ResourceList;
  readonly overhead?: Partial<InstanceTypeOverhead>;
}

/** An overhead with nothing reserved. */
export const NoOverhead: InstanceTypeOverhead = Object.freeze({
  kubeReserved: Object.freeze({}),
  systemReserved: Object.freeze({}),
  evictionThreshold: Object.freeze({}),
});

/**
 * Builds an {@link InstanceType}. `allocatable()` is computed on first use and memoized (the same
 * object is returned every time; treat it as read-only). Throws TypeError when `name` is empty or
 * a capacity/overhead value is not a non-negative safe integer, naming the offending resource.
 */
export function createInstanceType(parts: InstanceTypeParts): InstanceType {
  if (parts.name === '') throw new TypeError('instance type name must not be empty');
  const overhead: InstanceTypeOverhead = {
    kubeReserved: parts.overhead?.kubeReserved ?? {},
    systemReserved: parts.overhead?.systemReserved ?? {},
    evictionThreshold: parts.overhead?.evictionThreshold ?? {},
  };
  checkResourceList(`${parts.name} capacity`, parts.capacity);
  checkResourceList(`${parts.name} overhead.kubeReserved`, overhead.kubeReserved);
  checkResourceList(`${parts.name} overhead.systemReserved`, overhead.systemReserved);
  checkResourceList(`${parts.name} overhead.evictionThreshold`, overhead.evictionThreshold);
  let allocatable: ResourceList | undefined;
  return {
    name: parts.name,
    requirements: parts.requirements,
    offerings: parts.offerings,
    capacity: parts.capacity,
    overhead,
    allocatable() {
      allocatable ??= computeAllocatable(parts.capacity, overhead);
      return allocatable;
    },
  };
}

/** Sum of the three overhead lists (kubeReserved + systemReserved + evictionThreshold). */
export function totalOverhead(overhead: InstanceTypeOverhead): ResourceList {
  const total: Record<string, number> = {};
  for (const list of [overhead.kubeReserved, overhead.systemReserved, overhead.evictionThreshold]) {
    for (const [name, value] of Object.entries(list)) total[name] = (total[name] ?? 0) + value;
  }
  return total;
}

/**
 * capacity − total overhead per capacity resource, floored at zero; then memory also loses every
 * `hugepages-*` capacity (pages are carved out of RAM), again floored at zero. Resources that are
 * only in the overhead do not appear in the result.
 */
export function computeAllocatable(
  capacity: ResourceList,
  overhead: InstanceTypeOverhead,
): ResourceList {
  const reserved = totalOverhead(overhead);
  const allocatable: Record<string, number> = {};
  for (const [name, value] of Object.entries(capacity)) {
    allocatable[name] = Math.max(0, value - (reserved[name] ?? 0));
  }
  for (const [name, value] of Object.entries(capacity)) {
    if (name.startsWith(HugePagesPrefix) && allocatable.memory !== undefined) {
      allocatable.memory = Math.max(0, allocatable.memory - value);
    }
  }
  return allocatable;
}

function checkResourceList(what: string, list: ResourceList): void {
  for (const [name, value] of Object.entries(list)) {
    if (!Number.isSafeInteger(value) || value < 0) {
      throw new TypeError(`${what}: ${name} must be a non-negative integer, got ${value}`);
    }
  }
}
