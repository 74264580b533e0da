/**
 * Picks the cloud adapter for `--cloud` and `--region`.
 */
import type { CloudName } from '../commands/options.js';
import type { Cloud } from './cloud.js';
import { awsCloud } from './aws.js';
import { azureCloud } from './azure.js';
import { checkRegion } from './regions.js';
import { simCloud, SIM_REGION } from './sim.js';

/** Default region per cloud: Azure `eastus`, AWS `us-east-1`, sim `sim`. */
export const DEFAULT_REGIONS: Readonly<Record<CloudName, string>> = {
  azure: 'eastus',
  aws: 'us-east-1',
  sim: SIM_REGION,
};

/**
 * The cloud adapter for `name` in `region` (default {@link DEFAULT_REGIONS}). Raises UsageError
 * (exit 2, naming `flag`) for a region the cloud's catalog does not cover, or any region on sim.
 */
export function createCloud(name: CloudName, region: string | undefined, flag = '--region'): Cloud {
  if (region !== undefined) checkRegion(name, region, flag);
  const where = region ?? DEFAULT_REGIONS[name];
  switch (name) {
    case 'sim':
      return simCloud(where);
    case 'azure':
      return azureCloud(where);
    case 'aws':
      return awsCloud(where);
  }
}
