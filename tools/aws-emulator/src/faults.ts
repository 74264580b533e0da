/**
 * Scripted faults: capacity errors inside CreateFleet answers, and whole-call errors (throttling,
 * unauthorized, anything with a code) or delays for any action of any service.
 */

/** An AWS service as the SDK signs for it (`ec2`, `ssm`, `iam`). */
export type AwsService = string;

/** Which CreateFleet overrides a capacity fault hits; an omitted field matches any value. */
export interface CapacityMatch {
  readonly instanceType?: string;
  readonly zone?: string;
  readonly capacityType?: 'on-demand' | 'spot';
}

/** EC2's fleet error codes for capacity, with the texts EC2 sends. */
export const CapacityErrorMessages: Readonly<
  Record<string, (type: string, zone: string) => string>
> = {
  InsufficientInstanceCapacity: (t, z) =>
    `We currently do not have sufficient ${t} capacity in the Availability Zone you requested (${z}). Our system will be working on provisioning additional capacity. You can currently get ${t} capacity by not specifying an Availability Zone in your request or choosing a different Availability Zone.`,
  MaxSpotInstanceCountExceeded: () => 'Max spot instance count exceeded',
  VcpuLimitExceeded: () =>
    'You have requested more vCPU capacity than your current vCPU limit allows for the instance bucket that the specified instance type belongs to. Please visit http://aws.amazon.com/contact-us/ec2-request to request an adjustment to this limit.',
  UnfulfillableCapacity: () =>
    'Unable to fulfill capacity due to your request configuration. Please adjust your request and try again.',
  InsufficientFreeAddressesInSubnet: () =>
    'There are not enough free addresses in subnet to satisfy the requested number of instances.',
};

/** A whole-call fault. */
export interface CallFault {
  readonly service: AwsService;
  readonly action: string;
  /** `error`: answer with `code`/`message`/`status`; `delay`: hold the request `ms` first. */
  readonly effect:
    | { kind: 'error'; code: string; message: string; status: number }
    | { kind: 'delay'; ms: number };
  /** How many calls it hits; undefined means every call. */
  times?: number;
}

interface CapacityFault {
  readonly match: CapacityMatch;
  readonly code: string;
  times?: number;
}

/** The fault table of one emulator. */
export class Faults {
  readonly #capacity: CapacityFault[] = [];
  readonly #calls: CallFault[] = [];

  /**
   * CreateFleet reports `code` (default InsufficientInstanceCapacity, or another key of
   * CapacityErrorMessages) for every override matching `match`, `times` overrides in all
   * (default: until cleared), and falls through to the next override as EC2 does.
   */
  capacity(match: CapacityMatch, options: { code?: string; times?: number } = {}): void {
    const code = options.code ?? 'InsufficientInstanceCapacity';
    if (!CapacityErrorMessages[code]) throw new Error(`unknown capacity error code ${code}`);
    this.#capacity.push({ match, code, ...(options.times ? { times: options.times } : {}) });
  }

  /**
   * Answers the next `times` calls (default every call) of `service`'s `action` with an error, as
   * the service does: e.g. `('ec2', 'CreateFleet', 'RequestLimitExceeded', 'Request limit
   * exceeded.', 503)` or `('ec2', 'DescribeSubnets', 'UnauthorizedOperation', '...', 403)`.
   */
  error(
    service: AwsService,
    action: string,
    code: string,
    message: string,
    status = 400,
    times?: number,
  ): void {
    this.#calls.push({
      service,
      action,
      effect: { kind: 'error', code, message, status },
      ...(times ? { times } : {}),
    });
  }

  /** Holds the next `times` calls (default every call) of `action` for `ms` before serving them. */
  delay(service: AwsService, action: string, ms: number, times?: number): void {
    this.#calls.push({
      service,
      action,
      effect: { kind: 'delay', ms },
      ...(times ? { times } : {}),
    });
  }

  /** Removes every fault. */
  clear(): void {
    this.#capacity.length = 0;
    this.#calls.length = 0;
  }

  /** The capacity error code for one override, consuming one of its `times`; undefined if none. */
  takeCapacity(instanceType: string, zone: string, capacityType: string): string | undefined {
    const i = this.#capacity.findIndex(
      (f) =>
        (f.match.instanceType === undefined || f.match.instanceType === instanceType) &&
        (f.match.zone === undefined || f.match.zone === zone) &&
        (f.match.capacityType === undefined || f.match.capacityType === capacityType),
    );
    const f = this.#capacity[i];
    if (!f) return undefined;
    if (f.times !== undefined && --f.times <= 0) this.#capacity.splice(i, 1);
    return f.code;
  }

  /** The call faults for one request, consuming one of each one's `times`. */
  takeCall(service: AwsService, action: string): CallFault['effect'][] {
    const out: CallFault['effect'][] = [];
    for (let i = 0; i < this.#calls.length; i++) {
      const f = this.#calls[i] as CallFault;
      if (f.service !== service || f.action !== action) continue;
      out.push(f.effect);
      if (f.times !== undefined && --f.times <= 0) this.#calls.splice(i--, 1);
    }
    return out;
  }
}
