/**
 * Sweeps: the cases (scenarios x NodePool variants x clouds x autoscalers), the share of one
 * shard (`--shard i/n` or an Indexed Job's JOB_COMPLETION_INDEX), variants applied as merge
 * patches and checked, and shards written apart merging into one report.
 */
import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { parseShard, shardCases, sweepCases } from '../src/sweep/cases.js';
import { loadSweep } from '../src/sweep/load.js';
import { awsNodePool, BOUTIQUE, writeFiles } from './support.js';

const APP = resolve(fileURLToPath(new URL('..', import.meta.url)));

/** A folder with a 20-minute scenario on AWS (pool `general`), a sweep over it, and `extra` files. */
function sweepFolder(sweep: string, extra: Record<string, string> = {}): string {
  return writeFiles({
    'day.yaml': `apiVersion: sim.karpenter-ts.io/v1alpha1
kind: Scenario
name: day
duration: 20m
manifests: [${BOUTIQUE}]
clouds:
  - {cloud: aws, region: us-east-1, manifests: [pools.yaml]}
events:
  - {type: replicas, at: 5m, workload: frontend, replicas: 10}
`,
    'pools.yaml': awsNodePool('general', {
      instanceTypes: ['m6i.large', 'm6i.xlarge', 'm6i.2xlarge'],
    }),
    'sweep.yaml': `apiVersion: sim.karpenter-ts.io/v1alpha1
kind: Sweep
name: test
scenarios: [day.yaml]
${sweep}`,
    ...extra,
  });
}

const VARIANTS = `autoscalers: [karpenter, cluster-autoscaler]
variants:
  - name: as-written
  - name: large-only
    nodePools:
      general:
        spec:
          template:
            spec:
              requirements:
                - {key: node.kubernetes.io/instance-type, operator: In, values: [m6i.large]}
                - {key: karpenter.sh/capacity-type, operator: In, values: [on-demand]}
`;

describe('sweep cases and shards', () => {
  it('enumerates scenarios x variants x clouds x autoscalers, the variant patching its NodePool', async () => {
    const sweep = await loadSweep(join(sweepFolder(VARIANTS), 'sweep.yaml'));
    const cases = sweepCases(sweep);
    expect(cases.map((c) => `${c.variant}/${c.autoscaler}/${c.cloud.cloud}`)).toEqual([
      'as-written/karpenter/aws',
      'as-written/cluster-autoscaler/aws',
      'large-only/karpenter/aws',
      'large-only/cluster-autoscaler/aws',
    ]);
    const poolOf = (k: number) =>
      cases[k]!.cloud.documents.find((d) => d.object.kind === 'NodePool')!.object as unknown as {
        spec: { template: { spec: { requirements: { values: string[] }[] } } };
      };
    expect(poolOf(0).spec.template.spec.requirements[0]!.values).toEqual([
      'm6i.large',
      'm6i.xlarge',
      'm6i.2xlarge',
    ]);
    expect(poolOf(2).spec.template.spec.requirements[0]!.values).toEqual(['m6i.large']);
  });

  it('gives shard i of n every n-th case, so the shards together run each case once', () => {
    const cases = Array.from({ length: 7 }, (_, index) => ({ index }) as never);
    const shards = [0, 1, 2].map((index) =>
      shardCases(cases, { index, count: 3 }).map((c: { index: number }) => c.index),
    );
    expect(shards).toEqual([
      [0, 3, 6],
      [1, 4],
      [2, 5],
    ]);
    expect(shardCases(cases, undefined)).toHaveLength(7);
  });

  it('reads the shard from --shard i/n (1-based) or JOB_COMPLETION_INDEX (0-based) with --shards n', () => {
    expect(parseShard('2/4', undefined, {})).toEqual({ index: 1, count: 4 });
    expect(parseShard(undefined, '4', { JOB_COMPLETION_INDEX: '3' })).toEqual({
      index: 3,
      count: 4,
    });
    expect(parseShard(undefined, undefined, {})).toBeUndefined();
    expect(() => parseShard('5/4', undefined, {})).toThrow(
      '--shard: expected i/n with 1 <= i <= n (e.g. 2/4), got "5/4"',
    );
    expect(() => parseShard(undefined, '4', { JOB_COMPLETION_INDEX: '4' })).toThrow(
      '--shards 4: expected JOB_COMPLETION_INDEX 0..3 in the environment (an Indexed Job sets it), got "4"',
    );
    expect(() => parseShard(undefined, undefined, { JOB_COMPLETION_INDEX: '0' })).toThrow(
      "JOB_COMPLETION_INDEX is set: give --shards n (the Job's completions) to shard by it",
    );
  });

  it('refuses a variant naming a NodePool the scenario lacks, or making it invalid, on its line', async () => {
    const dir = sweepFolder(`variants:
  - name: gpu
    nodePools:
      gpu: {spec: {weight: 5}}
  - name: bad
    nodePools:
      general: {spec: {weight: 1000}}
`);
    await expect(loadSweep(join(dir, 'sweep.yaml'))).rejects.toThrow(
      [
        `${dir}/sweep.yaml:8 variants[0].nodePools.gpu: no NodePool gpu in the manifests of scenario day`,
        `${dir}/sweep.yaml:10 variants[1].nodePools: scenario day on aws: NodePool spec.weight: must be at most 100, got 1000`,
      ].join('\n'),
    );
  });
});

