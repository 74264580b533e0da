import { didYouMean } from '@karpenter-ts/api';
/**
 * `karpenter-ts catalog`: the instance types a NodePool with the given requirements could
 * launch on a cloud, cheapest first.
 */
import { Option, type Command } from 'commander';
import type { NodeSelectorRequirementWithMinValues } from '@karpenter-ts/api';
import type { InstanceType } from '@karpenter-ts/cloudprovider';
import { Requirements } from '@karpenter-ts/scheduling';
import { UsageError } from '../errors.js';
import type { Runtime } from '../program.js';
import { createCloud } from '../clouds/select.js';
import { allowUndefinedLabels } from '../clouds/cloud.js';
import { catalogEntryJson, launchableInstanceTypes } from '../clouds/catalog-view.js';
import { awsSpotPriceNote, renderCatalogTable } from '../output/catalog-table.js';
import { OUTPUT_FORMATS, toJson, toYaml, type OutputFormat } from '../output/format.js';
import { CLOUD_NAMES, collectRequirements, type CloudName } from './options.js';

interface CatalogOptions {
  cloud: CloudName;
  region?: string;
  requirements?: NodeSelectorRequirementWithMinValues[];
  output: OutputFormat;
  limit?: string;
}

/** Adds the `catalog` command to `program`. */
export function registerCatalog(program: Command, runtime: Runtime): void {
  program
    .command('catalog')
    .description(
      'list the instance types a NodePool with these requirements could launch, cheapest first',
    )
    .addOption(
      new Option('--cloud <cloud>', 'cloud whose catalog to list')
        .choices(CLOUD_NAMES)
        .default('azure'),
    )
    .option('--region <region>', 'region (default: azure eastus, aws us-east-1)')
    .option(
      '--requirements <KEY=OP:V1,V2...>',
      'NodePool requirement, e.g. kubernetes.io/arch=In:arm64 (repeatable)',
      collectRequirements,
    )
    .addOption(
      new Option('-o, --output <format>', 'output format').choices(OUTPUT_FORMATS).default('table'),
    )
    .option('--limit <n>', 'show at most n instance types')
    .addHelpText(
      'after',
      '\nExamples:\n' +
        '  karpenter-ts catalog --cloud azure --requirements karpenter.azure.com/sku-family=In:D --limit 10\n' +
        '  karpenter-ts catalog --cloud aws --region us-west-2 --requirements kubernetes.io/arch=In:arm64 -o json\n\n' +
        `Prices: on-demand from the shipped tables. ${awsSpotPriceNote}`,
    )
    .action((options: CatalogOptions) => {
      const limit = parseLimit(options.limit);
      const cloud = createCloud(options.cloud, options.region);
      const requirements = Requirements.fromNodeSelectorRequirements(options.requirements ?? []);
      const instanceTypes = cloud.instanceTypes(undefined);
      for (const note of undefinedKeyNotes(
        requirements,
        instanceTypes,
        allowUndefinedLabels(cloud),
      ))
        runtime.io.err(`note: ${note}\n`);
      const entries = launchableInstanceTypes(
        instanceTypes,
        requirements,
        allowUndefinedLabels(cloud),
      ).slice(0, limit);
      if (options.output === 'json') runtime.io.out(toJson(entries.map(catalogEntryJson)));
      else if (options.output === 'yaml') runtime.io.out(toYaml(entries.map(catalogEntryJson)));
      else runtime.io.out(renderCatalogTable(cloud, entries));
    });
}

/**
 * One note per requirement key that no instance type of the catalog defines and that is not a
 * well-known label: such a requirement filters nothing (as upstream, it only labels the nodes a
 * NodePool launches), so a misspelt key would list the whole catalog without a word. The note
 * names the closest defined key when one is near (`karpenter.azure.com/sku-famly`).
 */
function undefinedKeyNotes(
  requirements: Requirements,
  instanceTypes: readonly InstanceType[],
  allowUndefined: ReadonlySet<string>,
): string[] {
  const defined = new Set<string>(allowUndefined);
  for (const it of instanceTypes) {
    for (const key of it.requirements.keys()) defined.add(key);
    for (const o of it.offerings) for (const key of o.requirements.keys()) defined.add(key);
  }
  return requirements
    .keys()
    .filter((key) => !defined.has(key))
    .map((key) => {
      const near = didYouMean(key, defined);
      return `no instance type defines label ${JSON.stringify(key)}: its requirement filters nothing here (on a NodePool it only labels the nodes)${near === undefined ? '' : `; did you mean ${JSON.stringify(near)}?`}`;
    });
}

function parseLimit(value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const n = Number(value);
  if (!Number.isInteger(n) || n <= 0)
    throw new UsageError(`--limit: expected a positive integer, got ${JSON.stringify(value)}`);
  return n;
}
