/**
 * Every CEL rule in the shipped CRDs, each with an object it accepts and one it rejects. A
 * meta-test fails when a CRD gains a rule this table does not cover.
 */
import { describe, expect, test } from 'vitest';
import { crdDocument, validate } from '../src/index.js';
import type { KarpenterKind } from '../src/index.js';
import { nodeClaim, nodeOverlay, nodePool, withField } from './builders.js';

interface Case {
  kind: KarpenterKind;
  rule: string;
  accepted: unknown;
  rejected: unknown;
  /** Path the violation is reported at. */
  path: string;
  /** For transition rules: the stored object both are updates of. */
  old?: unknown;
}

const np = nodePool();
const req = 'spec.template.spec.requirements';
const withReq = (r: unknown): unknown => withField(np, req, [r]);
const claimReq = (r: unknown): unknown => withField(nodeClaim(), 'spec.requirements', [r]);
const overlayReq = (r: unknown): unknown => withField(nodeOverlay(), 'spec.requirements', [r]);
const labels = (l: Record<string, string>): unknown =>
  withField(np, 'spec.template.metadata.labels', l);
const static3 = withField(np, 'spec.replicas', 3);

const IN_NEEDS_VALUES = "self.all(x, x.operator == 'In' ? x.values.size() != 0 : true)";
const NOTIN_NEEDS_VALUES = "self.all(x, x.operator == 'NotIn' ? x.values.size() != 0 : true)";
const ORDERED_SINGLE_INT =
  "self.all(x, (x.operator == 'Gt' || x.operator == 'Lt' || x.operator == 'Gte' || x.operator == 'Lte') ? (x.values.size() == 1 && int(x.values[0]) >= 0) : true)";
const MIN_VALUES =
  "self.all(x, (x.operator == 'In' && has(x.minValues)) ? x.values.size() >= x.minValues : true)";
const KEY_DOMAIN_NP =
  'self in ["karpenter.sh/capacity-type", "karpenter.sh/nodepool"] || !self.find("^([^/]+)").endsWith("karpenter.sh")';
const KEY_HOSTNAME = 'self != "kubernetes.io/hostname"';

