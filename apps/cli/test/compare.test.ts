import { describe, expect, it } from 'vitest';
import { cli } from './support/cli.js';

const BOUTIQUE = '../../examples/workloads/online-boutique-kubernetes-manifests.yaml';
const FIXTURES = 'test/fixtures/compare';

/** The table row (first line) of a cloud and region, split into cells on runs of 2+ spaces. */
function row(stdout: string, cloud: string, region: string): string[] {
  const line = stdout
    .split('\n')
    .find((l) => l.trim().startsWith(`${cloud} `) && l.includes(` ${region} `));
  if (!line) throw new Error(`no row for ${cloud} ${region} in:\n${stdout}`);
  return line.trim().split(/\s{2,}/);
}

function column(stdout: string, name: string, cells: string[]): string {
  const head = stdout
    .split('\n')[0]!
    .trim()
    .split(/\s{2,}/);
  return cells[head.indexOf(name)] ?? '';
}

describe('karpenter-ts compare table', () => {
  it('shows the capacity types launched and marks each run whose spot prices are modelled, with a footnote per model', async () => {
    const { code, stdout } = await cli(
      'compare',
      BOUTIQUE,
      `${FIXTURES}/azure-spot-d.yaml`,
      '--clouds',
      'azure:eastus,aws:us-east-1',
    );
    expect(code).toBe(0);
    const azure = row(stdout, 'azure', 'eastus');
    const aws = row(stdout, 'aws', 'us-east-1');
    expect(column(stdout, 'CAPACITY TYPES', azure)).toMatch(/^spot \d+$/);
    expect(column(stdout, 'CAPACITY TYPES', aws)).toMatch(/^spot \d+$/);
    expect(column(stdout, 'USD/HOUR', azure)).toMatch(/^\$\d+\.\d{4}¹$/);
    expect(column(stdout, 'USD/HOUR', aws)).toMatch(/^\$\d+\.\d{4}²$/);
    expect(stdout).toContain('¹ azure eastus: spot priced as on-demand (no spot data)\n');
    expect(stdout).toContain('² aws us-east-1: spot = 0.7 × on-demand (modelled)\n');
  });

  it('names the requirement retargeting dropped next to the NodePool it was dropped from', async () => {
    const { code, stdout } = await cli(
      'compare',
      BOUTIQUE,
      `${FIXTURES}/azure-spot-d.yaml`,
      '--clouds',
      'azure:eastus,aws:us-east-1',
    );
    expect(code).toBe(0);
    const lines = stdout.split('\n');
    const awsLine = lines.findIndex((l) => l.trim().startsWith('aws '));
    expect(lines[awsLine + 1]!.trim()).toBe('dropped: karpenter.azure.com/sku-family In D');
    const azureLine = lines.findIndex((l) => l.trim().startsWith('azure '));
    expect(lines[azureLine + 1]).not.toContain('dropped');
  });

  it('gives the reason pods stay pending per run, grouped, with an explain command that runs, and "-" utilization without nodes', async () => {
    const { code, stdout } = await cli(
      'compare',
      BOUTIQUE,
      `${FIXTURES}/aws-west-zones.yaml`,
      '--clouds',
      'aws:us-east-1',
      '--scale',
      '2',
    );
    expect(code).toBe(0);
    const aws = row(stdout, 'aws', 'us-east-1');
    expect(column(stdout, 'NODES', aws)).toBe('0');
    expect(column(stdout, 'CAPACITY TYPES', aws)).toBe('-');
    expect(column(stdout, 'CPU UTIL', aws)).toBe('-');
    expect(column(stdout, 'MEMORY UTIL', aws)).toBe('-');
    expect(stdout).toMatch(/\nPending pods:\n {2}aws us-east-1: 24 pods: \S.*\n/);
    const why = /^ {4}why: karpenter-ts (explain .*)$/m.exec(stdout);
    expect(why).not.toBeNull();
    expect(why![1]).toMatch(
      new RegExp(
        `^explain ${BOUTIQUE} ${FIXTURES}/aws-west-zones.yaml --cloud aws --region us-east-1 --scale 2 --pod default/\\S+$`,
      ),
    );
    const explained = await cli(...why![1]!.split(' '));
    expect(explained.stderr).toBe('');
    expect(explained.code).toBe(0);
    expect(explained.stdout).toContain('NodePool "west-only"');
  });

  it('runs a CLOUD:REGION named twice once, with a note', async () => {
    const { code, stdout, stderr } = await cli(
      'compare',
      BOUTIQUE,
      '--clouds',
      'azure:eastus,sim,azure',
      '-o',
      'json',
    );
    expect(code).toBe(0);
    expect(stderr).toBe(
      'karpenter-ts: note: --clouds names azure:eastus more than once; running it once\n',
    );
    const rows = JSON.parse(stdout) as { cloud: string; region: string }[];
    expect(rows.map((r) => `${r.cloud}:${r.region}`)).toEqual(['azure:eastus', 'sim:sim']);
  });
});

describe('karpenter-ts compare --output json', () => {
  it('reports capacity types, the spot price model, pending reasons and dropped requirements', async () => {
    const { code, stdout } = await cli(
      'compare',
      BOUTIQUE,
      `${FIXTURES}/aws-small-limited.yaml`,
      '--clouds',
      'aws:us-east-1,azure:eastus',
      '--scale',
      '10',
      '-o',
      'json',
    );
    expect(code).toBe(0);
    const [aws, azure] = JSON.parse(stdout) as {
      totals: { pods: number; scheduledPods: number; pricePerHour: number };
      capacityTypes: { capacityType: string; count: number }[];
      spotPricing?: string;
      pending: { reason: string; pods: number; examplePod: string }[];
      droppedRequirements: { nodePool: string; requirements: string[] }[];
    }[];
    expect(aws!.capacityTypes).toEqual([{ capacityType: 'spot', count: 1 }]);
    expect(aws!.spotPricing).toBe('spot = 0.7 × on-demand (modelled)');
    expect(aws!.droppedRequirements).toEqual([]);
    expect(aws!.pending.reduce((n, g) => n + g.pods, 0)).toBe(
      aws!.totals.pods - aws!.totals.scheduledPods,
    );
    expect(aws!.pending[0]!.reason).toMatch(/remaining limits/);
    expect(azure!.droppedRequirements).toEqual([
      { nodePool: 'small', requirements: ['karpenter.k8s.aws/instance-cpu Lte 16'] },
    ]);
  });
});
