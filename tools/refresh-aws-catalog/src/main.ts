#!/usr/bin/env node
/**
 * `refresh-aws-catalog`: refreshes packages/provider-aws/data from DescribeInstanceTypes,
 * DescribeInstanceTypeOfferings and the AWS Pricing API, with the default AWS credential chain
 * (environment, shared config/SSO profile, instance or container role). Usage in README.md.
 * Exits 1 with a one-line message on error.
 */
import { parseArgs } from 'node:util';
import { fileURLToPath } from 'node:url';
import { EC2Client } from '@aws-sdk/client-ec2';
import { PricingClient } from '@aws-sdk/client-pricing';
import { refreshAwsCatalog } from './refresh.js';

const USAGE = `usage: refresh-aws-catalog [--instance-types] [--offerings] [--prices] [--regions us-east-1,us-west-2] [--out DIR]
  --instance-types  refresh instance-types.json (ec2:DescribeInstanceTypes)
  --offerings       refresh instance-type-offerings.json (ec2:DescribeInstanceTypeOfferings)
  --prices          refresh pricing-on-demand.json (pricing:GetProducts)
                    (all three when none is given)
  --regions         comma-separated EC2 regions (default: us-east-1,us-east-2,us-west-2)
  --out             data folder (default: packages/provider-aws/data of this repository)`;

async function main(argv: string[]): Promise<void> {
  const { values } = parseArgs({
    args: argv,
    options: {
      'instance-types': { type: 'boolean', default: false },
      offerings: { type: 'boolean', default: false },
      prices: { type: 'boolean', default: false },
      regions: { type: 'string' },
      out: { type: 'string' },
      help: { type: 'boolean', short: 'h', default: false },
    },
  });
  if (values.help) {
    console.log(USAGE);
    return;
  }
  const all = !values['instance-types'] && !values.offerings && !values.prices;
  const outDir =
    values.out ?? fileURLToPath(new URL('../../../packages/provider-aws/data/', import.meta.url));
  const regions = (values.regions ?? 'us-east-1,us-east-2,us-west-2')
    .split(',')
    .map((r) => r.trim())
    .filter(Boolean);
  const summary = await refreshAwsCatalog({
    outDir,
    regions,
    instanceTypes: all || values['instance-types'],
    offerings: all || values.offerings,
    prices: all || values.prices,
    ec2Client: (region) => new EC2Client({ region }),
    pricingClient: (region) => new PricingClient({ region }),
  });
  console.log(
    `refreshed ${summary.regions.join(', ')} in ${outDir}: ${summary.refreshedInstanceTypes} instance types from EC2 (${summary.instanceTypes} on file), ${summary.offerings} zone offering lists, ${summary.prices} on-demand prices`,
  );
}

main(process.argv.slice(2)).catch((err: unknown) => {
  console.error(`refresh-aws-catalog: ${err instanceof Error ? err.message : String(err)}`);
  process.exit(1);
});
