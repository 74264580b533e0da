/**
 * Paged reads of the EC2 catalog APIs, with the filters and page sizes upstream uses.
 */
import {
  paginateDescribeInstanceTypeOfferings,
  paginateDescribeInstanceTypes,
  type EC2Client,
  type InstanceTypeInfo,
} from '@aws-sdk/client-ec2';

/**
 * Every instance type the region sells that Karpenter considers: DescribeInstanceTypes filtered
 * to `supported-virtualization-type=hvm` and `processor-info.supported-architecture` in
 * {x86_64, arm64}, 100 per page, following NextToken. SDK errors propagate.
 */
export async function describeInstanceTypes(client: EC2Client): Promise<InstanceTypeInfo[]> {
  const out: InstanceTypeInfo[] = [];
  const pages = paginateDescribeInstanceTypes(
    { client, pageSize: 100 },
    {
      Filters: [
        { Name: 'supported-virtualization-type', Values: ['hvm'] },
        { Name: 'processor-info.supported-architecture', Values: ['x86_64', 'arm64'] },
      ],
    },
  );
  for await (const page of pages) out.push(...(page.InstanceTypes ?? []));
  return out;
}

/**
 * Zones offering each instance type: DescribeInstanceTypeOfferings with location type
 * `availability-zone`, 1000 per page. Returns the sorted zone list and type → sorted zones.
 */
export async function describeZoneOfferings(
  client: EC2Client,
): Promise<{ zones: string[]; types: Record<string, string[]> }> {
  const byType = new Map<string, Set<string>>();
  const zones = new Set<string>();
  const pages = paginateDescribeInstanceTypeOfferings(
    { client, pageSize: 1000 },
    { LocationType: 'availability-zone' },
  );
  for await (const page of pages) {
    for (const o of page.InstanceTypeOfferings ?? []) {
      if (o.InstanceType === undefined || o.Location === undefined) continue;
      zones.add(o.Location);
      let set = byType.get(o.InstanceType);
      if (set === undefined) byType.set(o.InstanceType, (set = new Set()));
      set.add(o.Location);
    }
  }
  const types: Record<string, string[]> = {};
  for (const name of [...byType.keys()].sort()) types[name] = [...(byType.get(name) ?? [])].sort();
  return { zones: [...zones].sort(), types };
}
