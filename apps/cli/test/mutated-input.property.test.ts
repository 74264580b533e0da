/**
 * Property: whatever a valid NodePool, AKSNodeClass and workload are mutated into (a wrong type
 * where a list or map belongs, null, huge and negative numbers, out-of-range quantities, deep
 * nesting, self-referencing aliases, merge tags on values, unknown fields, deleted fields),
 * `validate` and `simulate` end in exit 0 or exit 1, and exit 1 says why in `file:document`
 * lines naming the field; never an internal error, and `simulate` never crashes on an input
 * `validate` accepts. Seeded, so every run tries the same few hundred inputs.
 */
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { cli } from './support/cli.js';

const NODE_POOL = {
  apiVersion: 'karpenter.sh/v1',
  kind: 'NodePool',
  metadata: { name: 'general', labels: { team: 'web' } },
  spec: {
    weight: 10,
    limits: { cpu: '1000', memory: '1000Gi' },
    disruption: {
      consolidationPolicy: 'WhenEmpty',
      consolidateAfter: '30s',
      budgets: [{ nodes: '10%' }],
    },
    template: {
      metadata: { labels: { tier: 'app' } },
      spec: {
        nodeClassRef: { group: 'karpenter.azure.com', kind: 'AKSNodeClass', name: 'nodes' },
        expireAfter: '720h',
        taints: [{ key: 'example.com/dedicated', value: 'web', effect: 'NoSchedule' }],
        requirements: [
          { key: 'kubernetes.io/arch', operator: 'In', values: ['amd64'] },
          { key: 'karpenter.azure.com/sku-cpu', operator: 'Gt', values: ['1'] },
        ],
      },
    },
  },
};

const NODE_CLASS = {
  apiVersion: 'karpenter.azure.com/v1beta1',
  kind: 'AKSNodeClass',
  metadata: { name: 'nodes' },
  spec: {
    imageFamily: 'Ubuntu',
    osDiskSizeGB: 128,
    maxPods: 110,
    kubelet: { cpuManagerPolicy: 'none' },
  },
};

const POD_SPEC = {
  tolerations: [
    { key: 'example.com/dedicated', operator: 'Equal', value: 'web', effect: 'NoSchedule' },
  ],
  nodeSelector: { 'kubernetes.io/os': 'linux' },
  topologySpreadConstraints: [
    {
      maxSkew: 1,
      topologyKey: 'topology.kubernetes.io/zone',
      whenUnsatisfiable: 'ScheduleAnyway',
      labelSelector: { matchLabels: { app: 'web' } },
    },
  ],
  initContainers: [{ name: 'init', image: 'busybox', resources: { requests: { cpu: '50m' } } }],
  containers: [
    {
      name: 'web',
      image: 'nginx',
      ports: [{ containerPort: 80, hostPort: 8080 }],
      resources: { requests: { cpu: '250m', memory: '256Mi' }, limits: { memory: '512Mi' } },
    },
  ],
};

const DEPLOYMENT = {
  apiVersion: 'apps/v1',
  kind: 'Deployment',
  metadata: { name: 'web', namespace: 'shop' },
  spec: {
    replicas: 3,
    selector: { matchLabels: { app: 'web' } },
    template: { metadata: { labels: { app: 'web' } }, spec: POD_SPEC },
  },
};

const JOB = {
  apiVersion: 'batch/v1',
  kind: 'Job',
  metadata: { name: 'report' },
  spec: {
    parallelism: 2,
    completions: 4,
    template: {
      spec: {
        restartPolicy: 'Never',
        overhead: { cpu: '10m' },
        containers: [
          { name: 'run', image: 'busybox', resources: { requests: { cpu: '1', memory: '1Gi' } } },
        ],
      },
    },
  },
};

const DOCUMENTS = [NODE_POOL, NODE_CLASS, DEPLOYMENT, JOB];

type Path = ReadonlyArray<string | number>;