const cases: Case[] = [
  // NodePool spec
  {
    kind: 'NodePool',
    rule: 'has(self.replicas) == has(oldSelf.replicas)',
    old: np,
    accepted: withField(np, 'spec.weight', 5),
    rejected: static3,
    path: 'spec',
  },
  {
    kind: 'NodePool',
    rule: "!has(self.replicas) || (!has(self.limits) || size(self.limits) == 0 || (size(self.limits) == 1 && 'nodes' in self.limits))",
    accepted: withField(static3, 'spec.limits', { nodes: '5' }),
    rejected: withField(static3, 'spec.limits', { cpu: '10' }),
    path: 'spec',
  },
  {
    kind: 'NodePool',
    rule: '!has(self.replicas) || !has(self.weight)',
    accepted: static3,
    rejected: withField(static3, 'spec.weight', 10),
    path: 'spec',
  },
  // NodePool template labels
  {
    kind: 'NodePool',
    rule: 'self.all(x, x in ["karpenter.sh/capacity-type", "karpenter.sh/nodepool"] || !x.find("^([^/]+)").endsWith("karpenter.sh"))',
    accepted: labels({ 'karpenter.sh/capacity-type': 'spot', 'example.com/team': 'a' }),
    rejected: labels({ 'team.karpenter.sh/owner': 'a' }),
    path: 'spec.template.metadata.labels[team.karpenter.sh/owner]',
  },
  {
    kind: 'NodePool',
    rule: 'self.all(x, x != "karpenter.sh/nodepool")',
    accepted: labels({ 'example.com/nodepool': 'x' }),
    rejected: labels({ 'karpenter.sh/nodepool': 'x' }),
    path: 'spec.template.metadata.labels[karpenter.sh/nodepool]',
  },
  {
    kind: 'NodePool',
    rule: 'self.all(x, x != "kubernetes.io/hostname")',
    accepted: labels({ 'kubernetes.io/os': 'linux' }),
    rejected: labels({ 'kubernetes.io/hostname': 'node-1' }),
    path: 'spec.template.metadata.labels[kubernetes.io/hostname]',
  },
  // NodePool requirements
  {
    kind: 'NodePool',
    rule: IN_NEEDS_VALUES,
    accepted: withReq({ key: 'kubernetes.io/arch', operator: 'Exists' }),
    rejected: withReq({ key: 'kubernetes.io/arch', operator: 'In', values: [] }),
    path: `${req}[0]`,
  },
  {
    kind: 'NodePool',
    rule: ORDERED_SINGLE_INT,
    accepted: withReq({ key: 'karpenter.azure.com/sku-cpu', operator: 'Gte', values: ['4'] }),
    rejected: withReq({ key: 'karpenter.azure.com/sku-cpu', operator: 'Lt', values: ['4', '8'] }),
    path: `${req}[0]`,
  },
  {
    kind: 'NodePool',
    rule: MIN_VALUES,
    accepted: withReq({
      key: 'karpenter.azure.com/sku-family',
      operator: 'In',
      values: ['D', 'E'],
      minValues: 2,
    }),
    rejected: withReq({
      key: 'karpenter.azure.com/sku-family',
      operator: 'In',
      values: ['D'],
      minValues: 2,
    }),
    path: `${req}[0]`,
  },
  {
    kind: 'NodePool',
    rule: KEY_DOMAIN_NP,
    accepted: withReq({ key: 'karpenter.sh/capacity-type', operator: 'In', values: ['spot'] }),
    rejected: withReq({ key: 'karpenter.sh/registered', operator: 'Exists' }),
    path: `${req}[0].key`,
  },
  {
    kind: 'NodePool',
    rule: 'self != "karpenter.sh/nodepool"',
    accepted: withReq({ key: 'example.com/nodepool', operator: 'Exists' }),
    rejected: withReq({ key: 'karpenter.sh/nodepool', operator: 'In', values: ['a'] }),
    path: `${req}[0].key`,
  },
  {
    kind: 'NodePool',
    rule: KEY_HOSTNAME,
    accepted: withReq({ key: 'topology.kubernetes.io/zone', operator: 'Exists' }),
    rejected: withReq({ key: 'kubernetes.io/hostname', operator: 'Exists' }),
    path: `${req}[0].key`,
  },
  // NodePool nodeClassRef
  {
    kind: 'NodePool',
    rule: 'self.group == oldSelf.group',
    old: np,
    accepted: withField(np, 'spec.template.spec.nodeClassRef.name', 'other'),
    rejected: withField(np, 'spec.template.spec.nodeClassRef.group', 'karpenter.k8s.aws'),
    path: 'spec.template.spec.nodeClassRef',
  },
  {
    kind: 'NodePool',
    rule: 'self.kind == oldSelf.kind',
    old: np,
    accepted: withField(np, 'spec.template.spec.nodeClassRef.name', 'other'),
    rejected: withField(np, 'spec.template.spec.nodeClassRef.kind', 'OtherNodeClass'),
    path: 'spec.template.spec.nodeClassRef',
  },
  ...(['group', 'kind', 'name'] as const).map((f): Case => ({
    kind: 'NodePool',
    rule: "self != ''",
    accepted: np,
    rejected: withField(np, `spec.template.spec.nodeClassRef.${f}`, ''),
    path: `spec.template.spec.nodeClassRef.${f}`,
  })),
  // NodePool disruption
  {
    kind: 'NodePool',
    rule: 'self.all(x, has(x.schedule) == has(x.duration))',
    accepted: withField(np, 'spec.disruption', {
      consolidateAfter: '0s',
      budgets: [{ nodes: '0', schedule: '@daily', duration: '10m' }],
    }),
    rejected: withField(np, 'spec.disruption', {
      consolidateAfter: '0s',
      budgets: [{ nodes: '1' }, { nodes: '0', duration: '1h' }],
    }),
    path: 'spec.disruption.budgets[1]',
  },
  // NodeClaim
  {
    kind: 'NodeClaim',
    rule: 'self == oldSelf',
    old: nodeClaim(),
    accepted: withField(nodeClaim(), 'status.nodeName', 'aks-node-1'),
    rejected: withField(nodeClaim(), 'spec.expireAfter', '24h'),
    path: 'spec',
  },
  {
    kind: 'NodeClaim',
    rule: IN_NEEDS_VALUES,
    accepted: claimReq({ key: 'kubernetes.io/os', operator: 'In', values: ['linux'] }),
    rejected: claimReq({ key: 'kubernetes.io/os', operator: 'In' }),
    path: 'spec.requirements[0]',
  },
  {
    kind: 'NodeClaim',
    rule: ORDERED_SINGLE_INT,
    accepted: claimReq({ key: 'karpenter.azure.com/sku-memory', operator: 'Gt', values: ['8191'] }),
    rejected: claimReq({ key: 'karpenter.azure.com/sku-memory', operator: 'Gt', values: ['1.5'] }),
    path: 'spec.requirements[0]',
  },
  {
    kind: 'NodeClaim',
    rule: MIN_VALUES,
    accepted: claimReq({
      key: 'node.kubernetes.io/instance-type',
      operator: 'In',
      values: ['a', 'b', 'c'],
      minValues: 3,
    }),
    rejected: claimReq({
      key: 'node.kubernetes.io/instance-type',
      operator: 'In',
      values: ['a', 'b'],
      minValues: 3,
    }),
    path: 'spec.requirements[0]',
  },
  {
    kind: 'NodeClaim',
    rule: KEY_DOMAIN_NP,
    // NodeClaims may carry karpenter.sh/nodepool.
    accepted: claimReq({ key: 'karpenter.sh/nodepool', operator: 'In', values: ['default'] }),
    rejected: claimReq({ key: 'karpenter.sh/initialized', operator: 'Exists' }),
    path: 'spec.requirements[0].key',
  },
  {
    kind: 'NodeClaim',
    rule: KEY_HOSTNAME,
    accepted: claimReq({ key: 'kubernetes.io/arch', operator: 'Exists' }),
    rejected: claimReq({ key: 'kubernetes.io/hostname', operator: 'In', values: ['x'] }),
    path: 'spec.requirements[0].key',
  },
  ...(['group', 'kind', 'name'] as const).map((f): Case => ({
    kind: 'NodeClaim',
    rule: "self != ''",
    accepted: nodeClaim(),
    rejected: withField(nodeClaim(), `spec.nodeClassRef.${f}`, ''),
    path: `spec.nodeClassRef.${f}`,
  })),
  // NodeOverlay
  {
    kind: 'NodeOverlay',
    rule: '!has(self.price) || !has(self.priceAdjustment)',
    accepted: withField(nodeOverlay(), 'spec.priceAdjustment', '-10%'),
    rejected: withField(
      withField(nodeOverlay(), 'spec.priceAdjustment', '-10%'),
      'spec.price',
      '0.5',
    ),
    path: 'spec',
  },
  {
    kind: 'NodeOverlay',
    rule: NOTIN_NEEDS_VALUES,
    accepted: overlayReq({
      key: 'karpenter.azure.com/sku-family',
      operator: 'NotIn',
      values: ['B'],
    }),
    rejected: overlayReq({ key: 'karpenter.azure.com/sku-family', operator: 'NotIn', values: [] }),
    path: 'spec.requirements[0]',
  },
  {
    kind: 'NodeOverlay',
    rule: IN_NEEDS_VALUES,
    accepted: nodeOverlay(),
    rejected: overlayReq({ key: 'karpenter.azure.com/sku-family', operator: 'In', values: [] }),
    path: 'spec.requirements[0]',
  },
  {
    kind: 'NodeOverlay',
    rule: ORDERED_SINGLE_INT,
    accepted: overlayReq({ key: 'karpenter.azure.com/sku-cpu', operator: 'Lte', values: ['16'] }),
    rejected: overlayReq({
      key: 'karpenter.azure.com/sku-cpu',
      operator: 'Lte',
      values: ['sixteen'],
    }),
    path: 'spec.requirements[0]',
  },
  {
    kind: 'NodeOverlay',
    rule: KEY_DOMAIN_NP,
    accepted: overlayReq({ key: 'karpenter.sh/nodepool', operator: 'In', values: ['gpu'] }),
    rejected: overlayReq({ key: 'karpenter.sh/foo', operator: 'Exists' }),
    path: 'spec.requirements[0].key',
  },
  {
    kind: 'NodeOverlay',
    rule: KEY_HOSTNAME,
    accepted: nodeOverlay(),
    rejected: overlayReq({ key: 'kubernetes.io/hostname', operator: 'Exists' }),
    path: 'spec.requirements[0].key',
  },
  {
    kind: 'NodeOverlay',
    rule: "self.all(x, !(x in ['cpu', 'memory', 'ephemeral-storage', 'pods']))",
    accepted: withField(nodeOverlay(), 'spec.capacity', { 'example.com/license': '1' }),
    rejected: withField(nodeOverlay(), 'spec.capacity', {
      'example.com/license': '1',
      memory: '1Gi',
    }),
    path: 'spec.capacity.memory',
  },
];

