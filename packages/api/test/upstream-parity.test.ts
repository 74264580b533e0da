/**
 * Upstream NodePools, NodeClaims and NodeOverlays whose verdict offline must equal the API
 * server's (issue 15, Validation): each case here was judged differently before.
 */
import { describe, expect, it } from 'vitest';
import {
  applyDefaults,
  dropPrunedNulls,
  validate,
  validateNodeOverlayRuntime,
} from '../src/index.js';

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

describe('spec.disruption.consolidateAfter (Validation 2)', () => {
  const pool = (disruption: unknown) => ({
    apiVersion: 'karpenter.sh/v1',
    kind: 'NodePool',
    metadata: { name: 'p' },
    spec: { disruption, template: { spec: { nodeClassRef, requirements } } },
  });

  it('may be left out (upstream main defaults it to 0s); v1.14 YAML that sets it still works', () => {
    expect(validate(pool({ consolidationPolicy: 'WhenEmpty' }))).toEqual([]);
    expect(validate(pool({ budgets: [{ nodes: '5' }] }))).toEqual([]);
    expect(validate(pool({ consolidationPolicy: 'WhenEmpty', consolidateAfter: '30s' }))).toEqual(
      [],
    );
  });

  it('defaults to 0s when the disruption block leaves it out', () => {
    const defaulted = applyDefaults(pool({ consolidationPolicy: 'WhenEmpty' }));
    expect(defaulted.spec.disruption).toEqual({
      consolidationPolicy: 'WhenEmpty',
      consolidateAfter: '0s',
      budgets: [{ nodes: '10%' }],
    });
  });
});

describe('status in a created object (Validation 5)', () => {
  it('is ignored, as the apiserver drops it on create under a status subresource', () => {
    const pool = {
      apiVersion: 'karpenter.sh/v1',
      kind: 'NodePool',
      metadata: { name: 'p' },
      spec: { template: { spec: { nodeClassRef, requirements } } },
      status: { nodes: 'three', conditions: [{ type: 'Ready', status: 'True' }], bogus: 1 },
    };
    expect(validate(pool)).toEqual([]);
    const claim = {
      apiVersion: 'karpenter.sh/v1',
      kind: 'NodeClaim',
      metadata: { name: 'c' },
      spec: { nodeClassRef, requirements },
      status: { providerID: 5, conditions: [{ type: 'Launched' }] },
    };
    expect(validate(claim)).toEqual([]);
    expect(validate(claim, { oldObj: claim })).toEqual([]);
  });

  it('still leaves the spec checked', () => {
    const pool = {
      apiVersion: 'karpenter.sh/v1',
      kind: 'NodePool',
      metadata: { name: 'p' },
      spec: { weight: 0, template: { spec: { nodeClassRef, requirements } } },
      status: { nodes: 'three' },
    };
    expect(validate(pool).map((v) => v.path)).toEqual(['spec.weight']);
  });
});

describe('checks the apiserver makes that we skipped (Validation 8)', () => {
  const pool = (metadata: unknown, disruption?: unknown) => ({
    apiVersion: 'karpenter.sh/v1',
    kind: 'NodePool',
    metadata,
    spec: {
      ...(disruption === undefined ? {} : { disruption }),
      template: { spec: { nodeClassRef, requirements } },
    },
  });
  const problems = (obj: unknown) => validate(obj).map((v) => [v.path, v.rule, v.apiServer]);

  it('metadata label keys and values, annotation keys, finalizers', () => {
    expect(
      problems(
        pool({
          name: 'p',
          labels: { 'team name': 'a', ok: 'not ok!', 'example.com/x': 'fine' },
          annotations: { 'Example.com/Upper': 'fine', 'bad//key': 'x' },
          finalizers: ['example.com/ok', 'not a name'],
        }),
      ),
    ).toEqual([
      ['metadata.labels[team name]', 'metadata', 'reject'],
      ['metadata.labels.ok', 'metadata', 'reject'],
      ['metadata.annotations[bad//key]', 'metadata', 'reject'],
      ['metadata.finalizers[1]', 'metadata', 'reject'],
    ]);
    expect(problems(pool({ name: 'p', labels: { a: null }, annotations: null }))).toEqual([]);
  });

  it('an owner reference with an empty uid, and two controllers', () => {
    const ref = { apiVersion: 'karpenter.sh/v1', kind: 'NodePool', name: 'p', uid: 'u-1' };
    expect(
      problems(
        pool({
          name: 'p',
          ownerReferences: [
            { ...ref, uid: '', controller: true },
            { ...ref, controller: true },
          ],
        }),
      ),
    ).toEqual([
      ['metadata.ownerReferences[0].uid', 'metadata', 'reject'],
      ['metadata.ownerReferences', 'metadata', 'reject'],
    ]);
    expect(problems(pool({ name: 'p', ownerReferences: [ref] }))).toEqual([]);
  });

  it('a value listed twice in a listType set (budget reasons)', () => {
    const disruption = { budgets: [{ nodes: '1', reasons: ['Empty', 'Drifted', 'Empty'] }] };
    expect(problems(pool({ name: 'p' }, disruption))).toEqual([
      ['spec.disruption.budgets[0].reasons[2]', 'x-kubernetes-list-type', 'reject'],
    ]);
  });

  it('a NodeOverlay requirement key whose name part is longer than a label key may be', () => {
    const overlay = {
      apiVersion: 'karpenter.sh/v1alpha1',
      kind: 'NodeOverlay',
      metadata: { name: 'o' },
      spec: {
        requirements: [
          { key: `example.com/${'k'.repeat(64)}`, operator: 'Exists' },
          { key: 'karpenter.sh/nodepool', operator: 'In', values: ['default'] },
        ],
        price: '1',
      },
    };
    expect(validate(overlay)).toEqual([]);
    expect(
      validateNodeOverlayRuntime(overlay as never).map((v) => [v.path, v.rule, v.apiServer]),
    ).toEqual([['spec.requirements[0].key', 'runtime:requirements', 'accept']]);
  });
});
