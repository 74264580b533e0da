/**
 * `--provider aws`, wiring only: the {@link AwsCloudProvider} of `@karpenter-ts/provider-aws`
 * built from the operator options and the environment ({@link readAwsSettings}), talking to EC2,
 * SSM and IAM through the AWS SDK, and the provider package's own controllers (the EC2NodeClass
 * status and termination controllers, launch template and instance profile garbage collection,
 * the spot price refresh, and with `--interruption-queue` the interruption controller polling
 * SQS) handed to the manager with the AWS well-known labels. Orphan instances are collected by
 * the core garbage collection over `list()`.
 */
import {
  AwsCloudProvider,
  AwsWellKnownLabels,
  EC2NodeClassResource,
  InterruptionController,
  SqsInterruptionQueue,
  apiServerMinorVersion,
  awsInstanceProfileGarbageCollectionTask,
  awsLaunchTemplateGarbageCollectionTask,
  awsSpotPriceRefreshTask,
  createAwsClients,
  createSqsClient,
  ec2NodeClassStatusController,
  ec2NodeClassTerminationController,
  type AwsProviderLogger,
  type EC2NodeClass,
  type InterruptionMetrics,
} from '@karpenter-ts/provider-aws';
import type { Clock, KubeClient, ReconcileResult } from '@karpenter-ts/controllers';
import type { Logger } from '../observability/logger.js';
import type { PeriodicTask } from '../runtime/manager.js';
import type { RawRequest } from '../sim/kwok-cluster-api.js';
import { describeAwsSettings, type AwsSettings } from './aws-settings.js';

export { EC2NodeClassResource };

/** What the operator needs to run the AWS provider. */
export interface AwsWiring {
  readonly cloudProvider: AwsCloudProvider;
  readonly extraWellKnownLabels: readonly string[];
  /** The EC2NodeClass status and termination reconcilers, run in turn per NodeClass name. */
  readonly nodeClassReconcilers: readonly ((name: string) => Promise<ReconcileResult>)[];
  readonly periodic: readonly PeriodicTask[];
  /** The interruption controller, when `--interruption-queue` is set (its task is in `periodic`). */
  readonly interruption?: InterruptionController;
}

/** Inputs of {@link wireAwsProvider}. */
export interface AwsWiringInputs {
  readonly settings: AwsSettings;
  /** `--cluster-name`, required for aws by the options. */
  readonly clusterName: string;
  readonly client: KubeClient;
  readonly request: RawRequest;
  readonly clock: Clock;
  readonly logger: Logger;
  /** Where the interruption controller's counts go (the operator's Prometheus metrics). */
  readonly interruptionMetrics?: InterruptionMetrics;
  /** The core `ReservedCapacity` feature gate (capacity reservations); default true. */
  readonly reservedCapacity?: boolean;
}

/** Builds the provider and its controllers. Logs the settings. */
export function wireAwsProvider(inputs: AwsWiringInputs): AwsWiring {
  const { settings: s, client, logger } = inputs;
  logger.info(describeAwsSettings(s), 'aws provider settings');
  const providerLogger: AwsProviderLogger = {
    info: (message, fields) => logger.info(fields ?? {}, message),
    warn: (message, fields) => logger.warn(fields ?? {}, message),
  };
  const clients = createAwsClients({
    region: s.region,
    ...(s.endpoint !== undefined ? { endpoint: s.endpoint } : {}),
  });
  const nodeClassKind = { group: EC2NodeClassResource.group, kind: EC2NodeClassResource.kind };
  const cloudProvider = new AwsCloudProvider({
    clients,
    region: s.region,
    clusterName: inputs.clusterName,
    clusterEndpoint: s.clusterEndpoint,
    ...(s.clusterCABundle !== undefined ? { clusterCABundle: s.clusterCABundle } : {}),
    catalog: {
      ...(s.vmMemoryOverheadPercent !== undefined
        ? { vmMemoryOverheadPercent: s.vmMemoryOverheadPercent }
        : {}),
      ...(s.reservedENIs !== undefined ? { reservedENIs: s.reservedENIs } : {}),
    },
    getNodeClass: async (name) =>
      (await client.get('NodeClass', { name, nodeClass: nodeClassKind })) as
        EC2NodeClass | undefined,
    clock: inputs.clock,
    logger: providerLogger,
    reservedCapacity: inputs.reservedCapacity ?? true,
  });
  const periodic: PeriodicTask[] = [
    awsLaunchTemplateGarbageCollectionTask(cloudProvider),
    awsSpotPriceRefreshTask(cloudProvider),
    awsInstanceProfileGarbageCollectionTask({
      client,
      clients,
      clock: inputs.clock,
      region: s.region,
      clusterName: inputs.clusterName,
    }),
  ];
  let interruption: InterruptionController | undefined;
  if (s.interruptionQueue !== undefined) {
    interruption = new InterruptionController({
      client,
      queue: new SqsInterruptionQueue({
        sqs: createSqsClient({
          region: s.region,
          ...(s.endpoint !== undefined ? { endpoint: s.endpoint } : {}),
        }),
        queue: s.interruptionQueue,
      }),
      unavailableOfferings: cloudProvider.unavailableOfferings,
      reservationCapacity: cloudProvider.reservationCapacity,
      clock: inputs.clock,
      logger: {
        info: (message, fields) => logger.info(fields ?? {}, message),
        error: (message, fields) => logger.error(fields ?? {}, message),
      },
      ...(inputs.interruptionMetrics !== undefined ? { metrics: inputs.interruptionMetrics } : {}),
    });
    periodic.push(interruption.task());
    logger.info({ queue: s.interruptionQueue }, 'watching the interruption queue');
  }
  return {
    cloudProvider,
    extraWellKnownLabels: [...AwsWellKnownLabels],
    periodic,
    ...(interruption !== undefined ? { interruption } : {}),
    nodeClassReconcilers: [
      ec2NodeClassStatusController({
        client,
        clock: inputs.clock,
        clients,
        region: s.region,
        clusterName: inputs.clusterName,
        kubernetesVersion: apiServerMinorVersion((m, p) => inputs.request(m, p), inputs.clock),
        reservedCapacity: inputs.reservedCapacity ?? true,
        // The launch path counts reservations down from what this controller last read.
        reservationCapacity: cloudProvider.reservationCapacity,
      }),
      ec2NodeClassTerminationController({
        client,
        clients,
        region: s.region,
        clusterName: inputs.clusterName,
      }),
    ],
  };
}
