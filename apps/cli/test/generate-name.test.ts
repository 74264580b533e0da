import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { parseManifestText } from '../src/manifests/parse.js';
import { expandWorkloads } from '../src/workloads/expand.js';
import { cli } from './support/cli.js';
import { writeManifests } from './support/manifests.js';

/** A Job named only by `metadata.generateName`, as written for `kubectl create -f`. */
const job = `apiVersion: batch/v1
kind: Job
metadata: { generateName: run- }
spec:
  template:
    spec:
      restartPolicy: Never
      containers: [{ name: c, image: busybox, resources: { requests: { cpu: 100m } } }]
`;

describe('workloads named by metadata.generateName (kubectl create)', () => {
  it('validate accepts a Job with only generateName, and two of them are not duplicates', async () => {
    const file = await writeManifests(job, job);
    const { code, stdout } = await cli('validate', file);
    expect(stdout).not.toContain('metadata.name');
    expect(code).toBe(0);
  });

  it('names each generateName object as the apiserver does (prefix + 5 characters), deterministically and distinctly', () => {
    const docs = parseManifestText([job, job].join('---\n'), 'jobs.yaml').documents;
    const names = () => expandWorkloads(docs).workloads.map((w) => w.name);
    const first = names();
    expect(first).toHaveLength(2);
    for (const name of first) expect(name).toMatch(/^run-[bcdfghjklmnpqrstvwxz2456789]{5}$/);
    expect(new Set(first).size).toBe(2);
    expect(names()).toEqual(first);
  });

  it('simulate schedules the pods of a generateName Job', async () => {
    const file = await writeManifests(job);
    const { code, stdout, stderr } = await cli('simulate', file, '--cloud', 'sim', '-o', 'json');
    expect(stderr).toBe('');
    expect(code).toBe(0);
    expect((JSON.parse(stdout) as { totals: { scheduledPods: number } }).totals.scheduledPods).toBe(
      1,
    );
  });

  it('still requires a name or a generateName', async () => {
    const file = await writeManifests(
      job.replace('{ generateName: run- }', '{ labels: { a: b } }'),
    );
    const { code, stdout } = await cli('validate', file);
    expect(code).toBe(1);
    expect(stdout).toContain('metadata.name: required: a non-empty name or generateName');
  });
});

/** A Deployment for the Karpenter objects below to schedule. */
const web = `apiVersion: apps/v1
kind: Deployment
metadata: { name: web }
spec:
  replicas: 1
  selector: { matchLabels: { app: web } }
  template:
    metadata: { labels: { app: web } }
    spec:
      containers: [{ name: c, image: nginx, resources: { requests: { cpu: 100m } } }]
`;

describe('Karpenter objects named by metadata.generateName (kubectl create)', () => {
  it.each([
    [
      'a NodePool',
      `apiVersion: karpenter.sh/v1
kind: NodePool
metadata: { generateName: pool- }
spec:
  template:
    spec:
      nodeClassRef: { group: karpenter.sim, kind: SimNodeClass, name: default }
      requirements: []
`,
      [] as string[],
    ],
    [
      'a NodeOverlay',
      `apiVersion: karpenter.sh/v1alpha1
kind: NodeOverlay
metadata: { generateName: overlay- }
spec:
  requirements: []
  priceAdjustment: "+1"
`,
      ['--node-overlay'],
    ],
    [
      'a SimNodeClass',
      `apiVersion: karpenter.sim/v1
kind: SimNodeClass
metadata: { generateName: class- }
`,
      [] as string[],
    ],
  ])(
    'simulate reads %s as the apiserver names it, not with an internal error',
    async (_what, object, flags) => {
      // validate accepted each (the apiserver does); simulate ended in
      // 'internal error: <Kind>: metadata.name is required'.
      const file = await writeManifests(object, web);
      expect(await cli('validate', file)).toMatchObject({ code: 0 });
      const { code, stderr } = await cli('simulate', file, '--cloud', 'sim', ...flags);
      expect(stderr).toBe('');
      expect(code).toBe(0);
    },
  );

  it('disrupt reads a snapshot NodeClaim named by generateName as the apiserver names it', async () => {
    const snapshot = readFileSync(
      fileURLToPath(new URL('../../../examples/snapshots/sim-cluster.yaml', import.meta.url)),
      'utf8',
    );
    const text = snapshot.replace(
      /(kind: NodeClaim\n {4}metadata:\n) {6}name: default-7xk2p\n/,
      '$1      generateName: default-\n',
    );
    expect(text).not.toBe(snapshot);
    const file = await writeManifests(text);
    expect(await cli('validate', file)).toMatchObject({ code: 0 });
    const { code, stderr } = await cli('disrupt', file, '--now', '2026-12-01T10:00:00Z');
    expect(stderr).toBe('');
    expect(code).toBe(0);
  });
});