/** Every path to a value inside `value` (maps and lists), the root excluded. */
function paths(value: unknown, at: Path = []): Path[] {
  const out: Path[] = [];
  if (Array.isArray(value)) value.forEach((v, i) => out.push([...at, i], ...paths(v, [...at, i])));
  else if (typeof value === 'object' && value !== null)
    for (const [k, v] of Object.entries(value)) out.push([...at, k], ...paths(v, [...at, k]));
  return out;
}

const DOCUMENT_PATHS = DOCUMENTS.map((doc) => paths(doc));

/** Stands in the YAML for a raw snippet, spliced in after stringifying. */
const MARK = 'MUTATION-MARK';

/** YAML text no JS value stringifies to: aliases, tags, unquoted numbers YAML reads oddly. */
const RAW = fc.oneof(
  fc.constantFrom(
    '&x [*x]',
    '&y {a: *y}',
    '!!merge p',
    '1e400',
    '-1e400',
    '.nan',
    '.inf',
    '99999999999999999999',
    '1e20',
    '-1e308',
    '"-1e308"',
    '"1e400"',
    '"1e20"',
    '"-1"',
    '"99999999999999999999m"',
    '2147483648',
    '9007199254740993',
    '-2147483649',
    '1.5',
    '0x10',
    'yes',
    '~',
    '{}',
    '[]',
    '[~]',
    '"5Gi"',
    '"100m"',
    '[&q 1, *q, *q]',
  ),
  fc.integer({ min: 200, max: 400 }).map((n) => `${'['.repeat(n)}${']'.repeat(n)}`),
  fc.integer({ min: 200, max: 400 }).map((n) => `${'{a: '.repeat(n)}1${'}'.repeat(n)}`),
  fc.integer({ min: 1100, max: 1300 }).map((n) => `[&z 1${', *z'.repeat(n)}]`),
);

/** A JS value of the wrong kind for most fields. */
const VALUE = fc.oneof(
  // Names of other kinds and groups, so a document can turn into another kind.
  fc.constantFrom(
    'StatefulSet',
    'CronJob',
    'DaemonSet',
    'Pod',
    'ReplicaSet',
    'NodeClaim',
    'NodeOverlay',
    'EC2NodeClass',
    'karpenter.k8s.aws',
    'karpenter.sh/v1alpha1',
    'batch/v1',
  ),
  fc.jsonValue({ maxDepth: 3 }),
  fc.constantFrom(
    null,
    0,
    -1,
    5,
    1.5,
    2 ** 31,
    -(2 ** 31) - 1,
    2 ** 53 + 2,
    1e20,
    -1e308,
    true,
    '',
    'Gte',
  ),
  fc.string({ maxLength: 12 }),
  fc.integer(),
  fc.double({ noNaN: true, noDefaultInfinity: true }),
  fc.array(fc.oneof(fc.string({ maxLength: 5 }), fc.integer(), fc.constant(null)), {
    maxLength: 3,
  }),
  fc.dictionary(fc.string({ maxLength: 6 }), fc.oneof(fc.string({ maxLength: 5 }), fc.integer()), {
    maxKeys: 2,
  }),
);

type Mutation =
  | { op: 'set'; document: number; path: number; value: unknown }
  | { op: 'raw'; document: number; path: number; raw: string }
  | { op: 'delete'; document: number; path: number }
  | { op: 'add'; document: number; path: number; key: string; value: unknown };

const MUTATION: fc.Arbitrary<Mutation> = fc
  .tuple(fc.nat(DOCUMENTS.length - 1), fc.nat(10_000))
  .chain(([document, path]) =>
    fc.oneof(
      VALUE.map((value) => ({ op: 'set' as const, document, path, value })),
      RAW.map((raw) => ({ op: 'raw' as const, document, path, raw })),
      fc.constant({ op: 'delete' as const, document, path }),
      fc
        .tuple(fc.constantFrom('extra', 'requests', 'replicas', 'spec', '<<'), VALUE)
        .map(([key, value]) => ({ op: 'add' as const, document, path, key, value })),
    ),
  );

