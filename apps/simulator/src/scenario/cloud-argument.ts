/**
 * A cloud named on the command line or in a sweep, `cloud[:region]` (`aws:us-west-2`): the run
 * keeps the scenario's own manifests for that cloud.
 */
import { CLOUD_NAMES, UsageError, type CloudName } from '@karpenter-ts/cli';
import type { CloudRun, Scenario } from './types.js';

/** Raises the CLI's UsageError naming `flag` for a cloud that is not azure, aws or sim. */
export function parseCloudArgument(value: string, scenario: Scenario, flag: string): CloudRun {
  const [cloud, region] = value.split(':', 2);
  if (!CLOUD_NAMES.includes(cloud as CloudName))
    throw new UsageError(
      `${flag}: expected one of ${CLOUD_NAMES.join(', ')} (optionally :region), got ${JSON.stringify(value)}`,
    );
  const own = scenario.clouds.find((c) => c.cloud === cloud);
  return {
    cloud: cloud as CloudName,
    region: region || undefined,
    manifests: own?.manifests ?? [],
    documents: own?.documents ?? [],
  };
}
