import { describe, expect, test } from 'vitest';
import { validateNodePoolRuntime } from '../src/index.js';
import { nodePool, withField } from './builders.js';

const T = 'spec.template.spec';

describe('validateNodePoolRuntime', () => {
  test('a valid NodePool has no runtime violations', () => {
    expect(validateNodePoolRuntime(nodePool())).toEqual([]);
  });

  test('the same taint key and effect in taints and startupTaints is a duplicate', () => {
    const np = withField(
      withField(nodePool(), `${T}.taints`, [
        { key: 'example.com/gpu', value: 'a', effect: 'NoSchedule' },
      ]),
      `${T}.startupTaints`,
      [
        { key: 'example.com/gpu', value: 'b', effect: 'NoSchedule' },
        { key: 'example.com/gpu', effect: 'NoExecute' },
      ],
    );
    const v = validateNodePoolRuntime(np);
    expect(v).toEqual([
      expect.objectContaining({
        path: `${T}.startupTaints[0]`,
        rule: 'runtime:taints',
        apiServer: 'accept',
      }),
    ]);
    expect(v[0]?.message).toMatch(
      /duplicate taint example.com\/gpu:NoSchedule.*spec.template.spec.taints\[0\]/,
    );
  });

  test('a label key that is not a qualified name is invalid', () => {
    const v = validateNodePoolRuntime(
      withField(nodePool(), 'spec.template.metadata.labels', { 'a/b/c': 'x' }),
    );
    expect(v.map((x) => x.rule)).toEqual(['runtime:labels']);
  });

  test('karpenter.sh/nodepool cannot be a template label', () => {
    const v = validateNodePoolRuntime(
      withField(nodePool(), 'spec.template.metadata.labels', { 'karpenter.sh/nodepool': 'x' }),
    );
    expect(v).toEqual([
      expect.objectContaining({ path: 'spec.template.metadata.labels[karpenter.sh/nodepool]' }),
    ]);
  });

  test('provider domains are restricted except their well-known labels', () => {
    const np = withField(nodePool(), `${T}.requirements`, [
      { key: 'karpenter.azure.com/sku-family', operator: 'In', values: ['D'] },
      { key: 'karpenter.azure.com/internal', operator: 'Exists' },
    ]);
    const v = validateNodePoolRuntime(np, {
      extraRestrictedDomains: ['karpenter.azure.com'],
      extraWellKnownLabels: ['karpenter.azure.com/sku-family'],
    });
    expect(v.map((x) => x.path)).toEqual([`${T}.requirements[1].key`]);
  });

  test('a restricted key close to a well-known label names it as a hint', () => {
    const np = withField(
      withField(nodePool(), `${T}.requirements`, [
        { key: 'karpenter.azure.com/sku-familly', operator: 'In', values: ['D'] },
        { key: 'karpenter.azure.com/internal', operator: 'Exists' },
        { key: 'karpenter.sh/capacity-typ', operator: 'In', values: ['spot'] },
      ]),
      'spec.template.metadata.labels',
      { 'karpenter.azure.com/sku-cpuu': '4' },
    );
    const v = validateNodePoolRuntime(np, {
      extraRestrictedDomains: ['karpenter.azure.com'],
      extraWellKnownLabels: ['karpenter.azure.com/sku-family', 'karpenter.azure.com/sku-cpu'],
    });
    expect(v.map((x) => x.message)).toEqual([
      'label karpenter.azure.com/sku-cpuu is restricted (its domain is reserved); did you mean karpenter.azure.com/sku-cpu?',
      'requirement key karpenter.azure.com/sku-familly is restricted (its domain is reserved); did you mean karpenter.azure.com/sku-family?',
      'requirement key karpenter.azure.com/internal is restricted (its domain is reserved)',
      'requirement key karpenter.sh/capacity-typ is restricted (its domain is reserved); did you mean karpenter.sh/capacity-type?',
    ]);
  });

  test('deprecated requirement keys are normalized before the checks', () => {
    const np = withField(nodePool(), `${T}.requirements`, [
      { key: 'beta.kubernetes.io/arch', operator: 'In', values: ['arm64'] },
    ]);
    expect(validateNodePoolRuntime(np)).toEqual([]);
  });

  test('capacity-type In needs at least one known capacity type', () => {
    const np = withField(nodePool(), `${T}.requirements`, [
      { key: 'karpenter.sh/capacity-type', operator: 'In', values: ['preemptible'] },
    ]);
    expect(validateNodePoolRuntime(np)[0]?.message).toMatch(/on-demand, spot, reserved/);
  });

  test('capacity-type minValues counts only valid capacity types', () => {
    const np = withField(nodePool(), `${T}.requirements`, [
      {
        key: 'karpenter.sh/capacity-type',
        operator: 'In',
        values: ['spot', 'cheap'],
        minValues: 2,
      },
    ]);
    expect(validateNodePoolRuntime(np).map((x) => x.path)).toEqual([
      `${T}.requirements[0].minValues`,
    ]);
  });

  test('Gt needs one non-negative integer; unknown operators are reported', () => {
    const np = withField(nodePool(), `${T}.requirements`, [
      { key: 'example.com/gen', operator: 'Gt', values: ['v5'] },
      { key: 'example.com/x', operator: 'Like', values: ['a'] },
    ]);
    expect(validateNodePoolRuntime(np).map((x) => x.path)).toEqual([
      `${T}.requirements[0].values`,
      `${T}.requirements[1].operator`,
    ]);
  });

  test.each([
    [`${T}.requirements`, 'Gte'],
    [`${T}.requirements`, { key: 'a' }],
    [`${T}.requirements`, ['Gte', 7, null]],
    [`${T}.requirements`, [{ key: 'kubernetes.io/arch', operator: 'In', values: 'amd64' }]],
    [`${T}.taints`, 'Gte'],
    [`${T}.startupTaints`, { key: 'a', effect: 'NoSchedule' }],
    [`${T}.taints`, [5, 'a=b:NoSchedule']],
    ['spec.template.metadata.labels', 'tier=web'],
    ['spec.template.metadata.labels', ['a']],
    ['spec.template', 'x'],
  ])(
    'leaves a wrong type at %s = %j to the schema check: no runtime problem, no exception',
    (path, value) => {
      expect(validateNodePoolRuntime(withField(nodePool(), path, value))).toEqual([]);
    },
  );

  test('malformed input does not throw', () => {
    expect(() => validateNodePoolRuntime({} as never)).not.toThrow();
    expect(() =>
      validateNodePoolRuntime(withField(nodePool(), `${T}.taints`, [null])),
    ).not.toThrow();
  });
});