describe('CEL rules', () => {
  test.each(cases)('$kind accepts an object that satisfies: $rule', (c) => {
    expect(validate(c.accepted, c.old === undefined ? {} : { oldObj: c.old })).toEqual([]);
  });

  test.each(cases)('$kind rejects an object that breaks: $rule', (c) => {
    const violations = validate(c.rejected, c.old === undefined ? {} : { oldObj: c.old });
    expect(violations).toContainEqual(
      expect.objectContaining({ kind: c.kind, rule: c.rule, path: c.path, apiServer: 'reject' }),
    );
    // Only that rule fires: the table isolates one rule per case.
    expect(new Set(violations.map((v) => v.rule))).toEqual(new Set([c.rule]));
  });

  test('transition rules do not run on create (no old object)', () => {
    expect(validate(static3)).toEqual([]);
    expect(validate(withField(nodeClaim(), 'spec.expireAfter', '24h'))).toEqual([]);
  });

  test('every CEL rule in the shipped CRDs has a case in this table', () => {
    for (const kind of ['NodePool', 'NodeClaim', 'NodeOverlay'] as const) {
      const rules = new Set<string>();
      collectRules(crdDocument(kind), rules);
      const covered = new Set(cases.filter((c) => c.kind === kind).map((c) => c.rule));
      expect(
        [...rules].filter((r) => !covered.has(r)),
        kind,
      ).toEqual([]);
    }
  });
});

function collectRules(node: unknown, into: Set<string>): void {
  if (Array.isArray(node)) node.forEach((n) => collectRules(n, into));
  else if (node && typeof node === 'object') {
    for (const [k, v] of Object.entries(node)) {
      if (k === 'x-kubernetes-validations' && Array.isArray(v))
        for (const r of v) into.add((r as { rule: string }).rule);
      else collectRules(v, into);
    }
  }
}
