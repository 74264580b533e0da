import { describe, expect, test } from 'vitest';
import { applyDefaults, karpenterValidator } from '../src/index.js';
import { nodeClaim, nodePool, withField } from './builders.js';

describe('applyDefaults', () => {
  test('a minimal NodePool gains the CRD defaults for disruption and expireAfter', () => {
    const out = applyDefaults(nodePool());
    expect(out.spec.disruption).toEqual({
      consolidateAfter: '0s',
      consolidationPolicy: 'WhenEmptyOrUnderutilized',
      budgets: [{ nodes: '10%' }],
    });
    expect(out.spec.template.spec.expireAfter).toBe('720h');
  });

  test('a given disruption block keeps its values and gains the missing nested defaults', () => {
    const out = applyDefaults(
      withField(nodePool(), 'spec.disruption', {
        consolidateAfter: '5m',
        consolidationPolicy: 'WhenEmpty',
      }),
    );
    expect(out.spec.disruption).toEqual({
      consolidateAfter: '5m',
      consolidationPolicy: 'WhenEmpty',
      budgets: [{ nodes: '10%' }],
    });
  });

  test('budget items without nodes get 10%; explicit budgets are not replaced', () => {
    const out = applyDefaults(
      withField(nodePool(), 'spec.disruption', {
        consolidateAfter: '0s',
        budgets: [{ reasons: ['Drifted'] }, { nodes: '2' }],
      }),
    );
    expect(out.spec.disruption?.budgets).toEqual([
      { nodes: '10%', reasons: ['Drifted'] },
      { nodes: '2' },
    ]);
  });

  test('explicit Never is kept', () => {
    expect(
      applyDefaults(withField(nodePool(), 'spec.template.spec.expireAfter', 'Never')).spec.template
        .spec.expireAfter,
    ).toBe('Never');
  });

  test('status.nodes defaults to 0 when a status is present', () => {
    expect(applyDefaults(withField(nodePool(), 'status', {})).status).toEqual({ nodes: 0 });
  });

  test('a NodeClaim gains expireAfter 720h', () => {
    expect(applyDefaults(nodeClaim()).spec.expireAfter).toBe('720h');
  });

  test('returns a new object and leaves the input untouched', () => {
    const input = nodePool();
    const before = structuredClone(input);
    const out = applyDefaults(input);
    expect(input).toEqual(before);
    expect(out).not.toBe(input);
  });

  test('objects of unknown kinds come back unchanged', () => {
    const cm = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'x' }, data: { a: 'b' } };
    expect(applyDefaults(cm)).toEqual(cm);
  });

  test('defaults come from the CRD file: every default in the NodePool schema is applied', () => {
    const schema = karpenterValidator('NodePool').schema('v1');
    const text = JSON.stringify(schema);
    // The CRD carries exactly these defaults; if one is added, this test must learn it.
    expect(text.match(/"default":/g)?.length).toBe(7);
  });
});
