import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { parseScale } from '../src/commands/options.js';
import { ManifestError, UsageError } from '../src/errors.js';
import { parseManifestText } from '../src/manifests/parse.js';
import { expandWorkloads } from '../src/workloads/expand.js';
import { cli } from './support/cli.js';
import { writeManifests } from './support/manifests.js';

const EXAMPLE_WORKLOADS = '../../examples/workloads';

/** Every error is one line on stderr. */
function oneLine(stderr: string): string {
  expect(stderr.endsWith('\n')).toBe(true);
  expect(stderr.trimEnd().split('\n')).toHaveLength(1);
  return stderr.trimEnd();
}

describe('usage errors', () => {
  it('prints an unknown option as one line "karpenter-ts: error: …" naming the help to read, exit 2', async () => {
    const { code, stderr } = await cli('simulate', 'x.yaml', '--bogus');
    expect(code).toBe(2);
    expect(oneLine(stderr)).toBe(
      "karpenter-ts: error: unknown option '--bogus' (see karpenter-ts simulate --help)",
    );
  });

  it('prints a bad choice and a missing argument as one line, exit 2', async () => {
    const choice = await cli('catalog', '--cloud', 'gcp');
    expect(choice.code).toBe(2);
    expect(oneLine(choice.stderr)).toMatch(
      /^karpenter-ts: error: option '--cloud <cloud>' argument 'gcp' is invalid\. .*azure, aws, sim/,
    );
    const missing = await cli('validate');
    expect(missing.code).toBe(2);
    expect(oneLine(missing.stderr)).toMatch(/^karpenter-ts: error: missing required argument/);
  });
});

describe('--scale', () => {
  it.each(['0x10', '1e9', '-1', '0', '0.0', '', ' ', 'Infinity', 'NaN', '1/2'])(
    'refuses %j as a usage error naming --scale',
    (value) => {
      expect(() => parseScale(value)).toThrow(UsageError);
      expect(() => parseScale(value)).toThrow(/^--scale: expected a decimal number greater than 0/);
    },
  );

  it.each([
    ['2', 2],
    ['0.5', 0.5],
    ['.25', 0.25],
    ['10.', 10],
  ])('accepts %j', (value, expected) => {
    expect(parseScale(value)).toBe(expected);
  });

  it('refuses to expand more pending pods than the cap, before building them, naming --scale and the workload', () => {
    const { documents } = parseManifestText(
      'apiVersion: apps/v1\nkind: Deployment\nmetadata: { name: web }\nspec:\n  replicas: 3\n  template: { spec: { containers: [{ name: c, image: nginx }] } }\n',
      'web.yaml',
    );
    expect(expandWorkloads(documents, { scale: 2, maxPendingPods: 6 }).pending).toHaveLength(6);
    expect(() => expandWorkloads(documents, { scale: 3, maxPendingPods: 6 })).toThrow(
      '--scale 3: the input would expand to more than 6 pending pods (Deployment default/web alone makes 9); use a smaller --scale',
    );
  });

  it('blames the workload and its field, not --scale, when the input itself makes more pods than the cap', () => {
    const deployment = (name: string, replicas: number) =>
      `apiVersion: apps/v1\nkind: Deployment\nmetadata: { name: ${name} }\nspec:\n  replicas: ${replicas}\n  template: { spec: { containers: [{ name: c, image: nginx }] } }\n`;
    const job =
      'apiVersion: batch/v1\nkind: CronJob\nmetadata: { name: nightly }\nspec:\n  schedule: "@daily"\n  jobTemplate:\n    spec:\n      parallelism: 9\n      completions: 8\n      template: { spec: { restartPolicy: Never, containers: [{ name: c, image: busybox }] } }\n';
    const read = (...texts: string[]) =>
      parseManifestText(texts.join('---\n'), 'in.yaml').documents;
    const fails = (documents: ReturnType<typeof read>, scale?: number) => {
      try {
        expandWorkloads(documents, { maxPendingPods: 6, ...(scale ? { scale } : {}) });
      } catch (error) {
        return error;
      }
      throw new Error('expected the expansion to fail');
    };
    const alone = fails(read(deployment('web', 7)));
    expect(alone).toBeInstanceOf(ManifestError);
    expect(alone).toMatchObject({
      exitCode: 1,
      message:
        'in.yaml:1 spec.replicas: Deployment default/web makes 7 pending pods, more than the 6 a simulation holds',
    });
    expect(
      expandWorkloads(read(deployment('web', 7)), { scale: 0.5, maxPendingPods: 6 }).pending,
    ).toHaveLength(4);
    expect(fails(read(deployment('a', 4), deployment('b', 3)), 1)).toMatchObject({
      exitCode: 1,
      message:
        'in.yaml:2 spec.replicas: Deployment default/b makes 3 pending pods, which bring the input past the 6 a simulation holds',
    });
    expect(fails(read(deployment('a', 1), job))).toMatchObject({
      message:
        'in.yaml:2 spec.jobTemplate.spec.completions: CronJob default/nightly makes 8 pending pods, more than the 6 a simulation holds',
    });
  });

  it('exits 1 naming the file, document and field for a huge replicas without --scale', async () => {
    const file = await writeManifests(
      'apiVersion: apps/v1\nkind: Deployment\nmetadata: { name: web }\nspec:\n  replicas: 2147483647\n  template: { spec: { containers: [{ name: c, image: nginx }] } }\n',
    );
    const { code, stderr } = await cli('simulate', file);
    expect(stderr).toBe(
      `karpenter-ts: error: ${file}:1 spec.replicas: Deployment default/web makes 2,147,483,647 pending pods, more than the 100,000 a simulation holds\n`,
    );
    expect(code).toBe(1);
  });

  it('exits 2 at once for a --scale that would make more than 100,000 pods (simulate re-solves the backlog every tick)', async () => {
    // examples/workloads holds 26 single-replica Deployments: --scale 38000 makes 988,000 pods,
    // which ran out of V8 heap (exit 134) under the former 1,000,000 cap.
    const { code, stderr } = await cli('simulate', EXAMPLE_WORKLOADS, '--scale', '38000');
    expect(code).toBe(2);
    expect(oneLine(stderr)).toMatch(
      /^karpenter-ts: error: --scale 38000: the input would expand to more than 100,000 pending pods .*use a smaller --scale$/,
    );
  });
});

