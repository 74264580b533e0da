import { mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { cli } from './support/cli.js';

const BOUTIQUE = '../../examples/workloads/online-boutique-kubernetes-manifests.yaml';
const FIXTURES = 'test/fixtures/compare';

/** Digits after the decimal point of a number as JSON prints it. */
function decimals(n: number): number {
  const text = String(n);
  return text.includes('.') ? text.slice(text.indexOf('.') + 1).length : 0;
}

describe('karpenter-ts simulate table', () => {
  it('lists pending pods with the same reason as one line: count, the first three names, how many more', async () => {
    const args = [
      'simulate',
      BOUTIQUE,
      `${FIXTURES}/aws-small-limited.yaml`,
      '--cloud',
      'aws',
      '--scale',
      '10',
    ];
    const json = await cli(...args, '-o', 'json');
    const report = JSON.parse(json.stdout) as { podErrors: { pod: string; reason: string }[] };
    const n = report.podErrors.length;
    expect(n).toBeGreaterThan(3);
    // JSON keeps one entry per pod; every one has the same reason here.
    expect(new Set(report.podErrors.map((e) => e.reason)).size).toBe(1);

    const { code, stdout } = await cli(...args);
    expect(code).toBe(0);
    const section = stdout
      .slice(stdout.indexOf(`Pending pods (${n}):`))
      .trimEnd()
      .split('\n');
    const [a, b, c] = report.podErrors;
    expect(section.slice(1)).toEqual([
      `  ${n} pods (${a!.pod}, ${b!.pod}, ${c!.pod} and ${n - 3} more): ${a!.reason}`,
    ]);
  });

  it('says next to a retargeted NodePool which requirement was dropped', async () => {
    const { code, stdout } = await cli(
      'simulate',
      BOUTIQUE,
      `${FIXTURES}/aws-small-limited.yaml`,
      '--cloud',
      'azure',
    );
    expect(code).toBe(0);
    expect(stdout.split('\n').slice(0, 2)).toEqual([
      'Simulation on azure eastus with NodePool "small"',
      'NodePool "small" retargeted to AKSNodeClass: dropped karpenter.k8s.aws/instance-cpu Lte 16',
    ]);
  });
});

describe('simulate over many NodePools', () => {
  /** A file of `copies` copies of the limited EC2 NodePool, named small-0, small-1, …. */
  async function manyPools(copies: number): Promise<string> {
    const pool = await readFile(`${FIXTURES}/aws-small-limited.yaml`, 'utf8');
    const dir = await mkdtemp(join(tmpdir(), 'karpenter-many-pools-'));
    const file = join(dir, 'pools.yaml');
    const docs = Array.from({ length: copies }, (_, i) =>
      pool.replace('name: small', `name: small-${i}`),
    );
    await writeFile(file, docs.join('\n---\n'));
    return file;
  }

  it('names the first five NodePools and counts the rest, in the header and in the retargeted line', async () => {
    const { code, stdout } = await cli(
      'simulate',
      BOUTIQUE,
      await manyPools(8),
      '--cloud',
      'azure',
    );
    expect(code).toBe(0);
    expect(stdout.split('\n').slice(0, 2)).toEqual([
      'Simulation on azure eastus with NodePools "small-0", "small-1", "small-2", "small-3", "small-4" and 3 more',
      'NodePools "small-0", "small-1", "small-2", "small-3", "small-4" and 3 more retargeted to AKSNodeClass: dropped karpenter.k8s.aws/instance-cpu Lte 16',
    ]);
  });

  it('groups the NodePools of a pending reason that share the same why; -o json keeps the full reason', async () => {
    const args = ['simulate', BOUTIQUE, await manyPools(8), '--cloud', 'aws', '--scale', '60'];
    const json = JSON.parse((await cli(...args, '-o', 'json')).stdout) as {
      podErrors: { reason: string }[];
    };
    const full = json.podErrors.find((e) => e.reason.includes('small-7'))!.reason;
    expect(full.split('; incompatible with nodepool ').length).toBe(8);

    const { code, stdout } = await cli(...args);
    expect(code).toBe(0);
    const lines = stdout.slice(stdout.indexOf('Pending pods (')).trimEnd().split('\n').slice(1);
    expect(lines.length).toBeGreaterThan(0);
    for (const line of lines) {
      expect(line).toMatch(
        /: incompatible with 8 nodepools \("small-\d", "small-\d", "small-\d", "small-\d", "small-\d" and 3 more\), /,
      );
      expect(line).not.toContain('incompatible with nodepool "');
    }
  });
});

describe('the header of the sim cloud, which has no region', () => {
  it('names the cloud once, not "sim sim"', async () => {
    const { code, stdout } = await cli('simulate', BOUTIQUE, '--cloud', 'sim');
    expect(code).toBe(0);
    expect(stdout.split('\n')[0]).toBe('Simulation on sim with NodePool "default"');
  });
});

describe('prices in JSON output', () => {
  it('are USD/hour rounded to 6 decimals per node claim and in the totals, spot (0.7 × on-demand) included', async () => {
    const { code, stdout } = await cli(
      'simulate',
      BOUTIQUE,
      `${FIXTURES}/azure-spot-d.yaml`,
      '--cloud',
      'aws',
      '--scale',
      '20',
      '-o',
      'json',
    );
    expect(code).toBe(0);
    const report = JSON.parse(stdout) as {
      nodeClaims: { capacityType: string; pricePerHour: number }[];
      totals: { pricePerHour: number };
    };
    expect(report.nodeClaims.some((c) => c.capacityType === 'spot')).toBe(true);
    for (const claim of report.nodeClaims)
      expect(decimals(claim.pricePerHour)).toBeLessThanOrEqual(6);
    expect(decimals(report.totals.pricePerHour)).toBeLessThanOrEqual(6);
  });

  it('are rounded to 6 decimals in the catalog too', async () => {
    const { code, stdout } = await cli('catalog', '--cloud', 'aws', '-o', 'json');
    expect(code).toBe(0);
    const entries = JSON.parse(stdout) as { offerings: { pricePerHour: number }[] }[];
    const prices = entries.flatMap((e) => e.offerings.map((o) => o.pricePerHour));
    expect(prices.length).toBeGreaterThan(100);
    expect(prices.filter((p) => decimals(p) > 6)).toEqual([]);
  });
});
