#!/usr/bin/env node
/**
 * `refresh-azure-catalog`: refreshes packages/provider-azure/data/pricing.json (Retail Prices API,
 * no credentials) and vm-skus.json (ARM Resource SKUs, DefaultAzureCredential + subscription).
 * Usage in README.md. Exits 1 with a one-line message on error.
 */
import { parseArgs } from 'node:util';
import { fileURLToPath } from 'node:url';
import { ComputeManagementClient } from '@azure/arm-compute';
import { DefaultAzureCredential } from '@azure/identity';
import { refreshCatalog } from './refresh.js';

const USAGE = `usage: refresh-azure-catalog [--prices] [--skus] [--regions eastus,westus2] [--subscription ID] [--out DIR]
  --prices        refresh pricing.json from the Azure Retail Prices API (default when neither is given)
  --skus          refresh vm-skus.json from ARM Resource SKUs (needs Azure credentials and a subscription)
  --regions       comma-separated ARM regions (default: every region in pricing.json)
  --subscription  subscription for the SKU list (default: $AZURE_SUBSCRIPTION_ID)
  --out           data folder (default: packages/provider-azure/data of this repository)`;

async function main(argv: string[]): Promise<void> {
  const { values } = parseArgs({
    args: argv,
    options: {
      prices: { type: 'boolean', default: false },
      skus: { type: 'boolean', default: false },
      regions: { type: 'string' },
      subscription: { type: 'string' },
      out: { type: 'string' },
      help: { type: 'boolean', short: 'h', default: false },
    },
  });
  if (values.help) {
    console.log(USAGE);
    return;
  }
  const prices = values.prices || !values.skus;
  const outDir =
    values.out ?? fileURLToPath(new URL('../../../packages/provider-azure/data/', import.meta.url));
  const subscription = values.subscription ?? process.env.AZURE_SUBSCRIPTION_ID;
  if (values.skus && !subscription)
    throw new Error('--subscription (or AZURE_SUBSCRIPTION_ID) is required with --skus');
  const summary = await refreshCatalog({
    outDir,
    prices,
    skus: values.skus,
    ...(values.regions
      ? {
          regions: values.regions
            .split(',')
            .map((r) => r.trim())
            .filter(Boolean),
        }
      : {}),
    computeClient: () =>
      new ComputeManagementClient(new DefaultAzureCredential(), subscription ?? ''),
  });
  console.log(
    `refreshed ${summary.regions.length} regions in ${outDir}: ${summary.onDemandPrices} on-demand and ${summary.spotPrices} spot prices, ${summary.skuRecords} VM size records`,
  );
}

main(process.argv.slice(2)).catch((err: unknown) => {
  console.error(`refresh-azure-catalog: ${err instanceof Error ? err.message : String(err)}`);
  process.exit(1);
});
