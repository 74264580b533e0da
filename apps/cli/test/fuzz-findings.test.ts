/**
 * Inputs the fuzz suite (mutated-input.property.test.ts, `npm run fuzz`) found ending in an
 * internal error, each kept as a specification of what the CLI does with it instead.
 */
import { mkdtemp, writeFile } from 'node:fs/promises';
import { readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';
import { cli } from './support/cli.js';

const snapshot = readFileSync(
  fileURLToPath(new URL('../../../examples/snapshots/sim-cluster.yaml', import.meta.url)),
  'utf8',
);

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'karpenter-ts-fuzz-findings-'));
});

async function file(name: string, text: string): Promise<string> {
  const path = join(dir, name);
  await writeFile(path, text);
  return path;
}

describe('a cluster snapshot', () => {
  it('whose NodeClass status has conditions that are not a list reads the NodeClass as Ready, as with no status (fuzz seed 20261202, input 104)', async () => {
    // validate ignores status, as the API server drops it from a created object; disrupt and
    // simulate failed with 'conditions.some is not a function'.
    const text = snapshot.replace(
      /(kind: SimNodeClass\n(?:.*\n)*? {4}status:\n {6}conditions:\n)(?: {8}.*\n)+/,
      '$1        NodePool\n',
    );
    expect(text).toContain('conditions:\n        NodePool\n');
    const path = await file('conditions-not-a-list.yaml', text);
    expect(await cli('validate', path)).toMatchObject({ code: 0 });
    const disrupt = await cli('disrupt', path, '--now', '2026-12-01T10:00:00Z');
    expect(disrupt.stderr).toBe('');
    expect(disrupt.code).toBe(0);
    const simulate = await cli('simulate', path, '--cloud', 'sim');
    expect(simulate.stderr).toBe('');
    expect(simulate.code).toBe(0);
  });
});

describe('a cluster snapshot whose NodeClaim status does not fit its schema', () => {
  it('reads the NodeClaim without the status field that does not fit, with a note (fuzz seed 1718: conditions: 0)', async () => {
    // validate ignores status; disrupt and simulate failed with
    // 'object.status?.conditions?.find is not a function'.
    const text = snapshot.replace(
      /(kind: NodeClaim\n(?:.*\n)*? {4}status:\n(?:.*\n)*? {6}conditions:\n)(?: {8}.*\n)+/,
      '$1        0\n',
    );
    expect(text).toMatch(/conditions:\n {8}0\n/);
    const path = await file('nodeclaim-conditions-0.yaml', text);
    expect(await cli('validate', path)).toMatchObject({ code: 0 });
    for (const argv of [
      ['disrupt', path, '--now', '2026-12-01T10:00:00Z'],
      ['simulate', path, '--cloud', 'sim'],
    ]) {
      const result = await cli(...argv);
      expect(result.stderr).not.toContain('internal error');
      expect(result.code).toBe(0);
    }
  });
});

describe('a cluster snapshot whose NodePool status does not fit its schema', () => {
  it.each([
    ['conditions that are not a list (fuzz seed 20261202, input 1328)', '0'],
    ['a null condition (fuzz seed 20261202, input 1130)', '[null]'],
  ])('reads the NodePool without them, with a note: %s', async (_what, value) => {
    // validate ignores status; disrupt and simulate failed with 'conditions.find is not a
    // function' and "Cannot read properties of null (reading 'type')".
    const text = snapshot.replace(
      /(kind: NodePool\n(?:.*\n)*? {4}status:\n {6}conditions:)\n(?: {8}.*\n)+/,
      `$1 ${value}\n`,
    );
    expect(text).toContain(`conditions: ${value}\n`);
    const path = await file(`nodepool-conditions-${value.length}.yaml`, text);
    expect(await cli('validate', path)).toMatchObject({ code: 0 });
    for (const argv of [
      ['disrupt', path, '--now', '2026-12-01T10:00:00Z'],
      ['simulate', path, '--cloud', 'sim'],
    ]) {
      const result = await cli(...argv);
      expect(result.stderr).not.toContain('internal error');
      expect(result.code).toBe(0);
    }
  });
});

describe('a cluster snapshot whose PodDisruptionBudget has no usable metadata', () => {
  it.each([
    ['metadata: [null]', '[null]', 'metadata'],
    ['metadata: {}', '{}', 'metadata.name'],
  ])(
    'is refused by validate and by disrupt on the field, not with an internal error (fuzz seed 20261202, inputs 338 and 1319: %s)',
    async (_label, value, field) => {
      // validate skipped PodDisruptionBudgets; disrupt and simulate then failed with
      // 'internal error: PodDisruptionBudget: metadata.name is required'.
      const text = snapshot.replace(
        /(kind: PodDisruptionBudget\n {4}metadata:)\n {6}name: web\n {6}namespace: default\n/,
        `$1 ${value}\n`,
      );
      expect(text).toContain(`kind: PodDisruptionBudget\n    metadata: ${value}\n`);
      const path = await file(`pdb-${field}.yaml`, text);
      const validate = await cli('validate', path);
      expect(validate.code).toBe(1);
      expect(validate.stderr + validate.stdout).toMatch(
        new RegExp(`pdb-${field.replace('.', '\\.')}\\.yaml:\\d+ .*${field.replace('.', '\\.')}`),
      );
      const disrupt = await cli('disrupt', path, '--now', '2026-12-01T10:00:00Z');
      expect(disrupt.code).toBe(1);
      expect(disrupt.stderr).not.toContain('internal error');
    },
  );
});

