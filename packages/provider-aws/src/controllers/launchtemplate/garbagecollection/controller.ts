/**
 * Launch template garbage collection: a singleton that deletes the cluster's launch templates no
 * active instance was launched from, older than a minute. Upstream gets the same effect by
 * deleting a template when it leaves its 1-minute cache unused, and on EC2NodeClass deletion.
 */
import type { PeriodicTask } from '@karpenter-ts/controllers';
import type { AwsCloudProvider } from '../../../cloudprovider/aws-cloud-provider.js';

/** Seconds between passes. */
export const LaunchTemplateGarbageCollectionSeconds = 120;

/** The periodic task; a run resolves with the names it deleted. */
export function awsLaunchTemplateGarbageCollectionTask(provider: AwsCloudProvider): PeriodicTask {
  return {
    name: 'aws.launchtemplate.garbagecollection',
    intervalSeconds: LaunchTemplateGarbageCollectionSeconds,
    run: () => provider.garbageCollectLaunchTemplates(60),
  };
}