describe('karpenter-ts-sim sweep', () => {
  it('runs two shards apart, as two Indexed Job pods would, and their files merge into one report', () => {
    const dir = sweepFolder(VARIANTS);
    const out = join(dir, 'out');
    const sim = (args: string[], env: Record<string, string> = {}) =>
      execFileSync(process.execPath, [join(APP, 'dist/main.js'), ...args], {
        encoding: 'utf8',
        env: { ...process.env, ...env },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
    for (const index of ['0', '1'])
      sim(
        [
          'sweep',
          join(dir, 'sweep.yaml'),
          '--out',
          out,
          '--shards',
          '2',
          '--workers',
          '2',
          '-q',
          '--solver',
          'ts',
        ],
        {
          JOB_COMPLETION_INDEX: index,
        },
      );
    expect(readdirSync(join(out, 'day')).sort()).toEqual([
      'as-written--cluster-autoscaler--aws--us-east-1.json',
      'as-written--karpenter--aws--us-east-1.json',
      'large-only--cluster-autoscaler--aws--us-east-1.json',
      'large-only--karpenter--aws--us-east-1.json',
    ]);
    const large = JSON.parse(
      readFileSync(join(out, 'day', 'large-only--karpenter--aws--us-east-1.json'), 'utf8'),
    );
    expect(large.runs[0].id).toBe('large-only/karpenter/aws/us-east-1');
    expect(Object.keys(large.runs[0].summary.finalNodesByInstanceType)).toEqual(['m6i.large']);
    // The folder of every shard's files (a scenario folder inside) stands for them all.
    sim(['report', out, '-o', join(out, 'report.html')]);
    const page = readFileSync(join(out, 'report.html'), 'utf8');
    for (const id of [
      'as-written/karpenter/aws/us-east-1',
      'as-written/cluster-autoscaler/aws/us-east-1',
      'large-only/karpenter/aws/us-east-1',
      'large-only/cluster-autoscaler/aws/us-east-1',
    ])
      expect(page).toContain(`<td>${id}</td>`);
  }, 120_000);
});

describe('the shipped sweep and its Indexed Job', () => {
  it('shards the shipped sweep over the Job completions, every case run once', async () => {
    const repo = resolve(APP, '../..');
    const docs = readFileSync(join(repo, 'deploy/simulator/sweep-job.yaml'), 'utf8')
      .split(/^---$/m)
      .map((d) => parse(d) as Record<string, any>); // eslint-disable-line @typescript-eslint/no-explicit-any
    const job = docs.find((d) => d.kind === 'Job')!;
    expect(job.spec.completionMode).toBe('Indexed');
    const args: string[] = job.spec.template.spec.containers[0].args;
    expect(args[0]).toBe('sweep');
    const shards = args[args.indexOf('--shards') + 1]!;
    expect(Number(shards)).toBe(job.spec.completions);
    const claim = docs.find((d) => d.kind === 'PersistentVolumeClaim')!;
    expect(job.spec.template.spec.volumes[0].persistentVolumeClaim.claimName).toBe(
      claim.metadata.name,
    );
    // The image's working folder is the repository root (deploy/simulator/Containerfile).
    const sweep = await loadSweep(join(repo, args[1]!));
    const cases = sweepCases(sweep);
    expect(cases).toHaveLength(8);
    const ran = Array.from({ length: job.spec.completions }, (_, k) =>
      shardCases(cases, parseShard(undefined, shards, { JOB_COMPLETION_INDEX: String(k) })).map(
        (c) => c.index,
      ),
    ).flat();
    expect(ran.sort((a, b) => a - b)).toEqual(cases.map((c) => c.index));
  });
});
