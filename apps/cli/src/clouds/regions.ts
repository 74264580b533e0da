/**
 * The regions each cloud's shipped catalog covers, and the usage error for any other name: one
 * line, exit 2, with the closest known names ("did you mean").
 */
import { shippedAwsCatalog } from '@karpenter-ts/provider-aws';
import { allAzureSkus, AzurePricing } from '@karpenter-ts/provider-azure';
import { UsageError } from '../errors.js';
import type { CloudName } from '../commands/options.js';

/**
 * Region names the shipped data covers, sorted: Azure, the regions of the static price table
 * and of the ARM resource-SKU zone data (57); AWS, the regions with recorded zone offerings
 * (3: the catalog holds zone data for us-east-1, us-east-2 and us-west-2 only); sim, none.
 */
export function knownRegions(cloud: CloudName): readonly string[] {
  switch (cloud) {
    case 'sim':
      return [];
    case 'aws':
      return Object.keys(shippedAwsCatalog().offerings).sort();
    case 'azure': {
      const regions = new Set(AzurePricing.fromStaticData().regions());
      for (const sku of allAzureSkus())
        for (const region of Object.keys(sku.armZones ?? {})) regions.add(region);
      return [...regions].sort();
    }
  }
}

/**
 * Checks `region` against {@link knownRegions}. `flag` names the option in the error (`--region`
 * or `--clouds`). Raises UsageError (exit 2) for a region the catalog does not know (case
 * matters, as in ARM and EC2 API names: `WestEurope` suggests `westeurope`), and for any region
 * on the sim cloud, which has zones but no regions.
 */
export function checkRegion(cloud: CloudName, region: string, flag = '--region'): void {
  if (cloud === 'sim') {
    throw new UsageError(
      `${flag}: the sim cloud has no regions (its zones are test-zone-a..d); leave the region out`,
    );
  }
  const known = knownRegions(cloud);
  if (known.includes(region)) return;
  const suggestions = closest(region, known);
  const hint =
    suggestions.length > 0
      ? `; did you mean ${suggestions.map((s) => `"${s}"`).join(' or ')}?`
      : cloud === 'aws'
        ? ''
        : `; region names are lower case without spaces, e.g. "eastus", "westeurope"`;
  const coverage =
    cloud === 'aws'
      ? ` (the shipped AWS catalog has zone data for ${known.length} regions only: ${known.join(', ')})`
      : ` (${known.length} Azure regions known)`;
  throw new UsageError(
    `${flag}: unknown ${cloud === 'aws' ? 'AWS' : 'Azure'} region "${region}"${hint}${coverage}`,
  );
}

/** Up to three known names closest to `name`: a case- and punctuation-insensitive match first, else edit distance. */
function closest(name: string, known: readonly string[]): string[] {
  const norm = (s: string) => s.toLowerCase().replace(/[^a-z0-9]/g, '');
  const target = norm(name);
  const exact = known.filter((k) => norm(k) === target);
  if (exact.length > 0) return exact;
  const limit = Math.max(2, Math.floor(target.length / 3));
  return known
    .map((k) => ({ k, d: editDistance(target, norm(k)) }))
    .filter((x) => x.d <= limit)
    .sort((a, b) => a.d - b.d || (a.k < b.k ? -1 : 1))
    .slice(0, 3)
    .map((x) => x.k);
}

/** Levenshtein distance (insertions, deletions, substitutions). */
function editDistance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) {
      const substitution = (previous[j - 1] as number) + (a[i - 1] === b[j - 1] ? 0 : 1);
      current.push(
        Math.min((previous[j] as number) + 1, (current[j - 1] as number) + 1, substitution),
      );
    }
    previous = current;
  }
  return previous[b.length] as number;
}
