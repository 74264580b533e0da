/**
 * Spot price refresh (upstream's pricing controller, reference 4.4): DescribeSpotPriceHistory at
 * start and every 12 hours; a failure keeps the previous prices (the shipped model until the
 * first success).
 */
import type { PeriodicTask } from '@karpenter-ts/controllers';
import type { AwsCloudProvider } from '../../cloudprovider/aws-cloud-provider.js';

/** Seconds between refreshes. */
export const SpotPriceRefreshSeconds = 12 * 3600;

/** The periodic task; a run resolves with the number of prices read. */
export function awsSpotPriceRefreshTask(provider: AwsCloudProvider): PeriodicTask {
  return {
    name: 'aws.pricing.spot',
    intervalSeconds: SpotPriceRefreshSeconds,
    run: () => provider.refreshSpotPrices(),
  };
}
