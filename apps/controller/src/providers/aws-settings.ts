/**
 * Settings of `--provider aws`, read from the environment under upstream
 * `aws/karpenter-provider-aws`'s names (`CLUSTER_ENDPOINT`, `CLUSTER_CA_BUNDLE`,
 * `VM_MEMORY_OVERHEAD_PERCENT`, `RESERVED_ENIS`) and the AWS SDK's (`AWS_REGION`,
 * `AWS_ENDPOINT_URL`; credentials come from the SDK's default chain: IRSA, Pod Identity, or the
 * `AWS_ACCESS_KEY_ID` variables), plus the operator flag `--interruption-queue`. `CLUSTER_ENDPOINT` is required: upstream discovers it with
 * DescribeCluster when unset, which this operator does not call.
 */

/** What the AWS provider needs from the environment. */
export interface AwsSettings {
  /** EC2 region (`AWS_REGION`, else `AWS_DEFAULT_REGION`). */
  readonly region: string;
  readonly clusterEndpoint: string;
  /** Base64 PEM of the cluster CA (`CLUSTER_CA_BUNDLE`). */
  readonly clusterCABundle?: string;
  /** One endpoint for EC2, SSM and IAM (`AWS_ENDPOINT_URL`, e.g. the AWS emulator in tests). */
  readonly endpoint?: string;
  readonly vmMemoryOverheadPercent?: number;
  readonly reservedENIs?: number;
  /**
   * `--interruption-queue` (`INTERRUPTION_QUEUE`): the SQS queue name, or its URL, that the
   * interruption controller polls; absent = no interruption controller (as upstream).
   */
  readonly interruptionQueue?: string;
}

/** Operator flags the AWS settings take besides the environment. */
export interface AwsSettingsFlags {
  /** `--interruption-queue`, trimmed; empty = none. */
  readonly interruptionQueue?: string;
}

/** An SQS queue name: 1-80 letters, digits, `-` and `_`, with `.fifo` for a FIFO queue. */
const QueueName = /^[A-Za-z0-9_-]{1,80}(\.fifo)?$/;
/** An SQS queue URL: `http(s)://<host>/<12-digit account>/<queue name>`. */
const QueueUrl = /^https?:\/\/[^/\s]+\/\d{12}\/[A-Za-z0-9_-]{1,80}(\.fifo)?$/;

/** Whether `value` is an SQS queue name or queue URL (what `--interruption-queue` takes). */
export function isInterruptionQueue(value: string): boolean {
  return QueueName.test(value) || QueueUrl.test(value);
}

/**
 * Reads the settings from `env`. Raises Error naming every missing or malformed variable at once:
 * `AWS_REGION` missing or not a region name, `CLUSTER_ENDPOINT` missing or not an `https://` URL,
 * `AWS_ENDPOINT_URL` not an `http(s)://` URL, `VM_MEMORY_OVERHEAD_PERCENT` outside [0, 1),
 * `RESERVED_ENIS` not a non-negative integer, `--interruption-queue` neither an SQS queue name
 * (1-80 of `A-Za-z0-9_-`, optionally `.fifo`) nor a queue URL (`https://<host>/<account>/<name>`).
 */
export function readAwsSettings(env: NodeJS.ProcessEnv, flags: AwsSettingsFlags = {}): AwsSettings {
  const problems: string[] = [];
  const get = (name: string): string => (env[name] ?? '').trim();
  const region = get('AWS_REGION') || get('AWS_DEFAULT_REGION');
  if (region === '') problems.push('AWS_REGION (or AWS_DEFAULT_REGION) is required');
  else if (!/^[a-z]{2}(-[a-z]+)+-\d+$/.test(region))
    problems.push(
      `AWS_REGION must be an AWS region name such as us-west-2, got ${JSON.stringify(region)}`,
    );
  const clusterEndpoint = get('CLUSTER_ENDPOINT');
  if (clusterEndpoint === '')
    problems.push('CLUSTER_ENDPOINT is required (the API server URL nodes join)');
  else if (!/^https:\/\/[^/]+/.test(clusterEndpoint))
    problems.push(
      `CLUSTER_ENDPOINT must be an https:// URL with a host, got ${JSON.stringify(clusterEndpoint)}`,
    );
  const endpoint = get('AWS_ENDPOINT_URL');
  if (endpoint !== '' && !/^https?:\/\/[^/]+/.test(endpoint))
    problems.push(
      `AWS_ENDPOINT_URL must be an http:// or https:// URL, got ${JSON.stringify(endpoint)}`,
    );
  const overhead = get('VM_MEMORY_OVERHEAD_PERCENT');
  const overheadValue = overhead === '' ? undefined : Number(overhead);
  if (overheadValue !== undefined && !(overheadValue >= 0 && overheadValue < 1))
    problems.push(
      `VM_MEMORY_OVERHEAD_PERCENT must be a fraction in [0, 1), got ${JSON.stringify(overhead)}`,
    );
  const enis = get('RESERVED_ENIS');
  const enisValue = enis === '' ? undefined : Number(enis);
  if (enisValue !== undefined && !(Number.isInteger(enisValue) && enisValue >= 0))
    problems.push(`RESERVED_ENIS must be a non-negative integer, got ${JSON.stringify(enis)}`);
  const queue = (flags.interruptionQueue ?? '').trim();
  if (queue !== '' && !isInterruptionQueue(queue))
    problems.push(
      `--interruption-queue (INTERRUPTION_QUEUE) must be an SQS queue name (1-80 letters, digits, - and _, optionally .fifo) or a queue URL https://<host>/<account>/<name>, got ${JSON.stringify(queue)}`,
    );
  if (problems.length > 0) throw new Error(`--provider aws: ${problems.join('; ')}`);
  const ca = get('CLUSTER_CA_BUNDLE');
  return {
    region,
    clusterEndpoint,
    ...(ca !== '' ? { clusterCABundle: ca } : {}),
    ...(endpoint !== '' ? { endpoint } : {}),
    ...(overheadValue !== undefined ? { vmMemoryOverheadPercent: overheadValue } : {}),
    ...(enisValue !== undefined ? { reservedENIs: enisValue } : {}),
    ...(queue !== '' ? { interruptionQueue: queue } : {}),
  };
}

/** The settings as a log line's fields (nothing here is secret). */
export function describeAwsSettings(s: AwsSettings): Record<string, unknown> {
  return { ...s };
}
