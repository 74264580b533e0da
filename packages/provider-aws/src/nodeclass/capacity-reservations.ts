/**
 * `status.capacityReservations`: the active capacity reservations `capacityReservationSelectorTerms`
 * select (upstream pkg/providers/capacityreservation and the nodeclass capacity reservation
 * reconciler): terms ORed, fields within a term ANDed, only `state=active` reservations.
 */
import {
  paginateDescribeCapacityReservations,
  type CapacityReservation,
  type EC2Client,
  type Filter,
} from '@aws-sdk/client-ec2';
import { isAwsNotFound } from '../aws/errors.js';
import type { CapacityReservationSelectorTerm, EC2NodeClassStatus } from '../ec2nodeclass.js';
import { tagFilters } from './selector-filters.js';

/** One entry of `status.capacityReservations`. */
export type CapacityReservationStatus = NonNullable<
  EC2NodeClassStatus['capacityReservations']
>[number];

/** A selected reservation with what the offerings need besides its status entry. */
export interface ResolvedCapacityReservation extends CapacityReservationStatus {
  /** Instances the reservation can still take, as EC2 reported them. */
  readonly availableInstanceCount: number;
}

/** Seconds before its end time from which a capacity block counts as `expiring` (upstream: 40 minutes). */
export const CapacityBlockExpiringSeconds = 40 * 60;

function termQuery(term: CapacityReservationSelectorTerm): {
  CapacityReservationIds?: string[];
  Filters: Filter[];
} {
  const active: Filter = { Name: 'state', Values: ['active'] };
  if (term.id) return { CapacityReservationIds: [term.id], Filters: [active] };
  return {
    Filters: [
      ...tagFilters(term.tags),
      ...(term.ownerID ? [{ Name: 'owner-id', Values: [term.ownerID] }] : []),
      ...(term.instanceMatchCriteria
        ? [{ Name: 'instance-match-criteria', Values: [term.instanceMatchCriteria] }]
        : []),
      active,
    ],
  };
}

function toStatus(r: CapacityReservation, nowMs: number): ResolvedCapacityReservation {
  const reservationType = r.ReservationType === 'capacity-block' ? 'capacity-block' : 'default';
  const end = r.EndDate?.getTime();
  const expiring =
    reservationType === 'capacity-block' &&
    end !== undefined &&
    nowMs >= end - CapacityBlockExpiringSeconds * 1000;
  return {
    id: r.CapacityReservationId ?? '',
    availabilityZone: r.AvailabilityZone ?? '',
    instanceType: r.InstanceType ?? '',
    ownerID: r.OwnerId ?? '',
    ...(r.InstanceMatchCriteria === 'open' || r.InstanceMatchCriteria === 'targeted'
      ? { instanceMatchCriteria: r.InstanceMatchCriteria }
      : {}),
    reservationType,
    ...(r.Interruptible !== undefined ? { interruptible: r.Interruptible } : {}),
    state: expiring ? 'expiring' : 'active',
    ...(r.EndDate ? { endTime: r.EndDate.toISOString() } : {}),
    availableInstanceCount: r.AvailableInstanceCount ?? 0,
  };
}

/**
 * Every active reservation some term selects (`id` → `CapacityReservationIds`; `tags` →
 * `tag:<k>` / `tag-key`; `ownerID` → `owner-id`; `instanceMatchCriteria` →
 * `instance-match-criteria`; always `state=active`), deduplicated and sorted by ID. A capacity
 * block is `expiring` from {@link CapacityBlockExpiringSeconds} before its end (`nowMs`,
 * milliseconds since the epoch). A term naming an unknown ID selects nothing (EC2 answers
 * `InvalidCapacityReservationId.NotFound`). Raises the SDK's error for other failures.
 */
export async function resolveCapacityReservations(
  ec2: EC2Client,
  terms: readonly CapacityReservationSelectorTerm[],
  nowMs: number,
): Promise<ResolvedCapacityReservation[]> {
  const byId = new Map<string, CapacityReservation>();
  for (const term of terms) {
    try {
      for await (const page of paginateDescribeCapacityReservations(
        { client: ec2 },
        termQuery(term),
      ))
        for (const r of page.CapacityReservations ?? [])
          if (r.CapacityReservationId) byId.set(r.CapacityReservationId, r);
    } catch (err) {
      if (!(term.id && isAwsNotFound(err))) throw err;
    }
  }
  return [...byId.values()].map((r) => toStatus(r, nowMs)).sort((a, b) => a.id.localeCompare(b.id));
}
