/**
 * Scripted faults: capacity and quota errors per VM size / zone / priority, throttling (429 with
 * Retry-After), generic errors, operations that run slowly or fail late. Each fault matches
 * requests by a {@link FaultMatch} and applies its {@link FaultEffect} to the next `times`
 * matching requests (every one when `times` is omitted).
 *
 * Error messages follow the texts ARM sends for these codes, because clients (the Azure provider)
 * classify some errors by their message (quota family, LowPriorityCores, Total Regional Cores).
 */

/** Which requests a fault applies to; an omitted field matches everything. */
export interface FaultMatch {
  readonly method?: 'GET' | 'PUT' | 'DELETE' | 'POST';
  /**
   * ARM resource type segment: `virtualMachines`, `networkInterfaces`, `disks`,
   * `diskEncryptionSets`, `subnets`, `skus`, `operations`, `prices`.
   */
  readonly resourceType?: string;
  /** Resource name. */
  readonly name?: string;
  /** VM PUTs only: `hardwareProfile.vmSize`. */
  readonly vmSize?: string;
  /** VM PUTs only: the ARM zone number (`'1'`), or `null` for a regional (zoneless) VM. */
  readonly zone?: string | null;
  /** VM PUTs only: `Regular` (also when unset) or `Spot`. */
  readonly priority?: 'Regular' | 'Spot';
}

/** What a matching request gets. */
export type FaultEffect =
  | {
      /** Answer with an ARM error. */
      readonly kind: 'error';
      readonly status: number;
      readonly code: string;
      readonly message: string;
      /**
       * `sync` (default): the request itself fails. `async` (PUT/DELETE of VMs and NICs): the
       * request is accepted (201/202) and its long-running operation fails with this error.
       */
      readonly when?: 'sync' | 'async';
    }
  | {
      /** 429 TooManyRequests with a Retry-After header (seconds). */
      readonly kind: 'throttle';
      readonly retryAfterSeconds: number;
    }
  | {
      /** The request's long-running operation reports InProgress for this many polls first. */
      readonly kind: 'slow';
      readonly polls: number;
    };

/** A scripted fault. */
export interface Fault {
  readonly match: FaultMatch;
  readonly effect: FaultEffect;
  /** How many matching requests it applies to; default: all until removed. */
  readonly times?: number;
}

/** A registered fault with its id and how many matches it has left. */
export interface ActiveFault extends Fault {
  readonly id: string;
  remaining: number;
  /** How many requests it has applied to so far. */
  hits: number;
}

/** The properties of a request a fault is matched against. */
export interface RequestFacts {
  readonly method: string;
  readonly resourceType: string;
  readonly name?: string;
  readonly vmSize?: string;
  readonly zone?: string | null;
  readonly priority?: 'Regular' | 'Spot';
}

function matches(m: FaultMatch, r: RequestFacts): boolean {
  if (m.method !== undefined && m.method !== r.method) return false;
  if (m.resourceType !== undefined && m.resourceType.toLowerCase() !== r.resourceType.toLowerCase())
    return false;
  if (m.name !== undefined && m.name.toLowerCase() !== (r.name ?? '').toLowerCase()) return false;
  if (m.vmSize !== undefined && m.vmSize.toLowerCase() !== (r.vmSize ?? '').toLowerCase())
    return false;
  if (m.zone !== undefined && m.zone !== (r.zone ?? null)) return false;
  if (m.priority !== undefined && m.priority !== (r.priority ?? 'Regular')) return false;
  return true;
}

/** The fault registry of one emulator. */
export class Faults {
  readonly #faults: ActiveFault[] = [];
  #next = 1;

  /** Registers a fault; returns its id (for {@link remove}). Throws TypeError on a bad fault. */
  add(fault: Fault): string {
    validateFault(fault);
    const id = `f${this.#next++}`;
    this.#faults.push({ ...fault, id, remaining: fault.times ?? Infinity, hits: 0 });
    return id;
  }

