/**
 * Capacity reservations (On-Demand Capacity Reservations and capacity blocks), which moto 5.2.5
 * does not implement at all: a settable store the layer answers DescribeCapacityReservations
 * from, that CreateFleet launches into when a launch template targets a reservation, and that
 * TerminateInstances gives capacity back to (README, "Gaps").
 */
import { QueryParams, ec2Response, xmlElement } from './query-protocol.js';

/** The account moto runs as (owner of reservations that name none). */
export const EmulatorAccountId = '123456789012';

/** One reservation as a test sets it. */
export interface CapacityReservation {
  /** `cr-` followed by lower-case hex or digits. */
  readonly id: string;
  readonly instanceType: string;
  readonly zone: string;
  /** 12 digits; default {@link EmulatorAccountId}. */
  readonly ownerId?: string;
  /** Default `targeted` (only launches that name it use it). */
  readonly instanceMatchCriteria?: 'open' | 'targeted';
  readonly totalInstanceCount: number;
  /** Default `totalInstanceCount`. */
  readonly availableInstanceCount?: number;
  /** EC2's states; default `active`. */
  readonly state?: 'active' | 'expired' | 'cancelled' | 'pending' | 'failed' | 'scheduled';
  /** Default `default` (an ODCR). */
  readonly reservationType?: 'default' | 'capacity-block';
  readonly interruptible?: boolean;
  /** Unset: an unlimited reservation. */
  readonly endDate?: Date;
  readonly tags?: Readonly<Record<string, string>>;
}

/** Why a launch into a reservation was refused: EC2's code and message. */
export interface ReservationRefusal {
  readonly code: string;
  readonly message: string;
}

interface Entry {
  reservation: CapacityReservation;
  available: number;
}

function tagSetXml(tags: Readonly<Record<string, string>> | undefined): string {
  const items = Object.entries(tags ?? {}).map(
    ([k, v]) => `<item>${xmlElement('key', k)}${xmlElement('value', v)}</item>`,
  );
  return `<tagSet>${items.join('')}</tagSet>`;
}

/** The emulator's reservations (none at start). */
export class CapacityReservations {
  readonly #byId = new Map<string, Entry>();
  /** instance ID → reservation ID, for instances launched into one and not yet terminated. */
  readonly #instances = new Map<string, string>();

