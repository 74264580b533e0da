// `--provider aws` settings from the environment: what is required, what is refused, named together.
import { describe, expect, it } from 'vitest';
import { readAwsSettings } from '../src/providers/aws-settings.js';

describe('readAwsSettings', () => {
  it('reads the region, endpoint, CA bundle, AWS endpoint override and catalog flags', () => {
    expect(
      readAwsSettings({
        AWS_REGION: 'us-west-2',
        CLUSTER_ENDPOINT: 'https://ABC.gr7.us-west-2.eks.amazonaws.com',
        CLUSTER_CA_BUNDLE: 'Q0E=',
        AWS_ENDPOINT_URL: 'http://127.0.0.1:4566',
        VM_MEMORY_OVERHEAD_PERCENT: '0.05',
        RESERVED_ENIS: '1',
      }),
    ).toEqual({
      region: 'us-west-2',
      clusterEndpoint: 'https://ABC.gr7.us-west-2.eks.amazonaws.com',
      clusterCABundle: 'Q0E=',
      endpoint: 'http://127.0.0.1:4566',
      vmMemoryOverheadPercent: 0.05,
      reservedENIs: 1,
    });
    expect(
      readAwsSettings({ AWS_DEFAULT_REGION: 'us-east-1', CLUSTER_ENDPOINT: 'https://x' }).region,
    ).toBe('us-east-1');
  });

  it('takes --interruption-queue as a queue name or a queue URL', () => {
    const env = { AWS_REGION: 'us-west-2', CLUSTER_ENDPOINT: 'https://x' };
    expect(readAwsSettings(env, { interruptionQueue: 'eks-1_interruptions' })).toMatchObject({
      interruptionQueue: 'eks-1_interruptions',
    });
    const url = 'https://sqs.us-west-2.amazonaws.com/123456789012/eks-1';
    expect(readAwsSettings(env, { interruptionQueue: url }).interruptionQueue).toBe(url);
    expect(readAwsSettings(env, { interruptionQueue: '' })).not.toHaveProperty('interruptionQueue');
    for (const bad of ['has space', 'x'.repeat(81), 'https://sqs.example.com/eks-1'])
      expect(() => readAwsSettings(env, { interruptionQueue: bad })).toThrow(
        `--interruption-queue (INTERRUPTION_QUEUE) must be an SQS queue name (1-80 letters, digits, - and _, optionally .fifo) or a queue URL https://<host>/<account>/<name>, got ${JSON.stringify(bad)}`,
      );
  });

  it('names every missing or malformed variable in one error', () => {
    expect(() => readAwsSettings({})).toThrow(
      '--provider aws: AWS_REGION (or AWS_DEFAULT_REGION) is required; CLUSTER_ENDPOINT is required (the API server URL nodes join)',
    );
    expect(() =>
      readAwsSettings({
        AWS_REGION: 'US West',
        CLUSTER_ENDPOINT: 'http://plain',
        AWS_ENDPOINT_URL: 'localhost:4566',
        VM_MEMORY_OVERHEAD_PERCENT: '7.5',
        RESERVED_ENIS: '-1',
      }),
    ).toThrow(
      /AWS_REGION must be an AWS region name.*CLUSTER_ENDPOINT must be an https:\/\/ URL.*AWS_ENDPOINT_URL must be an http:\/\/ or https:\/\/ URL.*VM_MEMORY_OVERHEAD_PERCENT must be a fraction.*RESERVED_ENIS must be a non-negative integer/,
    );
  });
});
