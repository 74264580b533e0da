/**
 * The AWS SDK clients the provider calls, built once per controller. Tests point them at the
 * AWS emulator (tools/aws-emulator) through `endpoint`; in a cluster they use the SDK's default
 * credential chain (IRSA or Pod Identity).
 */
import { EC2Client } from '@aws-sdk/client-ec2';
import { IAMClient } from '@aws-sdk/client-iam';
import { SQSClient } from '@aws-sdk/client-sqs';
import { SSMClient } from '@aws-sdk/client-ssm';

/** The provider's clients. */
export interface AwsClients {
  readonly ec2: EC2Client;
  readonly ssm: SSMClient;
  readonly iam: IAMClient;
}

/** Options of {@link createAwsClients}. */
export interface AwsClientOptions {
  /** EC2 region, e.g. `us-west-2`. */
  readonly region: string;
  /** One endpoint for every service (the emulator); default the SDK's regional endpoints. */
  readonly endpoint?: string;
  /** Static credentials; default the SDK's credential chain. */
  readonly credentials?: { accessKeyId: string; secretAccessKey: string; sessionToken?: string };
  /** Attempts per call including retries (SDK standard retry: throttling and 5xx); default 3. */
  readonly maxAttempts?: number;
}

function clientConfig(options: AwsClientOptions) {
  return {
    region: options.region,
    maxAttempts: options.maxAttempts ?? 3,
    ...(options.endpoint ? { endpoint: options.endpoint } : {}),
    ...(options.credentials ? { credentials: options.credentials } : {}),
  };
}

/** Builds the EC2, SSM and IAM clients for `options.region`. */
export function createAwsClients(options: AwsClientOptions): AwsClients {
  const config = clientConfig(options);
  return { ec2: new EC2Client(config), ssm: new SSMClient(config), iam: new IAMClient(config) };
}

/**
 * Builds the SQS client of the interruption queue (only made when `--interruption-queue` is
 * set). With `endpoint` every call goes there; without it the SDK sends each call to the host of
 * the queue URL, as the AWS SDKs do.
 */
export function createSqsClient(options: AwsClientOptions): SQSClient {
  return new SQSClient(clientConfig(options));
}
