import { mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { InstanceTypeRecord } from '@karpenter-ts/provider-aws';
import { getAwsInstanceTypes, type AwsCatalog } from '@karpenter-ts/provider-aws';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  describeInstanceTypes,
  describeZoneOfferings,
  getOnDemandPrices,
  pricingEndpointRegion,
  refreshAwsCatalog,
  toInstanceTypeRecord,
} from '../src/index.js';
import { startRecordedAws, type RecordedAws } from './recorded-aws.js';

let aws: RecordedAws;
beforeEach(async () => {
  aws = await startRecordedAws();
});
afterEach(async () => {
  await aws.close();
});

describe('DescribeInstanceTypes', () => {
  it('pages through every instance type with the hvm and architecture filters, 100 per page', async () => {
    const infos = await describeInstanceTypes(aws.ec2());
    expect(infos.map((i) => i.InstanceType)).toEqual([
      'm5.large',
      'g4dn.xlarge',
      'trn1.32xlarge',
      'm7i-flex.large',
    ]);
    const calls = aws.requests.filter((r) => r.api === 'DescribeInstanceTypes');
    expect(calls).toHaveLength(2);
    expect(calls[0]!.params).toMatchObject({
      MaxResults: '100',
      'Filter.1.Name': 'supported-virtualization-type',
      'Filter.1.Value.1': 'hvm',
      'Filter.2.Name': 'processor-info.supported-architecture',
      'Filter.2.Value.1': 'x86_64',
      'Filter.2.Value.2': 'arm64',
    });
    expect(calls[1]!.params.NextToken).toBe('page-2');
  });

  it('converts an entry to the catalog record with Karpenter label values', async () => {
    const [m5, g4dn, trn1, flex] = await describeInstanceTypes(aws.ec2());
    expect(toInstanceTypeRecord(m5!)).toEqual({
      name: 'm5.large',
      family: 'm5',
      category: 'm',
      generation: 5,
      size: 'large',
      flex: false,
      vcpu: 2,
      memoryMiB: 8192,
      arch: 'amd64',
      cpuManufacturer: 'intel',
      cpuClockMhz: 3100,
      hypervisor: 'nitro',
      bareMetal: false,
      encryptionInTransit: false,
      nitroEnclaves: false,
      ebsBandwidthMbps: 4750,
      networkBandwidthMbps: 750,
      capacityTypes: ['on-demand', 'spot'],
      eni: { maxEnis: 3, ipv4PerEni: 10, networkCards: 1, totalEnis: 3, src: 'ec2' },
      maxPods: 29,
    } satisfies InstanceTypeRecord);
    expect(toInstanceTypeRecord(g4dn!)).toMatchObject({
      localNvmeGB: 125,
      gpu: { name: 't4', manufacturer: 'nvidia', count: 1, memoryMiB: 16384 },
      nitroEnclaves: true,
    });
    expect(toInstanceTypeRecord(trn1!)).toMatchObject({
      category: 'trn',
      generation: 1,
      capacityTypes: ['on-demand', 'spot'],
      capacityBlock: true,
      accelerator: { name: 'trainium', manufacturer: 'aws', count: 16, coresPerDevice: 2 },
      eni: { maxEnis: 5, totalEnis: 40, networkCards: 8, efaMax: 8 },
      maxPods: 5 * 49 + 2,
      networkBandwidthMbps: 200000,
    });
    expect(toInstanceTypeRecord(flex!)).toMatchObject({
      family: 'm7i-flex',
      flex: true,
      generation: 7,
    });
  });

  it('keeps what EC2 does not return from the record on file', async () => {
    const [m5] = await describeInstanceTypes(aws.ec2());
    const previous = {
      ...toInstanceTypeRecord(m5!)!,
      networkBandwidthMbps: 750,
      eni: { maxEnis: 3, ipv4PerEni: 10, networkCards: 1, totalEnis: 3, branchEnis: 9 },
      allocatable: { cpuMillis: 1930, memoryMiB: 6903, ephemeralStorageGiB: 17, pods: 29 },
    };
    const record = toInstanceTypeRecord(m5!, previous)!;
    expect(record.eni.branchEnis).toBe(9);
    expect(record.allocatable).toEqual(previous.allocatable);
    const changed = toInstanceTypeRecord(m5!, { ...previous, memoryMiB: 4096 })!;
    expect(changed.allocatable).toBeUndefined();
  });
});

describe('DescribeInstanceTypeOfferings', () => {
  it('collects sorted zones per instance type across pages, 1000 per page', async () => {
    const offerings = await describeZoneOfferings(aws.ec2());
    expect(offerings).toEqual({
      zones: ['us-east-1a', 'us-east-1b', 'us-east-1f'],
      types: {
        'g4dn.xlarge': ['us-east-1a'],
        'm5.large': ['us-east-1a', 'us-east-1b'],
        'm7i-flex.large': ['us-east-1a'],
        'trn1.32xlarge': ['us-east-1f'],
      },
    });
    const calls = aws.requests.filter((r) => r.api === 'DescribeInstanceTypeOfferings');
    expect(calls[0]!.params).toMatchObject({
      LocationType: 'availability-zone',
      MaxResults: '1000',
    });
    expect(calls[1]!.params.NextToken).toBe('offerings-2');
  });
});