describe('an input of a thousand NodePools', () => {
  it('is refused by simulate with the scheduler bound and the counts, before anything runs (fuzz seed 20261202, input 1708: 2,563 copies of the AWS file)', async () => {
    // Each NodePool may launch each of the ~1,300 AWS types: over the 1,048,576 (NodePool,
    // instance type) rows the scheduler's catalog holds. simulate ended in 'internal error:
    // solver catalog: typeCount must be an integer from 0 to 1048576'.
    const pools = Array.from(
      { length: 1000 },
      (_, i) => `apiVersion: karpenter.sh/v1
kind: NodePool
metadata:
  name: pool-${i}
spec:
  template:
    spec:
      nodeClassRef: {group: karpenter.k8s.aws, kind: EC2NodeClass, name: default}
      requirements: [{key: kubernetes.io/os, operator: In, values: [linux]}]
`,
    );
    const text = [
      `apiVersion: karpenter.k8s.aws/v1
kind: EC2NodeClass
metadata:
  name: default
spec:
  role: KarpenterNodeRole-demo
  amiSelectorTerms: [{alias: al2023@latest}]
  subnetSelectorTerms: [{tags: {karpenter.sh/discovery: demo}}]
  securityGroupSelectorTerms: [{tags: {karpenter.sh/discovery: demo}}]
`,
      ...pools,
      `apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
spec:
  replicas: 1
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec:
      containers: [{name: web, image: nginx, resources: {requests: {cpu: 100m}}}]
`,
    ].join('---\n');
    const path = await file('a-thousand-nodepools.yaml', text);
    expect(await cli('validate', path)).toMatchObject({ code: 0 });
    const simulate = await cli('simulate', path, '--cloud', 'aws');
    expect(simulate.stderr).toMatch(
      /^karpenter-ts: error: a simulation holds at most 1,048,576 \(NodePool, instance type\) pairs; the input's 1,000 NodePools may launch [\d,]+: use fewer NodePools or narrow their requirements\n$/,
    );
    expect(simulate.code).toBe(1);
  }, 60_000);
});

/**
 * Rewrites the first object of `kind` in the snapshot with `rewrite` (applied to its text, from
 * its `kind:` line to the next list item), checking the rewrite changed something.
 */
function rewriteFirst(kind: string, rewrite: (object: string) => string): string {
  const match = new RegExp(`( {4}kind: ${kind}\\n(?:(?! {2}- ).*\\n)*)`).exec(snapshot);
  if (!match) throw new Error(`no ${kind} in the snapshot`);
  const changed = rewrite(match[1]!);
  expect(changed).not.toBe(match[1]);
  return snapshot.replace(match[1]!, changed);
}

