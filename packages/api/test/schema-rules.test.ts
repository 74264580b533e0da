/**
 * OpenAPI schema rules of the shipped CRDs (type, enum, pattern, bounds, required, formats),
 * each with an accepted and a rejected value, plus unknown-field pruning.
 */
import { describe, expect, test } from 'vitest';
import { validate } from '../src/index.js';
import { nodeClaim, nodeOverlay, nodePool, withField } from './builders.js';

interface Case {
  name: string;
  base: unknown;
  field: string;
  accepted: unknown;
  rejected: unknown;
  rule: string;
  path: string;
}

const np = nodePool();
const T = 'spec.template.spec';
const req0 = `${T}.requirements.0`;
const budget = (b: unknown): unknown => ({ consolidateAfter: '0s', budgets: [b] });
const taint = (t: unknown): unknown[] => [t];

const cases: Case[] = [
  {
    name: 'spec is required',
    base: np,
    field: 'spec',
    accepted: np.spec,
    rejected: undefined,
    rule: 'required',
    path: 'spec',
  },
  {
    name: 'template.spec is required',
    base: np,
    field: 'spec.template.spec',
    accepted: np.spec.template.spec,
    rejected: undefined,
    rule: 'required',
    path: `${T}`,
  },
  {
    name: 'nodeClassRef is required',
    base: np,
    field: `${T}.nodeClassRef`,
    accepted: np.spec.template.spec.nodeClassRef,
    rejected: undefined,
    rule: 'required',
    path: `${T}.nodeClassRef`,
  },
  {
    name: 'requirements are required',
    base: np,
    field: `${T}.requirements`,
    accepted: [],
    rejected: undefined,
    rule: 'required',
    path: `${T}.requirements`,
  },
  {
    name: 'nodeClassRef.group is required',
    base: np,
    field: `${T}.nodeClassRef.group`,
    accepted: 'karpenter.k8s.aws',
    rejected: undefined,
    rule: 'required',
    path: `${T}.nodeClassRef.group`,
  },
  {
    name: 'nodeClassRef.group has no "/"',
    base: np,
    field: `${T}.nodeClassRef.group`,
    accepted: 'karpenter.azure.com',
    rejected: 'karpenter.azure.com/v1beta1',
    rule: 'pattern',
    path: `${T}.nodeClassRef.group`,
  },
  {
    name: 'requirement operator is one of the eight',
    base: np,
    field: `${req0}.operator`,
    accepted: 'NotIn',
    rejected: 'Equals',
    rule: 'enum',
    path: `${T}.requirements[0].operator`,
  },
  {
    name: 'requirement key is a qualified name',
    base: np,
    field: `${req0}.key`,
    accepted: 'example.com/tier',
    rejected: 'example.com/tier/x',
    rule: 'pattern',
    path: `${T}.requirements[0].key`,
  },
  {
    name: 'requirement key is at most 316 characters',
    base: np,
    field: `${req0}.key`,
    accepted: `${'a'.repeat(250)}.io/x`,
    rejected: `${'a.'.repeat(200)}io/x`,
    rule: 'maxLength',
    path: `${T}.requirements[0].key`,
  },
  {
    name: 'requirement values are label values',
    base: np,
    field: `${req0}.values`,
    accepted: ['spot'],
    rejected: ['spot!'],
    rule: 'pattern',
    path: `${T}.requirements[0].values[0]`,
  },
  {
    name: 'requirement values are at most 63 characters',
    base: np,
    field: `${req0}.values`,
    accepted: ['a'.repeat(63)],
    rejected: ['a'.repeat(64)],
    rule: 'maxLength',
    path: `${T}.requirements[0].values[0]`,
  },
  {
    name: 'minValues is at least 1',
    base: np,
    field: `${req0}.minValues`,
    accepted: 1,
    rejected: 0,
    rule: 'minimum',
    path: `${T}.requirements[0].minValues`,
  },
  {
    name: 'minValues is at most 50',
    base: withField(
      np,
      `${req0}.values`,
      Array.from({ length: 51 }, (_, i) => `v${i}`),
    ),
    field: `${req0}.minValues`,
    accepted: 50,
    rejected: 51,
    rule: 'maximum',
    path: `${T}.requirements[0].minValues`,
  },
  {
    name: 'at most 100 requirements',
    base: np,
    field: `${T}.requirements`,
    accepted: Array.from({ length: 100 }, (_, i) => ({
      key: `example.com/k${i}`,
      operator: 'Exists',
    })),
    rejected: Array.from({ length: 101 }, (_, i) => ({
      key: `example.com/k${i}`,
      operator: 'Exists',
    })),
    rule: 'maxItems',
    path: `${T}.requirements`,
  },
  {
    name: 'taint effect is NoSchedule, PreferNoSchedule or NoExecute',
    base: np,
    field: `${T}.taints`,
    accepted: taint({ key: 'a', effect: 'NoExecute' }),
    rejected: taint({ key: 'a', effect: 'NoScheduleAtAll' }),
    rule: 'enum',
    path: `${T}.taints[0].effect`,
  },
  {
    name: 'taint key is not empty',
    base: np,
    field: `${T}.startupTaints`,
    accepted: taint({ key: 'a', effect: 'NoSchedule' }),
    rejected: taint({ key: '', effect: 'NoSchedule' }),
    rule: 'minLength',
    path: `${T}.startupTaints[0].key`,
  },
  {
    name: 'taint key is a qualified name',
    base: np,
    field: `${T}.taints`,
    accepted: taint({ key: 'example.com/gpu', effect: 'NoSchedule' }),
    rejected: taint({ key: 'example.com/gpu ', effect: 'NoSchedule' }),
    rule: 'pattern',
    path: `${T}.taints[0].key`,
  },
  {
    name: 'taint value is qualified-name syntax',
    base: np,
    field: `${T}.taints`,
    accepted: taint({ key: 'a', value: 'true', effect: 'NoSchedule' }),
    rejected: taint({ key: 'a', value: 'a b', effect: 'NoSchedule' }),
    rule: 'pattern',
    path: `${T}.taints[0].value`,
  },
  {
    name: 'taint effect is required',
    base: np,
    field: `${T}.taints`,
    accepted: taint({ key: 'a', effect: 'NoSchedule' }),
    rejected: taint({ key: 'a' }),
    rule: 'required',
    path: `${T}.taints[0].effect`,
  },
  {
    name: 'taint timeAdded is an RFC 3339 date-time',
    base: np,
    field: `${T}.taints`,
    accepted: taint({ key: 'a', effect: 'NoSchedule', timeAdded: '2024-05-01T10:00:00Z' }),
    rejected: taint({ key: 'a', effect: 'NoSchedule', timeAdded: 'yesterday' }),
    rule: 'format',
    path: `${T}.taints[0].timeAdded`,
  },
  {
    name: 'template label values are label values',
    base: np,
    field: 'spec.template.metadata.labels',
    accepted: { team: 'a-b.c_d' },
    rejected: { team: '-a' },
    rule: 'pattern',
    path: 'spec.template.metadata.labels.team',
  },
  {
    name: 'template label values are at most 63 characters',
    base: np,
    field: 'spec.template.metadata.labels',
    accepted: { team: 'a'.repeat(63) },
    rejected: { team: 'a'.repeat(64) },
    rule: 'maxLength',
    path: 'spec.template.metadata.labels.team',
  },
  {
    name: 'at most 100 template labels',
    base: np,
    field: 'spec.template.metadata.labels',
    accepted: Object.fromEntries(Array.from({ length: 100 }, (_, i) => [`example.com/l${i}`, 'x'])),
    rejected: Object.fromEntries(Array.from({ length: 101 }, (_, i) => [`example.com/l${i}`, 'x'])),
    rule: 'maxProperties',
    path: 'spec.template.metadata.labels',
  },
  {
    name: 'annotation values are strings',
    base: np,
    field: 'spec.template.metadata.annotations',
    accepted: { a: '1' },
    rejected: { a: 1 },
    rule: 'type',
    path: 'spec.template.metadata.annotations.a',
  },
  {
    name: 'expireAfter is a duration or Never',
    base: np,
    field: `${T}.expireAfter`,
    accepted: 'Never',
    rejected: '30d',
    rule: 'pattern',
    path: `${T}.expireAfter`,
  },
  {
    name: 'terminationGracePeriod is a duration without Never',
    base: np,
    field: `${T}.terminationGracePeriod`,
    accepted: '1h30m',
    rejected: 'Never',
    rule: 'pattern',
    path: `${T}.terminationGracePeriod`,
  },
  {
    name: 'consolidateAfter is a duration or Never',
    base: np,
    field: 'spec.disruption',
    accepted: { consolidateAfter: 'Never' },
    rejected: { consolidateAfter: '10 minutes' },
    rule: 'pattern',
    path: 'spec.disruption.consolidateAfter',
  },
  {
    name: 'consolidationPolicy is WhenEmpty, WhenEmptyOrUnderutilized or Balanced',
    base: np,
    field: 'spec.disruption',
    accepted: { consolidateAfter: '0s', consolidationPolicy: 'Balanced' },
    rejected: { consolidateAfter: '0s', consolidationPolicy: 'Always' },
    rule: 'enum',
    path: 'spec.disruption.consolidationPolicy',
  },
  {
    name: 'budget nodes is a count or 0-100%',
    base: np,
    field: 'spec.disruption',
    accepted: budget({ nodes: '100%' }),
    rejected: budget({ nodes: '101%' }),
    rule: 'pattern',
    path: 'spec.disruption.budgets[0].nodes',
  },
  {
    name: 'budget nodes is a string',
    base: np,
    field: 'spec.disruption',
    accepted: budget({ nodes: '3' }),
    rejected: budget({ nodes: 3 }),
    rule: 'type',
    path: 'spec.disruption.budgets[0].nodes',
  },
  {
    name: 'budget schedule is cron or a macro',
    base: np,
    field: 'spec.disruption',
    accepted: budget({ nodes: '0', schedule: '@weekly', duration: '1h' }),
    rejected: budget({ nodes: '0', schedule: '@fortnightly', duration: '1h' }),
    rule: 'pattern',
    path: 'spec.disruption.budgets[0].schedule',
  },
  {
    name: 'budget duration is hours and minutes',
    base: np,
    field: 'spec.disruption',
    accepted: budget({ nodes: '0', schedule: '0 0 * * *', duration: '1h30m' }),
    rejected: budget({ nodes: '0', schedule: '0 0 * * *', duration: '90s' }),
    rule: 'pattern',
    path: 'spec.disruption.budgets[0].duration',
  },
  {
    name: 'budget reasons are Underutilized, Empty or Drifted',
    base: np,
    field: 'spec.disruption',
    accepted: budget({ nodes: '1', reasons: ['Drifted', 'Empty'] }),
    rejected: budget({ nodes: '1', reasons: ['Expired'] }),
    rule: 'enum',
    path: 'spec.disruption.budgets[0].reasons[0]',
  },
  {
    name: 'at most 50 budgets',
    base: np,
    field: 'spec.disruption',
    accepted: {
      consolidateAfter: '0s',
      budgets: Array.from({ length: 50 }, () => ({ nodes: '1' })),
    },
    rejected: {
      consolidateAfter: '0s',
      budgets: Array.from({ length: 51 }, () => ({ nodes: '1' })),
    },
    rule: 'maxItems',
    path: 'spec.disruption.budgets',
  },
  {
    name: 'limits are quantities',
    base: np,
    field: 'spec.limits',
    accepted: { cpu: '100', memory: '400Gi', 'nvidia.com/gpu': 4 },
    rejected: { cpu: '100 cores' },
    rule: 'pattern',
    path: 'spec.limits.cpu',
  },
  {
    name: 'limits are integers or strings',
    base: np,
    field: 'spec.limits',
    accepted: { cpu: 8 },
    rejected: { cpu: true },
    rule: 'anyOf',
    path: 'spec.limits.cpu',
  },
  {
    name: 'weight is at least 1',
    base: np,
    field: 'spec.weight',
    accepted: 1,
    rejected: 0,
    rule: 'minimum',
    path: 'spec.weight',
  },
  {
    name: 'weight is at most 100',
    base: np,
    field: 'spec.weight',
    accepted: 100,
    rejected: 101,
    rule: 'maximum',
    path: 'spec.weight',
  },
  {
    name: 'weight is an integer',
    base: np,
    field: 'spec.weight',
    accepted: 10,
    rejected: '10',
    rule: 'type',
    path: 'spec.weight',
  },
  {
    name: 'replicas is at least 0',
    base: np,
    field: 'spec.replicas',
    accepted: 0,
    rejected: -1,
    rule: 'minimum',
    path: 'spec.replicas',
  },
  {
    name: 'metadata.name is a DNS subdomain',
    base: np,
    field: 'metadata.name',
    accepted: 'gpu-a100.eastus',
    rejected: 'GPU_pool',
    rule: 'metadata',
    path: 'metadata.name',
  },
  {
    name: 'NodePool condition reason must not be empty',
    base: np,
    field: 'status.conditions',
    accepted: [
      {
        type: 'Ready',
        status: 'True',
        reason: 'Ready',
        message: '',
        lastTransitionTime: '2024-01-01T00:00:00Z',
      },
    ],
    rejected: [
      {
        type: 'Ready',
        status: 'True',
        reason: '',
        message: '',
        lastTransitionTime: '2024-01-01T00:00:00Z',
      },
    ],
    rule: 'minLength',
    path: 'status.conditions[0].reason',
  },
  {
    name: 'NodeClaim condition reason may be empty but not malformed',
    base: nodeClaim(),
    field: 'status.conditions',
    accepted: [
      { type: 'Launched', status: 'True', reason: '', lastTransitionTime: '2024-01-01T00:00:00Z' },
    ],
    rejected: [
      {
        type: 'Launched',
        status: 'True',
        reason: 'not ok',
        lastTransitionTime: '2024-01-01T00:00:00Z',
      },
    ],
    rule: 'pattern',
    path: 'status.conditions[0].reason',
  },
  {
    name: 'NodeClaim resource requests are quantities',
    base: nodeClaim(),
    field: 'spec.resources',
    accepted: { requests: { cpu: '3500m', memory: '12Gi', pods: 20 } },
    rejected: { requests: { cpu: '3.5 cpus' } },
    rule: 'pattern',
    path: 'spec.resources.requests.cpu',
  },
  {
    name: 'NodeOverlay price is a decimal',
    base: nodeOverlay(),
    field: 'spec.price',
    accepted: '0.42',
    rejected: '$0.42',
    rule: 'pattern',
    path: 'spec.price',
  },
  {
    name: 'NodeOverlay priceAdjustment is +/-x or +/-x%',
    base: nodeOverlay(),
    field: 'spec.priceAdjustment',
    accepted: '+12.5%',
    rejected: '-150%',
    rule: 'pattern',
    path: 'spec.priceAdjustment',
  },
  {
    name: 'NodeOverlay weight is at most 10000',
    base: nodeOverlay(),
    field: 'spec.weight',
    accepted: 10000,
    rejected: 10001,
    rule: 'maximum',
    path: 'spec.weight',
  },
  {
    name: 'NodeOverlay requirements are required',
    base: nodeOverlay(),
    field: 'spec.requirements',
    accepted: [],
    rejected: undefined,
    rule: 'required',
    path: 'spec.requirements',
  },
];

