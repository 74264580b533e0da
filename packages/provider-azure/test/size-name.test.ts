import { describe, expect, it } from 'vitest';
import { parseVMSizeName } from '../src/index.js';
import { dataFile } from './builders.js';

interface KnownSku {
  name: string;
  parseable: boolean;
  family: string;
  subfamily?: string;
  series: string;
  version: string;
  additiveFeatures: string;
  acceleratorType?: string;
  promo: boolean;
  nameCPUs: number;
  constrainedCPUs?: number;
}

describe('parseVMSizeName', () => {
  const known = dataFile<{ skus: KnownSku[] }>('known-skus.json').skus;

  it('agrees with the upstream parser on all 1502 known AKS size names', () => {
    const mismatches: string[] = [];
    for (const k of known) {
      const parsed = parseVMSizeName(k.name);
      if (!k.parseable) {
        if (parsed) mismatches.push(`${k.name}: parsed but upstream cannot`);
        continue;
      }
      const expected = {
        family: k.family,
        subfamily: k.subfamily,
        series: k.series,
        version: k.version,
        additiveFeatures: k.additiveFeatures,
        acceleratorType: k.acceleratorType,
        promo: k.promo,
        nameCPUs: k.nameCPUs,
        constrainedCPUs: k.constrainedCPUs,
      };
      const got = parsed && {
        family: parsed.family,
        subfamily: parsed.subfamily,
        series: parsed.series,
        version: parsed.version,
        additiveFeatures: parsed.additiveFeatures,
        acceleratorType: parsed.acceleratorType,
        promo: parsed.promo,
        nameCPUs: parsed.nameCPUs,
        constrainedCPUs: parsed.constrainedCPUs,
      };
      if (JSON.stringify(got) !== JSON.stringify(expected))
        mismatches.push(`${k.name}: ${JSON.stringify(got)}`);
    }
    expect(mismatches).toEqual([]);
    expect(known).toHaveLength(1502);
    expect(known.filter((k) => !k.parseable)).toHaveLength(72);
  });

  it('splits a GPU size name into family, subfamily, features, accelerator and version', () => {
    expect(parseVMSizeName('Standard_NC24ads_A100_v4')).toEqual({
      family: 'N',
      subfamily: 'C',
      nameCPUs: 24,
      additiveFeatures: 'ads',
      acceleratorType: 'A100',
      version: '4',
      promo: false,
      series: 'NCads_v4',
    });
  });

  it('reads the constrained vCPU count and defaults the version to 1', () => {
    expect(parseVMSizeName('Standard_M8-2ms')).toMatchObject({
      nameCPUs: 8,
      constrainedCPUs: 2,
      version: '1',
      series: 'Mms',
    });
  });

  it('rejects names outside the grammar, such as the n-feature v6 sizes', () => {
    expect(parseVMSizeName('Standard_D2nds_v6')).toBeUndefined();
    expect(parseVMSizeName('Standard_d2s_v5')).toBeUndefined();
  });
});