  /** Removes one fault; false when unknown. */
  remove(id: string): boolean {
    const i = this.#faults.findIndex((f) => f.id === id);
    if (i < 0) return false;
    this.#faults.splice(i, 1);
    return true;
  }

  /** Removes every fault. */
  clear(): void {
    this.#faults.length = 0;
  }

  /** The registered faults (copies). */
  list(): ActiveFault[] {
    return this.#faults.map((f) => ({ ...f }));
  }

  /**
   * The first fault of one of `kinds` matching the request, consumed (its count decremented and
   * dropped at zero); undefined when none matches.
   */
  take(facts: RequestFacts, kinds: readonly FaultEffect['kind'][]): FaultEffect | undefined {
    const i = this.#faults.findIndex(
      (f) => kinds.includes(f.effect.kind) && matches(f.match, facts),
    );
    if (i < 0) return undefined;
    const f = this.#faults[i] as ActiveFault;
    f.remaining -= 1;
    f.hits += 1;
    if (f.remaining <= 0) this.#faults.splice(i, 1);
    return f.effect;
  }

  // Builders for the common faults -------------------------------------------------------------

  /**
   * A capacity error for matching VM PUTs. Codes and their ARM texts: `ZonalAllocationFailed`,
   * `AllocationFailed`, `OverconstrainedZonalAllocationRequest`, `OverconstrainedAllocationRequest`
   * (409, late by default, as ARM reports allocation failures on the operation) and
   * `SkuNotAvailable` (409, synchronous by default).
   */
  capacity(
    code: CapacityErrorCode,
    match: Omit<FaultMatch, 'resourceType' | 'method'> = {},
    options: { times?: number; when?: 'sync' | 'async' } = {},
  ): string {
    return this.add({
      match: { ...match, resourceType: 'virtualMachines', method: 'PUT' },
      effect: {
        kind: 'error',
        status: 409,
        code,
        message: capacityMessage(code, match.vmSize ?? 'the requested size'),
        when: options.when ?? (code === 'SkuNotAvailable' ? 'sync' : 'async'),
      },
      ...(options.times === undefined ? {} : { times: options.times }),
    });
  }

  /** Throttles matching requests with 429 and `Retry-After: retryAfterSeconds`. */
  throttle(
    match: FaultMatch = {},
    options: { retryAfterSeconds?: number; times?: number } = {},
  ): string {
    return this.add({
      match,
      effect: { kind: 'throttle', retryAfterSeconds: options.retryAfterSeconds ?? 1 },
      ...(options.times === undefined ? {} : { times: options.times }),
    });
  }

  /** Makes the long-running operations of matching requests report InProgress for `polls` polls. */
  slow(match: FaultMatch, polls: number, options: { times?: number } = {}): string {
    return this.add({
      match,
      effect: { kind: 'slow', polls },
      ...(options.times === undefined ? {} : { times: options.times }),
    });
  }

  /**
   * Answers matching requests 403 `AuthorizationFailed` with ARM's text, as for an identity
   * without a role assignment granting `action` (e.g. `Microsoft.Compute/diskEncryptionSets/read`,
   * which Reader grants) on `scope` (an ARM ID). `objectId` is the caller's principal (default a
   * random GUID).
   */
  authorizationFailed(
    match: FaultMatch,
    options: { action: string; scope: string; objectId?: string; times?: number },
  ): string {
    const principal = options.objectId ?? crypto.randomUUID();
    return this.add({
      match,
      effect: {
        kind: 'error',
        status: 403,
        code: 'AuthorizationFailed',
        message: `The client '${principal}' with object id '${principal}' does not have authorization to perform action '${options.action}' over scope '${options.scope}' or the scope is invalid. If access was recently granted, please refresh your credentials.`,
      },
      ...(options.times === undefined ? {} : { times: options.times }),
    });
  }

  /** Accepts matching requests, then fails their long-running operation with `code`/`message`. */
  failLate(
    match: FaultMatch,
    code: string,
    message: string,
    options: { times?: number } = {},
  ): string {
    return this.add({
      match,
      effect: { kind: 'error', status: 200, code, message, when: 'async' },
      ...(options.times === undefined ? {} : { times: options.times }),
    });
  }
}