describe('schema rules', () => {
  // Status rules apply to writes of the status subresource (the main resource ignores status).
  const options = (c: Case) =>
    c.field.startsWith('status') ? { subresource: 'status' as const } : {};
  test.each(cases)('accepts: $name', (c) => {
    expect(validate(withField(c.base, c.field, c.accepted), options(c))).toEqual([]);
  });
  test.each(cases)('rejects: $name', (c) => {
    const violations = validate(withField(c.base, c.field, c.rejected), options(c));
    expect(violations).toContainEqual(
      expect.objectContaining({ rule: c.rule, path: c.path, apiServer: 'reject' }),
    );
    for (const v of violations) expect(v.message.length).toBeGreaterThan(10);
  });
});

describe('unknown fields', () => {
  test('an unknown field is reported as pruned, naming the field', () => {
    const v = validate(withField(np, 'spec.template.spec.colour', 'blue'));
    expect(v).toEqual([
      expect.objectContaining({
        path: 'spec.template.spec.colour',
        rule: 'unknown-field',
        apiServer: 'prune',
      }),
    ]);
    expect(v[0]?.message).toMatch(/drops it silently.*strict field validation rejects it/);
  });

  test('unknown fields are found inside list items and metadata', () => {
    const obj = withField(withField(np, `${req0}.weight`, 3), 'metadata.nmae', 'typo');
    expect(validate(obj).map((v) => [v.path, v.rule])).toEqual([
      ['metadata.nmae', 'unknown-field'],
      ['spec.template.spec.requirements[0].weight', 'unknown-field'],
    ]);
  });

  test("a misspelt field names the declared one it is near, and hides that field's required problem", () => {
    const obj = structuredClone(np) as unknown as {
      spec: { template: { spec: Record<string, unknown> } };
    };
    const spec = obj.spec.template.spec;
    spec.requirement = spec.requirements;
    delete spec.requirements;
    const v = validate(withField(obj, 'metadata.lables', { a: 'b' }));
    expect(v.map((x) => [x.path, x.rule, x.message.split(':')[0]])).toEqual([
      ['metadata.lables', 'unknown-field', 'unknown field "lables" (did you mean "labels"?)'],
      [
        'spec.template.spec.requirement',
        'unknown-field',
        'unknown field "requirement" (did you mean "requirements"?)',
      ],
    ]);
    // Far from every declared field: no guess.
    expect(validate(withField(np, 'spec.template.spec.colour', 'blue'))[0]?.message).toMatch(
      /^unknown field "colour": /,
    );
  });

  test("an unknown kind in a CRD's group names the kind it is near", () => {
    const v = validate({ ...np, kind: 'Nodepool' });
    expect(v.map((x) => x.message)).toEqual([
      'no CRD known for apiVersion "karpenter.sh/v1" kind "Nodepool"; did you mean "NodePool"?',
    ]);
    expect(validate({ ...np, kind: 'Widget' })[0]?.message).toBe(
      'no CRD known for apiVersion "karpenter.sh/v1" kind "Widget"',
    );
  });

  test('status is validated with its schema on a write of the status subresource', () => {
    const status = { subresource: 'status' } as const;
    expect(validate(withField(np, 'status.nodes', -1), status)).toEqual([]);
    expect(validate(withField(np, 'status.nodes', 'three'), status)).toContainEqual(
      expect.objectContaining({ path: 'status.nodes', rule: 'type' }),
    );
    expect(validate(withField(np, 'status.nodes', 'three'))).toEqual([]);
  });
});
