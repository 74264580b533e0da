import { describe, expect, test } from 'vitest';
import {
  Annotations,
  NodePoolHashVersion,
  nodePoolHash,
  UpstreamNodePoolHashVersion,
} from '../src/index.js';
import { nodePool, withField } from './builders.js';

const T = 'spec.template.spec';
const taintA = { key: 'a', effect: 'NoSchedule' };
const taintB = { key: 'b', value: 'x', effect: 'NoExecute' };

describe('nodePoolHash', () => {
  test('is stable: this value changes only with a hash-version bump', () => {
    // Pinned so an accidental change to the algorithm or its inputs fails here. The value is
    // FNV-1a 64 of {"expireAfter":"720h","nodeClassRef":{"group":"karpenter.azure.com",
    // "kind":"AKSNodeClass","name":"default"}}, cross-checked with an independent implementation.
    expect(nodePoolHash(nodePool())).toBe('4739289720510877534');
  });

  test('uses its own version, not upstream v3', () => {
    expect(NodePoolHashVersion).not.toBe(UpstreamNodePoolHashVersion);
    expect(Annotations.NodePoolHashVersion).toBe('karpenter.sh/nodepool-hash-version');
  });

  test('treats taint lists as sets', () => {
    const a = withField(nodePool(), `${T}.taints`, [taintA, taintB]);
    const b = withField(nodePool(), `${T}.taints`, [taintB, taintA]);
    expect(nodePoolHash(a)).toBe(nodePoolHash(b));
  });

  test('ignores requirements, budgets, limits and weight', () => {
    const base = nodePoolHash(nodePool());
    expect(nodePoolHash(withField(nodePool(), `${T}.requirements`, []))).toBe(base);
    expect(
      nodePoolHash(
        withField(nodePool(), 'spec.disruption', {
          consolidateAfter: '1m',
          budgets: [{ nodes: '0' }],
        }),
      ),
    ).toBe(base);
    expect(nodePoolHash(withField(nodePool(), 'spec.limits', { cpu: '10' }))).toBe(base);
    expect(nodePoolHash(withField(nodePool(), 'spec.weight', 7))).toBe(base);
  });

  test.each([
    ['labels', 'spec.template.metadata.labels', { team: 'a' }],
    ['annotations', 'spec.template.metadata.annotations', { note: 'x' }],
    ['taints', `${T}.taints`, [taintA]],
    ['startupTaints', `${T}.startupTaints`, [taintA]],
    ['nodeClassRef', `${T}.nodeClassRef.name`, 'other'],
    ['terminationGracePeriod', `${T}.terminationGracePeriod`, '1h'],
    ['expireAfter', `${T}.expireAfter`, '24h'],
  ])('changes when %s changes', (_name, path, value) => {
    expect(nodePoolHash(withField(nodePool(), path, value))).not.toBe(nodePoolHash(nodePool()));
  });

  test('a defaulted expireAfter hashes like the explicit default; empty values like absent ones', () => {
    expect(nodePoolHash(withField(nodePool(), `${T}.expireAfter`, '720h'))).toBe(
      nodePoolHash(nodePool()),
    );
    expect(nodePoolHash(withField(nodePool(), 'spec.template.metadata.labels', {}))).toBe(
      nodePoolHash(nodePool()),
    );
    expect(nodePoolHash(withField(nodePool(), `${T}.taints`, []))).toBe(nodePoolHash(nodePool()));
  });
});