/** Capacity error codes ARM reports for VM allocation. */
export type CapacityErrorCode =
  | 'ZonalAllocationFailed'
  | 'AllocationFailed'
  | 'OverconstrainedZonalAllocationRequest'
  | 'OverconstrainedAllocationRequest'
  | 'SkuNotAvailable';

/** ARM's message text for a capacity error code. */
export function capacityMessage(
  code: CapacityErrorCode,
  vmSize: string,
  location = 'the region',
): string {
  switch (code) {
    case 'ZonalAllocationFailed':
      return 'Allocation failed. We do not have sufficient capacity for the requested VM size in this zone. Read more about improving likelihood of allocation success at http://aka.ms/allocation-guidance';
    case 'AllocationFailed':
      return 'Allocation failed. We do not have sufficient capacity for the requested VM size in this region. Read more about improving likelihood of allocation success at http://aka.ms/allocation-guidance';
    case 'OverconstrainedZonalAllocationRequest':
      return 'Allocation failed. VM(s) with the following constraints cannot be allocated, because the condition is too restrictive. Please remove some constraints and try again. Constraints applied are: - Availability Zone - Networking Constraints (such as Accelerated Networking or IPv6) - VM Size';
    case 'OverconstrainedAllocationRequest':
      return 'Allocation failed. VM(s) with the following constraints cannot be allocated, because the condition is too restrictive. Please remove some constraints and try again. Constraints applied are: - Networking Constraints (such as Accelerated Networking or IPv6) - VM Size';
    case 'SkuNotAvailable':
      return `The requested VM size for resource 'Following SKUs have failed for Capacity Restrictions: ${vmSize}' is currently not available in location '${location}'. Please try another size or deploy to a different location or zones. See https://aka.ms/azureskunotavailable for details.`;
  }
}

/**
 * ARM's quota message (code OperationNotAllowed, status 409). `quota` names the quota as ARM
 * does: `standardDSv3Family Cores` (a family), `LowPriorityCores` (spot), `Total Regional Cores`.
 */
export function quotaMessage(
  quota: string,
  location: string,
  limit: number,
  usage: number,
  required: number,
): string {
  return `Operation could not be completed as it results in exceeding approved ${quota} quota. Additional details - Deployment Model: Resource Manager, Location: ${location}, Current Limit: ${limit}, Current Usage: ${usage}, Additional Required: ${required}, (Minimum) New Limit Required: ${usage + required}. Submit a request for Quota increase at https://aka.ms/ProdportalCRP/#blade/Microsoft_Azure_Capacity/UsageAndQuota.ReactView by specifying parameters listed in the 'Details' section for deployment to succeed.`;
}

function validateFault(f: Fault): void {
  if (typeof f !== 'object' || f === null) throw new TypeError('fault: must be an object');
  if (typeof f.match !== 'object' || f.match === null)
    throw new TypeError('fault.match: must be an object');
  const e = f.effect as FaultEffect | undefined;
  if (!e || !['error', 'throttle', 'slow'].includes(e.kind))
    throw new TypeError("fault.effect.kind: must be 'error', 'throttle' or 'slow'");
  if (e.kind === 'error' && (typeof e.code !== 'string' || typeof e.message !== 'string'))
    throw new TypeError('fault.effect: an error needs a string code and message');
  if (e.kind === 'error' && !(Number.isInteger(e.status) && e.status >= 200 && e.status < 600))
    throw new TypeError('fault.effect.status: must be an HTTP status');
  if (e.kind === 'throttle' && !(e.retryAfterSeconds >= 0))
    throw new TypeError('fault.effect.retryAfterSeconds: must be >= 0');
  if (e.kind === 'slow' && !(Number.isInteger(e.polls) && e.polls >= 0))
    throw new TypeError('fault.effect.polls: must be an integer >= 0');
  if (f.times !== undefined && !(Number.isInteger(f.times) && f.times >= 1))
    throw new TypeError('fault.times: must be an integer >= 1');
}
