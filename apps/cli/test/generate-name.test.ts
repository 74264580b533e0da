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
