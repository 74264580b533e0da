import { describe, expect, it } from 'vitest';
import { kubeletFlags, type BootstrapInputs } from '../../src/launch/custom-data.js';

const inputs: BootstrapInputs = {
  clusterName: 'test',
  clusterEndpoint: 'https://example:443',
  bootstrapToken: 'abc.def',
  labels: { 'karpenter.sh/nodepool': 'default' },
  taints: [{ key: 'gpu', value: 'true', effect: 'NoSchedule' }],
  startupTaints: [{ key: 'startup', effect: 'NoSchedule' }],
  maxPods: 30,
  kubeReserved: { cpu: 100, memory: 2 ** 30 },
  evictionMemoryAvailable: 750 * 2 ** 20,
  imageFamily: 'Ubuntu',
};

const registerWithTaints = (flags: string[]) =>
  flags
    .find((f) => f.startsWith('--register-with-taints='))
    ?.split('=')
    .slice(1)
    .join('=');

describe('kubelet flags in the bootstrap custom data', () => {
  it('registers the node with the karpenter.sh/unregistered taint, then the node claim taints and startup taints', () => {
    expect(registerWithTaints(kubeletFlags(inputs))).toBe(
      'karpenter.sh/unregistered:NoExecute,gpu=true:NoSchedule,startup:NoSchedule',
    );
  });

  it('does not repeat the unregistered taint when the node claim already carries it', () => {
    const flags = kubeletFlags({
      ...inputs,
      taints: [{ key: 'karpenter.sh/unregistered', effect: 'NoExecute' }],
      startupTaints: [],
    });
    expect(registerWithTaints(flags)).toBe('karpenter.sh/unregistered:NoExecute');
  });
});
