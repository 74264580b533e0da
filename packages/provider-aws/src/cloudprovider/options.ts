/**
 * Options of {@link AwsCloudProvider}: the operator settings of upstream Karpenter's AWS provider
 * that
 * the launch path uses, and the seams (SDK clients, NodeClass lookup, clock).
 */
import type { Clock } from '@karpenter-ts/cloudprovider';
import type { AwsClients } from '../aws/clients.js';
import type { EC2NodeClass } from '../ec2nodeclass.js';
import type { AwsCatalogOptions } from '../instance-types.js';

/** Where the provider reports what it did. */
export interface AwsProviderLogger {
  info(message: string, fields?: Record<string, unknown>): void;
  warn(message: string, fields?: Record<string, unknown>): void;
}

/** Options of the AWS cloud provider. */
export interface AwsCloudProviderOptions {
  readonly clients: AwsClients;
  /** EC2 region, e.g. `us-west-2`; must be in the shipped catalog (us-east-1, us-east-2, us-west-2). */
  readonly region: string;
  /** `--cluster-name`: tagged on every resource; `list` and garbage collection select on it. */
  readonly clusterName: string;
  /** `--cluster-endpoint`: the API server URL nodes join. */
  readonly clusterEndpoint: string;
  /** `--cluster-ca-bundle`: base64 PEM written into user data. */
  readonly clusterCABundle?: string;
  /** Cluster DNS IPs for the kubelet (`kubelet.clusterDNS` of the NodeClass wins). */
  readonly clusterDNS?: readonly string[];
  /** Looks up an EC2NodeClass by name (undefined when absent). */
  getNodeClass(name: string): Promise<EC2NodeClass | undefined>;
  /** `--vm-memory-overhead-percent`, `--reserved-enis`, spot price factor, catalog. */
  readonly catalog?: Omit<AwsCatalogOptions, 'unavailableOfferings'>;
  /**
   * The core `ReservedCapacity` feature gate; default true (upstream's default). Off: no
   * reserved offerings, launch templates set no capacity reservation preference, and instances
   * in a reservation are labelled on-demand.
   */
  readonly reservedCapacity?: boolean;
  readonly clock?: Clock;
  readonly logger?: AwsProviderLogger;
}
