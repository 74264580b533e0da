/**
 * EC2 `Describe*` filters for one selector term's tags (upstream's selector terms: every tag must
 * match; the value `*` matches any value of the key).
 */
import type { Filter } from '@aws-sdk/client-ec2';

/** `tag:<k>=<v>` per entry, or `tag-key=<k>` for the value `*`. */
export function tagFilters(tags: Readonly<Record<string, string>> | undefined): Filter[] {
  return Object.entries(tags ?? {}).map(([k, v]) =>
    v === '*' ? { Name: 'tag-key', Values: [k] } : { Name: `tag:${k}`, Values: [v] },
  );
}