describe('a cluster snapshot object whose metadata or status lacks its Kubernetes type', () => {
  it.each([
    [
      'a Node with status.conditions: {} (fuzz seed 20261202, input 1988)',
      'node-conditions-map',
      () =>
        rewriteFirst('Node', (o) =>
          o.replace(/ {6}conditions:\n(?: {8}.*\n)+/, '      conditions: {}\n'),
        ),
      'status.conditions',
    ],
    [
      'a Pod with status.conditions: 3 (fuzz seed 20261202, input 2171)',
      'pod-conditions-number',
      () =>
        rewriteFirst('Pod', (o) =>
          o.replace(/ {6}conditions:\n(?: {8}.*\n)+/, '      conditions: 3\n'),
        ),
      'status.conditions',
    ],
    [
      'a NodeClaim whose metadata is a nested list (fuzz seed 20261202, input 2192)',
      'nodeclaim-metadata-list',
      () =>
        rewriteFirst('NodeClaim', (o) =>
          o.replace(/ {4}metadata:\n(?: {6}.*\n)+/, '    metadata: [[a]]\n'),
        ),
      'metadata',
    ],
    [
      'a Node with status.allocatable: null and no capacity (fuzz seed 20261202, input 1994)',
      'node-allocatable-null',
      () =>
        rewriteFirst('Node', (o) =>
          o
            .replace(/ {6}capacity:\n(?: {8}.*\n)+/, '')
            .replace(/ {6}allocatable:\n(?: {8}.*\n)+/, '      allocatable: null\n'),
        ),
      'status.allocatable',
    ],
    [
      'a NodePool whose metadata is a list',
      'nodepool-metadata-list',
      () =>
        rewriteFirst('NodePool', (o) =>
          o.replace(/ {4}metadata:\n(?: {6}.*\n)+/, '    metadata: [default]\n'),
        ),
      'metadata',
    ],
    [
      'a NodeClass whose metadata is a string',
      'nodeclass-metadata-string',
      () =>
        rewriteFirst('SimNodeClass', (o) =>
          o.replace(/ {4}metadata:\n(?: {6}.*\n)+/, '    metadata: default\n'),
        ),
      'metadata',
    ],
    [
      'a NodeClass without a name (fuzz seed 20261202, inputs 3329 and 4916)',
      'nodeclass-without-name',
      () => rewriteFirst('SimNodeClass', (o) => o.replace(/ {6}name: default\n/, '')),
      'metadata.name',
    ],
    [
      'a NodeClass without metadata (fuzz seed 20261202, inputs 3977, 4592, 4691 and 5321)',
      'nodeclass-without-metadata',
      () => rewriteFirst('SimNodeClass', (o) => o.replace(/ {4}metadata:\n(?: {6}.*\n)+/, '')),
      'metadata',
    ],
    [
      'a Pod whose owner reference has no name (fuzz seed 20261202, input 7943)',
      'pod-owner-without-name',
      () => rewriteFirst('Pod', (o) => o.replace(/ {10}name: web-5d8f7c9b4\n/, '')),
      'metadata.ownerReferences[0].name',
    ],
    [
      'a Pod with a null condition',
      'pod-condition-null',
      () =>
        rewriteFirst('Pod', (o) =>
          o.replace(/ {6}conditions:\n(?: {8}.*\n)+/, '      conditions: [null]\n'),
        ),
      'status.conditions[0]',
    ],
    [
      'a Node with status.capacity a list',
      'node-capacity-list',
      () =>
        rewriteFirst('Node', (o) =>
          o.replace(/ {6}capacity:\n(?: {8}.*\n)+/, '      capacity: [2]\n'),
        ),
      'status.capacity',
    ],
  ])(
    'is refused by validate, disrupt and simulate on the field, not with an internal error: %s',
    async (_what, name, build, field) => {
      const path = await file(`${name}.yaml`, build());
      const validate = await cli('validate', path);
      expect(validate.code).toBe(1);
      const escaped = field.replace(/[.[\]]/g, '\\$&');
      expect(validate.stderr + validate.stdout).toMatch(
        new RegExp(`${name}\\.yaml:\\d+ (?:items\\[\\d+\\]\\.)?${escaped}: `),
      );
      for (const argv of [
        ['disrupt', path, '--now', '2026-12-01T10:00:00Z'],
        ['simulate', path, '--cloud', 'sim'],
      ]) {
        const result = await cli(...argv);
        expect(result.stderr).not.toContain('internal error');
        expect(result.stderr).toContain(field);
        expect(result.code).toBe(1);
      }
    },
  );
});

describe('a cluster snapshot whose objects are valid but do not hold together as a cluster', () => {
  it.each([
    [
      'a NodeClaim whose status.providerID is not a string, read as not launched yet (fuzz seed 20261202, input 2630)',
      'nodeclaim-provider-id-true',
      () =>
        rewriteFirst('NodeClaim', (o) =>
          o.replace('providerID: kwok://default-7xk2p', 'providerID: true'),
        ),
      'items[3].status.providerID',
      'NodeClaim default-7xk2p is not launched yet (no status.providerID), and a snapshot cannot replay a launch in flight: take the snapshot again once its Node has registered',
    ],
    [
      'a Pod bound to a Node the snapshot does not hold (fuzz seed 20261202, input 3020 renamed the Node; here the Pod names another)',
      'pod-on-missing-node',
      () =>
        rewriteFirst('Pod', (o) => o.replace('nodeName: default-7xk2p', 'nodeName: default-gone1')),
      'items[9].spec.nodeName',
      'Pod default/web-5d8f7c9b4-h2x7k is bound to Node "default-gone1", which the snapshot does not hold: add the Nodes (kubectl get nodes,pods,... -o yaml)',
    ],
  ])(
    'validate accepts it with a warning saying why simulate will refuse it, and simulate refuses it so: %s',
    async (_what, name, build, field, message) => {
      // validate judges objects one by one, as the API server does: it exited 0 without a
      // word, and simulate then stopped on the snapshot rule.
      const path = await file(`${name}.yaml`, build());
      const validate = await cli('validate', path);
      expect(validate.code).toBe(0);
      expect(validate.stdout).toContain(
        `${path}:1 ${field}: warning: simulate, explain, compare, disrupt and diff read the input as a cluster and refuse it: ${message}\n`,
      );
      const simulate = await cli('simulate', path, '--cloud', 'sim');
      expect(simulate.stderr).toBe(`karpenter-ts: error: ${path}:1 ${field}: ${message}\n`);
      expect(simulate.code).toBe(1);
    },
  );
});
