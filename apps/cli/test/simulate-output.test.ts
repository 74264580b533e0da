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
