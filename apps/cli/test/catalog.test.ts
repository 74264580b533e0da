import { describe, expect, it } from 'vitest';
import { cli } from './support/cli.js';

const awsSpotNote =
  "AWS spot prices shown are the shipped model (0.7 × on-demand); the controller replaces them with DescribeSpotPriceHistory's at start and every 12 hours.";

describe('karpenter-ts catalog', () => {
  it('prints a JSON array of {name, labels, capacity, allocatable, offerings} cheapest first', async () => {
    const { code, stdout, stderr } = await cli('catalog', '--cloud', 'sim', '--output', 'json');
    expect(stderr).toBe('');
    expect(code).toBe(0);
    const entries = JSON.parse(stdout) as {
      name: string;
      labels: Record<string, string>;
      capacity: Record<string, string>;
      allocatable: Record<string, string>;
      offerings: { zone: string; capacityType: string; pricePerHour: number; available: boolean }[];
    }[];
    expect(entries.length).toBeGreaterThan(0);
    for (const entry of entries) {
      expect(Object.keys(entry).sort()).toEqual([
        'allocatable',
        'capacity',
        'labels',
        'name',
        'offerings',
      ]);
      expect(entry.labels['node.kubernetes.io/instance-type']).toBe(entry.name);
      expect(entry.capacity.cpu).toMatch(/^\d+(m)?$/);
      expect(entry.allocatable.memory).toMatch(/^\d+(Ki|Mi|Gi)?$/);
      expect(entry.offerings.length).toBeGreaterThan(0);
      for (const o of entry.offerings) {
        expect(Object.keys(o).sort()).toEqual([
          'available',
          'capacityType',
          'pricePerHour',
          'zone',
        ]);
      }
    }
    const cheapest = entries.map((e) =>
      Math.min(...e.offerings.filter((o) => o.available).map((o) => o.pricePerHour)),
    );
    expect(cheapest).toEqual([...cheapest].sort((a, b) => a - b));
  });

  it('keeps only instance types and offerings the requirements allow', async () => {
    const { code, stdout } = await cli(
      'catalog',
      '--cloud',
      'sim',
      '--requirements',
      'kubernetes.io/arch=In:arm64',
      '--requirements',
      'karpenter.sh/capacity-type=In:spot',
      'topology.kubernetes.io/zone=NotIn:test-zone-a',
      '-o',
      'json',
    );
    expect(code).toBe(0);
    const entries = JSON.parse(stdout) as {
      labels: Record<string, string>;
      offerings: { zone: string; capacityType: string }[];
    }[];
    expect(entries.length).toBeGreaterThan(0);
    for (const entry of entries) {
      expect(entry.labels['kubernetes.io/arch']).toBe('arm64');
      for (const o of entry.offerings) {
        expect(o.capacityType).toBe('spot');
        expect(o.zone).not.toBe('test-zone-a');
      }
    }
  });

  it('prints a table with a count line, cheapest first', async () => {
    const { code, stdout } = await cli('catalog', '--cloud', 'sim', '--limit', '3');
    expect(code).toBe(0);
    expect(stdout).toContain('INSTANCE TYPE');
    expect(stdout).toContain('3 instance types in sim, cheapest');
  });

  it('says under an Azure table with spot offerings that spot is priced as on-demand', async () => {
    const spot =
      'Azure spot prices equal on-demand prices in the shipped data (no spot price table).';
    const azure = await cli('catalog', '--cloud', 'azure', '--limit', '2');
    expect(azure.stdout.trimEnd().split('\n').at(-1)).toBe(spot);
    const onDemandOnly = await cli(
      'catalog',
      '--requirements',
      'karpenter.sh/capacity-type=In:on-demand',
      '--limit',
      '2',
    );
    expect(onDemandOnly.stdout).not.toContain(spot);
  });

  it('says under an Azure table why some sizes show $999.0000, and only when one does', async () => {
    const all = await cli('catalog', '--cloud', 'azure', '--region', 'eastus');
    expect(all.code).toBe(0);
    const shown = all.stdout.split('\n').filter((l) => l.trimEnd().endsWith('$999.0000')).length;
    expect(shown).toBeGreaterThan(0);
    expect(all.stdout).toContain(
      `${shown} of these show $999.0000: no price in the shipped data (or a size outside upstream's known list), priced 999 as upstream prices it, so they are chosen only when no priced size fits.`,
    );
    const cheap = await cli('catalog', '--cloud', 'azure', '--limit', '2');
    expect(cheap.stdout).not.toContain('$999');
  });

  it('says when no instance type defines a requirement key, naming the near one for a typo', async () => {
    const typo = await cli(
      'catalog',
      '--requirements',
      'karpenter.azure.com/sku-famly=In:D',
      '--limit',
      '1',
    );
    expect(typo.code).toBe(0);
    expect(typo.stderr).toBe(
      'note: no instance type defines label "karpenter.azure.com/sku-famly": its requirement filters nothing here (on a NodePool it only labels the nodes); did you mean "karpenter.azure.com/sku-family"?\n',
    );
    const custom = await cli('catalog', '--requirements', 'example.com/team=In:a', '--limit', '1');
    expect(custom.stderr).toContain('"example.com/team": its requirement filters nothing here');
    expect(custom.stderr).not.toContain('did you mean');
    const known = await cli(
      'catalog',
      '--requirements',
      'karpenter.azure.com/sku-family=In:D',
      'topology.kubernetes.io/zone=In:eastus-1',
      'karpenter.sh/capacity-type=In:spot',
      'kubernetes.io/os=In:linux',
      '--limit',
      '1',
    );
    expect(known.stderr).toBe('');
  });

  it('marks AWS prices that are modelled spot prices (0.7 × on-demand) and says so under the table', async () => {
    const footnote = '¹ spot price, not observed: spot = 0.7 × on-demand (modelled)';
    const aws = await cli('catalog', '--cloud', 'aws', '--limit', '2');
    expect(aws.code).toBe(0);
    const lines = aws.stdout.trimEnd().split('\n');
    expect(lines.slice(1, 3).every((l) => /\$\d+\.\d{4}¹$/.test(l.trimEnd()))).toBe(true);
    expect(lines.at(-1)).toBe(footnote);
    expect(lines.at(-2)).toBe(awsSpotNote);
    const onDemand = await cli(
      'catalog',
      '--cloud',
      'aws',
      '--requirements',
      'karpenter.sh/capacity-type=In:on-demand',
      '--limit',
      '2',
    );
    expect(onDemand.stdout).not.toContain('¹');
    expect(onDemand.stdout).not.toContain(awsSpotNote);
  });

  it('says under an AWS table with spot offerings, and in its help, that spot prices are the shipped model the controller refreshes from DescribeSpotPriceHistory', async () => {
    const spotOnly = await cli(
      'catalog',
      '--cloud',
      'aws',
      '--requirements',
      'karpenter.sh/capacity-type=In:spot',
      '--limit',
      '1',
    );
    expect(spotOnly.code).toBe(0);
    expect(spotOnly.stdout).toContain(`\n${awsSpotNote}\n`);
    const azure = await cli('catalog', '--cloud', 'azure', '--limit', '2');
    expect(azure.stdout).not.toContain('DescribeSpotPriceHistory');
    const help = await cli('catalog', '--help');
    expect(help.code).toBe(0);
    expect(help.stdout.replace(/\s+/g, ' ')).toContain(awsSpotNote);
  });

  it('rejects a malformed requirement with exit code 2 and one line', async () => {
    const { code, stderr } = await cli(
      'catalog',
      '--cloud',
      'sim',
      '--requirements',
      'kubernetes.io/arch=Like:arm64',
    );
    expect(code).toBe(2);
    expect(stderr.trim().split('\n')[0]).toMatch(/--requirements: expected KEY=OP:V1,V2/);
  });

  it('rejects an unknown cloud with exit code 2', async () => {
    const { code, stderr } = await cli('catalog', '--cloud', 'gcp');
    expect(code).toBe(2);
    expect(stderr).toContain("argument 'gcp' is invalid");
  });
});

describe.each([
  ['azure', 'eastus', 'karpenter.azure.com/sku-family=In:D'],
  ['aws', 'us-east-1', 'karpenter.k8s.aws/instance-family=In:m7g'],
])('karpenter-ts catalog --cloud %s', (cloud, region, requirement) => {
  it(`lists the real ${region} catalog with provider requirements, cheapest first`, async () => {
    const { code, stdout } = await cli(
      'catalog',
      '--cloud',
      cloud,
      '--requirements',
      requirement,
      '-o',
      'json',
    );
    expect(code).toBe(0);
    const entries = JSON.parse(stdout) as {
      name: string;
      labels: Record<string, string>;
      offerings: { zone: string; pricePerHour: number; available: boolean }[];
    }[];
    expect(entries.length).toBeGreaterThan(1);
    const [key, value] = requirement.replace('=In:', '=').split('=') as [string, string];
    for (const entry of entries) {
      expect(entry.labels[key]).toBe(value);
      expect(entry.offerings.some((o) => o.available)).toBe(true);
    }
    const prices = entries.map((e) =>
      Math.min(...e.offerings.filter((o) => o.available).map((o) => o.pricePerHour)),
    );
    expect(prices).toEqual([...prices].sort((a, b) => a - b));
  });
});