/** The documents with the mutations applied, as YAML text. */
function mutated(mutations: readonly Mutation[]): string {
  const docs: unknown[] = structuredClone(DOCUMENTS);
  const raws: string[] = [];
  for (const m of mutations) {
    const candidates = DOCUMENT_PATHS[m.document]!;
    const path = candidates[m.path % candidates.length]!;
    const parent = path
      .slice(0, -1)
      .reduce<unknown>(
        (node, key) => (node as Record<string | number, unknown> | undefined)?.[key],
        docs[m.document],
      ) as Record<string | number, unknown> | undefined;
    if (typeof parent !== 'object' || parent === null) continue; // an earlier mutation replaced it
    const key = path[path.length - 1]!;
    if (m.op === 'set') parent[key] = m.value;
    else if (m.op === 'delete') {
      if (Array.isArray(parent)) parent.splice(Number(key), 1);
      else delete parent[key];
    } else if (m.op === 'raw') {
      parent[key] = `${MARK}-${raws.length}`;
      raws.push(m.raw);
    } else {
      const target = parent[key];
      if (typeof target === 'object' && target !== null && !Array.isArray(target))
        (target as Record<string, unknown>)[m.key] = m.value;
    }
  }
  let text = docs.map((doc) => stringify(doc, { lineWidth: 0 })).join('---\n');
  raws.forEach((raw, i) => {
    text = text.replace(`${MARK}-${i}`, raw);
  });
  return text;
}

describe('validate and simulate on mutated NodePools, NodeClasses and workloads', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'karpenter-ts-mutated-'));
  });

  it('the unmutated input is valid and simulates', async () => {
    const file = join(dir, 'valid.yaml');
    await writeFile(file, mutated([]));
    expect(await cli('validate', file)).toMatchObject({ code: 0, stderr: '' });
    expect(await cli('simulate', file, '--cloud', 'sim')).toMatchObject({ code: 0, stderr: '' });
  });

  it('every mutated input ends in exit 0, or exit 1 with file:document lines, never an internal error', async () => {
    let n = 0;
    await fc.assert(
      fc.asyncProperty(
        fc.array(MUTATION, { minLength: 1, maxLength: 3 }),
        fc.constantFrom('sim', 'sim', 'sim', 'azure'),
        async (mutations, cloud) => {
          const file = join(dir, `case-${n++}.yaml`);
          await writeFile(file, mutated(mutations));
          const at = new RegExp(`^${file.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}:\\d+(:\\d+)? \\S`);

          const validated = await cli('validate', file);
          expect(validated.stderr).not.toContain('internal error');
          expect([0, 1]).toContain(validated.code);
          if (validated.code === 1) {
            const lines = [
              ...validated.stdout.trim().split('\n'),
              ...validated.stderr.trim().split('\n'),
            ].filter((l) => l !== '' && !l.startsWith('✗'));
            expect(lines.length).toBeGreaterThan(0);
            for (const line of lines)
              expect(line.replace(/^karpenter-ts: error: /, '')).toMatch(at);
          }

          const simulated = await cli('simulate', file, '--cloud', cloud);
          expect(simulated.stderr).not.toContain('internal error');
          expect([0, 1]).toContain(simulated.code);
          // A pod the scheduler could not even read is a crash in disguise.
          expect(simulated.stdout).not.toContain('invalid pod:');
          if (simulated.code === 1) {
            const error = simulated.stderr.trim();
            expect(error.split('\n')).toHaveLength(1);
            const reason = error.replace(/^karpenter-ts: error: /, '');
            if (!reason.startsWith('nothing to schedule:')) expect(reason).toMatch(at);
          }
          // What validate accepts, simulate reads: it never stops on a problem validate missed.
          if (validated.code === 0 && simulated.code === 1)
            expect(simulated.stderr).toMatch(/nothing to schedule:|a simulation holds/);
        },
      ),
      { seed: 17_16, numRuns: 300 },
    );
  }, 300_000); // 300 validate and simulate runs: over the default per-test timeout on a busy machine
});