  /** Sets (or replaces, by ID) reservations; the available count starts as given. */
  set(reservations: readonly CapacityReservation[]): void {
    for (const r of reservations)
      this.#byId.set(r.id, {
        reservation: r,
        available: r.availableInstanceCount ?? r.totalInstanceCount,
      });
  }

  /** Removes every reservation (instances launched into them keep running). */
  clear(): void {
    this.#byId.clear();
  }

  /** Instances the reservation can still take, or undefined when unknown. */
  available(id: string): number | undefined {
    return this.#byId.get(id)?.available;
  }

  /** The reservation an instance was launched into, if any. */
  reservationOf(instanceId: string): string | undefined {
    return this.#instances.get(instanceId);
  }

  /**
   * Checks that one instance of `instanceType` in `zone` can launch into reservation `id`:
   * undefined when it can (nothing is taken yet: see {@link launched}), else EC2's refusal:
   * `InvalidCapacityReservationId.NotFound` (unknown), `InvalidParameterCombination` (not active,
   * or another type or zone), `ReservationCapacityExceeded` (none available).
   */
  refusal(id: string, instanceType: string, zone: string): ReservationRefusal | undefined {
    const e = this.#byId.get(id);
    if (!e)
      return {
        code: 'InvalidCapacityReservationId.NotFound',
        message: `The capacity reservation ID '${id}' does not exist`,
      };
    const r = e.reservation;
    if ((r.state ?? 'active') !== 'active')
      return {
        code: 'InvalidParameterCombination',
        message: `The capacity reservation ${id} is ${r.state}, not active`,
      };
    if (r.instanceType !== instanceType || r.zone !== zone)
      return {
        code: 'InvalidParameterCombination',
        message: `The capacity reservation ${id} is for ${r.instanceType} in ${r.zone}, not ${instanceType} in ${zone}`,
      };
    if (e.available <= 0)
      return {
        code: 'ReservationCapacityExceeded',
        message: `There is insufficient capacity in the Capacity Reservation ${id} to launch the instance.`,
      };
    return undefined;
  }

  /** Records an instance launched into reservation `id`, taking one of its available instances. */
  launched(id: string, instanceId: string): void {
    const e = this.#byId.get(id);
    if (e) e.available = Math.max(0, e.available - 1);
    this.#instances.set(instanceId, id);
  }

  /** Gives the instances' places back to their reservations (TerminateInstances). */
  released(instanceIds: readonly string[]): void {
    for (const instanceId of instanceIds) {
      const id = this.#instances.get(instanceId);
      if (id === undefined) continue;
      this.#instances.delete(instanceId);
      const e = this.#byId.get(id);
      if (e) e.available = Math.min(e.reservation.totalInstanceCount, e.available + 1);
    }
  }

  /**
   * Answers DescribeCapacityReservations: `CapacityReservationId.N` (an unknown one is
   * `InvalidCapacityReservationId.NotFound`, returned as `{error}`), and the filters
   * `instance-type`, `availability-zone`, `owner-id`, `state`, `instance-match-criteria`,
   * `reservation-type`, `tag:<key>` and `tag-key` (values ORed, filters ANDed); one page.
   */
  describe(p: QueryParams): { xml: string } | { error: ReservationRefusal } {
    const ids = p.values('CapacityReservationId');
    for (const id of ids)
      if (!this.#byId.has(id))
        return {
          error: {
            code: 'InvalidCapacityReservationId.NotFound',
            message: `The capacity reservation ID '${id}' does not exist`,
          },
        };
    const filters = p.list('Filter').map((f) => ({
      name: f.get('Name') ?? '',
      values: new Set(f.values('Value')),
    }));
    const fieldOf = (r: CapacityReservation, name: string): string[] | undefined => {
      if (name === 'instance-type') return [r.instanceType];
      if (name === 'availability-zone') return [r.zone];
      if (name === 'owner-id') return [r.ownerId ?? EmulatorAccountId];
      if (name === 'state') return [r.state ?? 'active'];
      if (name === 'instance-match-criteria') return [r.instanceMatchCriteria ?? 'targeted'];
      if (name === 'reservation-type') return [r.reservationType ?? 'default'];
      if (name === 'tag-key') return Object.keys(r.tags ?? {});
      if (name.startsWith('tag:')) {
        const v = r.tags?.[name.slice(4)];
        return v === undefined ? [] : [v];
      }
      return undefined;
    };
    const items = [...this.#byId.values()]
      .filter((e) => ids.length === 0 || ids.includes(e.reservation.id))
      .filter((e) =>
        filters.every((f) => {
          const have = fieldOf(e.reservation, f.name);
          // EC2 refuses unknown filter names; the layer ignores them rather than guess.
          return have === undefined || have.some((v) => f.values.has(v));
        }),
      )
      .map(({ reservation: r, available }) => {
        const owner = r.ownerId ?? EmulatorAccountId;
        return (
          `<item>` +
          xmlElement('capacityReservationId', r.id) +
          xmlElement('ownerId', owner) +
          xmlElement(
            'capacityReservationArn',
            `arn:aws:ec2:${r.zone.slice(0, -1)}:${owner}:capacity-reservation/${r.id}`,
          ) +
          xmlElement('instanceType', r.instanceType) +
          xmlElement('instancePlatform', 'Linux/UNIX') +
          xmlElement('availabilityZone', r.zone) +
          xmlElement('tenancy', 'default') +
          xmlElement('totalInstanceCount', r.totalInstanceCount) +
          xmlElement('availableInstanceCount', available) +
          xmlElement('state', r.state ?? 'active') +
          xmlElement('endDate', r.endDate?.toISOString()) +
          xmlElement('endDateType', r.endDate ? 'limited' : 'unlimited') +
          xmlElement('instanceMatchCriteria', r.instanceMatchCriteria ?? 'targeted') +
          xmlElement('reservationType', r.reservationType ?? 'default') +
          xmlElement(
            'interruptible',
            r.interruptible === undefined ? undefined : String(r.interruptible),
          ) +
          tagSetXml(r.tags) +
          `</item>`
        );
      });
    return {
      xml: ec2Response(
        'DescribeCapacityReservations',
        `<capacityReservationSet>${items.join('')}</capacityReservationSet>`,
      ),
    };
  }

  /**
   * Adds `<capacityReservationId>` to the instances of a DescribeInstances answer that were
   * launched into a reservation (moto knows nothing of it).
   */
  annotateInstances(xml: string): string {
    if (this.#instances.size === 0) return xml;
    return xml.replace(/<instanceId>(i-[0-9a-f]+)<\/instanceId>/g, (whole, id: string) => {
      const cr = this.#instances.get(id);
      return cr === undefined ? whole : `${whole}${xmlElement('capacityReservationId', cr)}`;
    });
  }
}
