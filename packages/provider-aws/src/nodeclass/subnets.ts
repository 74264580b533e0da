/**
 * `status.subnets`: the subnets `subnetSelectorTerms` select (upstream pkg/providers/subnet):
 * terms ORed, fields within a term ANDed; sorted by free IPv4 addresses, most first, then by ID.
 */
import {
  paginateDescribeSubnets,
  type EC2Client,
  type Filter,
  type Subnet,
} from '@aws-sdk/client-ec2';
import type { SubnetSelectorTerm, SubnetStatus } from '../ec2nodeclass.js';
import { tagFilters } from './selector-filters.js';

/** A selected subnet with what launch needs besides its status entry. */
export interface ResolvedSubnet extends SubnetStatus {
  /** Free IPv4 addresses when described. */
  readonly availableIPs: number;
}

function termFilters(term: SubnetSelectorTerm): Filter[] {
  if (term.id) return [{ Name: 'subnet-id', Values: [term.id] }];
  return tagFilters(term.tags);
}

/**
 * Every subnet some term selects, deduplicated, most free IPs first then by ID. Raises the SDK's
 * error when a DescribeSubnets call fails (after the client's retries).
 */
export async function resolveSubnets(
  ec2: EC2Client,
  terms: readonly SubnetSelectorTerm[],
): Promise<ResolvedSubnet[]> {
  const byId = new Map<string, Subnet>();
  for (const term of terms) {
    for await (const page of paginateDescribeSubnets(
      { client: ec2 },
      { Filters: termFilters(term) },
    ))
      for (const s of page.Subnets ?? []) if (s.SubnetId) byId.set(s.SubnetId, s);
  }
  return [...byId.values()]
    .map((s) => ({
      id: s.SubnetId ?? '',
      zone: s.AvailabilityZone ?? '',
      ...(s.AvailabilityZoneId ? { zoneID: s.AvailabilityZoneId } : {}),
      availableIPs: s.AvailableIpAddressCount ?? 0,
    }))
    .sort((a, b) => b.availableIPs - a.availableIPs || a.id.localeCompare(b.id));
}