describe('regions', () => {
  it('suggests the right spelling of a mis-cased Azure region (exit 2, one line)', async () => {
    const { code, stderr } = await cli('catalog', '--region', 'WestEurope');
    expect(code).toBe(2);
    expect(oneLine(stderr)).toBe(
      'karpenter-ts: error: --region: unknown Azure region "WestEurope"; did you mean "westeurope"? (57 Azure regions known)',
    );
  });

  it('suggests close names for a misspelt region', async () => {
    const { code, stderr } = await cli('catalog', '--region', 'eastu2');
    expect(code).toBe(2);
    expect(oneLine(stderr)).toMatch(/did you mean ("eastus" or )?"eastus2"\?/);
  });

  it('names --clouds for an unknown region in compare, before reading any file', async () => {
    const { code, stderr } = await cli('compare', '/no/such/file', '--clouds', 'azure:nowhere');
    expect(code).toBe(2);
    expect(oneLine(stderr)).toMatch(
      /^karpenter-ts: error: --clouds: unknown Azure region "nowhere"/,
    );
  });

  it('says the AWS catalog has zone data for three regions only', async () => {
    const { code, stderr } = await cli('catalog', '--cloud', 'aws', '--region', 'eu-west-1');
    expect(code).toBe(2);
    expect(oneLine(stderr)).toBe(
      'karpenter-ts: error: --region: unknown AWS region "eu-west-1" (the shipped AWS catalog has zone data for 3 regions only: us-east-1, us-east-2, us-west-2)',
    );
  });

  it('says the sim cloud has no regions', async () => {
    const { code, stderr } = await cli('catalog', '--cloud', 'sim', '--region', 'x');
    expect(code).toBe(2);
    expect(oneLine(stderr)).toMatch(/--region: the sim cloud has no regions/);
  });
});

describe('the built binary in a pipe', () => {
  it('exits quietly when the reader closes the pipe early (catalog | head -1)', async () => {
    const mainJs = fileURLToPath(new URL('../dist/main.js', import.meta.url));
    const child = spawn(process.execPath, [mainJs, 'catalog', '--cloud', 'aws'], {
      env: { ...process.env, NO_COLOR: '1', FORCE_COLOR: undefined },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    // Read one chunk, then close our end, as `head -1` does.
    child.stdout.once('data', () => child.stdout.destroy());
    const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
    expect(stderr).toBe('');
    expect(code).toBe(0);
  });
});
