/**
 * Upstream NodePools, NodeClaims and NodeOverlays whose verdict offline must equal the API
 * server's (issue 15, Validation): each case here was judged differently before.
 */
import { describe, expect, it } from 'vitest';
import { dropPrunedNulls, validate } from '../src/index.js';

const nodeClassRef = { group: 'karpenter.azure.com', kind: 'AKSNodeClass', name: 'default' };
const requirements = [{ key: 'kubernetes.io/arch', operator: 'In', values: ['amd64'] }];

describe('empty optional fields (Validation 1)', () => {
  const pool = {
    apiVersion: 'karpenter.sh/v1',
    kind: 'NodePool',
    metadata: { name: 'empty', labels: null },
    spec: {
      weight: null,
      limits: null,
      template: { metadata: { labels: null }, spec: { taints: null, nodeClassRef, requirements } },
    },
  };

  it('are valid, and dropPrunedNulls leaves them out as the stored object does', () => {
    expect(validate(pool)).toEqual([]);
    expect(dropPrunedNulls(pool)).toEqual({
      ...pool,
      spec: { template: { metadata: {}, spec: { nodeClassRef, requirements } } },
    });
  });

  it('dropPrunedNulls keeps unknown fields and returns other kinds unchanged', () => {
    const withUnknown = { ...pool, spec: { ...pool.spec, bogus: null } };
    expect(dropPrunedNulls(withUnknown).spec).toHaveProperty('bogus', null);
    const other = { apiVersion: 'v1', kind: 'ConfigMap', data: null };
    expect(dropPrunedNulls(other)).toEqual(other);
  });
});
