/**
 * `status.securityGroups`: the security groups `securityGroupSelectorTerms` select (upstream
 * pkg/providers/securitygroup): by `id`, by EC2 group `name`, or by tags; sorted by ID.
 */
import { paginateDescribeSecurityGroups, type EC2Client, type Filter } from '@aws-sdk/client-ec2';
import type { SecurityGroupSelectorTerm } from '../ec2nodeclass.js';
import { tagFilters } from './selector-filters.js';

function termFilters(term: SecurityGroupSelectorTerm): Filter[] {
  if (term.id) return [{ Name: 'group-id', Values: [term.id] }];
  if (term.name) return [{ Name: 'group-name', Values: [term.name] }];
  return tagFilters(term.tags);
}

/** Every security group some term selects, as `{id, name}`, sorted by ID. Raises the SDK's error. */
export async function resolveSecurityGroups(
  ec2: EC2Client,
  terms: readonly SecurityGroupSelectorTerm[],
): Promise<{ id: string; name: string }[]> {
  const byId = new Map<string, string>();
  for (const term of terms) {
    for await (const page of paginateDescribeSecurityGroups(
      { client: ec2 },
      { Filters: termFilters(term) },
    ))
      for (const g of page.SecurityGroups ?? [])
        if (g.GroupId) byId.set(g.GroupId, g.GroupName ?? '');
  }
  return [...byId.entries()]
    .map(([id, name]) => ({ id, name }))
    .sort((a, b) => a.id.localeCompare(b.id));
}