describe('pricing:GetProducts', () => {
  it('reads on-demand USD prices from both queries, skipping zero and unparsable items', async () => {
    const prices = await getOnDemandPrices(aws.pricing(), 'us-east-1');
    expect(prices).toEqual({
      'm5.large': 0.096,
      'g4dn.xlarge': 0.526,
      'm7i-flex.large': 0.09576,
      'm5.metal': 4.608,
    });
    const calls = aws.requests.filter((r) => r.api === 'AWSPriceListService.GetProducts');
    expect(calls).toHaveLength(3);
    expect(calls[0]!.params).toMatchObject({ ServiceCode: 'AmazonEC2', MaxResults: 100 });
    const filters = (i: number) =>
      Object.fromEntries(
        (calls[i]!.params.Filters as { Field: string; Value: string }[]).map((f) => [
          f.Field,
          f.Value,
        ]),
      );
    expect(filters(0)).toEqual({
      regionCode: 'us-east-1',
      operatingSystem: 'Linux',
      preInstalledSw: 'NA',
      capacitystatus: 'Used',
      marketoption: 'OnDemand',
      tenancy: 'Shared',
      productFamily: 'Compute Instance',
    });
    expect(calls[1]!.params.NextToken).toBe('shared-2');
    expect(filters(2)).toMatchObject({
      tenancy: 'Dedicated',
      productFamily: 'Compute Instance (bare metal)',
    });
  });

  it('picks the Pricing endpoint region that serves each region', () => {
    expect(pricingEndpointRegion('us-west-2')).toBe('us-east-1');
    expect(pricingEndpointRegion('ap-northeast-1')).toBe('ap-south-1');
    expect(pricingEndpointRegion('eu-west-1')).toBe('eu-central-1');
    expect(pricingEndpointRegion('cn-north-1')).toBe('cn-northwest-1');
  });
});

describe('refreshAwsCatalog', () => {
  async function seededDir(): Promise<string> {
    const dir = await mkdtemp(join(tmpdir(), 'aws-catalog-'));
    const kept: InstanceTypeRecord = {
      name: 'x1.kept',
      family: 'x1',
      category: 'x',
      generation: 1,
      size: 'kept',
      flex: false,
      vcpu: 4,
      memoryMiB: 4096,
      arch: 'amd64',
      cpuManufacturer: 'intel',
      hypervisor: 'xen',
      bareMetal: false,
      encryptionInTransit: false,
      capacityTypes: ['on-demand'],
      eni: { maxEnis: 2, ipv4PerEni: 4, networkCards: 1, totalEnis: 2 },
      maxPods: 8,
    };
    await writeFile(
      join(dir, 'instance-types.json'),
      JSON.stringify({ meta: { note: 'seed' }, types: [kept] }),
    );
    await writeFile(
      join(dir, 'pricing-on-demand.json'),
      JSON.stringify({
        meta: { fallbackRegion: 'us-east-1' },
        regions: { 'cn-north-1': { currency: 'CNY', prices: { 'm5.large': 0.7 } } },
      }),
    );
    return dir;
  }

  it('writes all three files, merging with what was on file, and the provider reads them', async () => {
    const dir = await seededDir();
    const summary = await refreshAwsCatalog({
      outDir: dir,
      regions: ['us-east-1'],
      instanceTypes: true,
      offerings: true,
      prices: true,
      ec2Client: (region) => aws.ec2(region),
      pricingClient: (region) => aws.pricing(region),
      now: () => new Date('2026-11-29T00:00:00Z'),
    });
    expect(summary).toEqual({
      regions: ['us-east-1'],
      instanceTypes: 5,
      refreshedInstanceTypes: 4,
      offerings: 4,
      prices: 4,
    });
    const types = JSON.parse(await readFile(join(dir, 'instance-types.json'), 'utf8'));
    expect(types.types.map((t: InstanceTypeRecord) => t.name)).toEqual([
      'g4dn.xlarge',
      'm5.large',
      'm7i-flex.large',
      'trn1.32xlarge',
      'x1.kept',
    ]);
    expect(types.meta).toMatchObject({ note: 'seed', count: 5 });
    const pricing = JSON.parse(await readFile(join(dir, 'pricing-on-demand.json'), 'utf8'));
    expect(Object.keys(pricing.regions)).toEqual(['cn-north-1', 'us-east-1']);
    expect(pricing.regions['us-east-1']).toMatchObject({
      currency: 'USD',
      count: 4,
      generatedAt: '2026-11-29T00:00:00.000Z',
    });
    const offerings = JSON.parse(await readFile(join(dir, 'instance-type-offerings.json'), 'utf8'));

    const catalog: AwsCatalog = {
      instanceTypes: types.types,
      offerings: offerings.regions,
      pricing: pricing.regions,
    };
    const built = getAwsInstanceTypes({ region: 'us-east-1', options: { catalog } });
    const m5 = built.find((t) => t.name === 'm5.large')!;
    expect(m5.allocatable()).toMatchObject({ cpu: 1930, memory: 6903 * 1024 * 1024, pods: 29 });
    expect(m5.offerings.filter((o) => o.capacityType === 'on-demand').map((o) => o.price)).toEqual([
      0.096, 0.096,
    ]);
    const trn1 = built.find((t) => t.name === 'trn1.32xlarge')!;
    expect(trn1.capacity['aws.amazon.com/neuroncore']).toBe(32);
    expect(trn1.offerings.every((o) => !o.available)).toBe(true); // no price: unavailable
  });

  it('writes nothing when an API call fails, naming the region and API', async () => {
    await aws.close();
    aws = await startRecordedAws({ failWith: 'UnauthorizedOperation' });
    const dir = await seededDir();
    const before = await readFile(join(dir, 'instance-types.json'), 'utf8');
    await expect(
      refreshAwsCatalog({
        outDir: dir,
        regions: ['us-east-1'],
        instanceTypes: true,
        offerings: true,
        prices: false,
        ec2Client: (region) => aws.ec2(region),
        pricingClient: (region) => aws.pricing(region),
      }),
    ).rejects.toThrow(/us-east-1: DescribeInstanceTypes failed: UnauthorizedOperation/);
    expect(await readFile(join(dir, 'instance-types.json'), 'utf8')).toBe(before);
  });
});
