import { describe, expect, it } from 'vitest';
import { Requirements } from '@karpenter-ts/scheduling';
import { WellKnownLabels } from '@karpenter-ts/api';
import {
  AzureCatalog,
  AzurePricing,
  AzureWellKnownLabels,
  MISSING_PRICE,
  allAzureSkus,
  armSkuRecords,
  defaultNodeClass,
  defaultNodePool,
  getAzureInstanceTypes,
  type AzureInstanceType,
  type AzureSku,
} from '../src/index.js';
import { nodeClass } from './builders.js';

const allowUndefined = new Set([...WellKnownLabels, ...AzureWellKnownLabels]);

function eastus(spec: Parameters<typeof nodeClass>[0] = {}, options = {}): AzureInstanceType[] {
  return getAzureInstanceTypes({ region: 'eastus', nodeClass: nodeClass(spec), options });
}

function named(types: readonly AzureInstanceType[], name: string): AzureInstanceType {
  const t = types.find((i) => i.name === name);
  if (!t) throw new Error(`${name} not offered`);
  return t;
}

/** Names of the instance types whose requirements intersect the NodePool requirements and have a compatible available offering. */
function matching(
  types: readonly AzureInstanceType[],
  reqs: Parameters<typeof Requirements.fromNodeSelectorRequirements>[0],
): string[] {
  const pool = Requirements.fromNodeSelectorRequirements(reqs);
  return types
    .filter((t) => t.requirements.isCompatible(pool, allowUndefined))
    .filter((t) =>
      t.offerings.some((o) => o.available && o.requirements.isCompatible(pool, allowUndefined)),
    )
    .map((t) => t.name);
}

describe('requirements answer upstream-style NodePool requirements', () => {
  const types = eastus();

  it('selects D-family sizes with more than 3 vCPUs for sku-family In [D] and sku-cpu Gt 3', () => {
    const names = matching(types, [
      { key: 'karpenter.azure.com/sku-family', operator: 'In', values: ['D'] },
      { key: 'karpenter.azure.com/sku-cpu', operator: 'Gt', values: ['3'] },
    ]);
    expect(names).toContain('Standard_D4s_v5');
    expect(names).not.toContain('Standard_D2s_v5');
    expect(names).not.toContain('Standard_E4s_v5');
    for (const n of names) {
      const t = named(types, n);
      expect(t.sku.sizeName?.family).toBe('D');
      expect(t.sku.vCPUs).toBeGreaterThan(3);
    }
  });

  it('selects only Arm64 sizes for kubernetes.io/arch In [arm64]', () => {
    const names = matching(types, [
      { key: 'kubernetes.io/arch', operator: 'In', values: ['arm64'] },
    ]);
    expect(names).toContain('Standard_D16plds_v5');
    expect(names.length).toBeGreaterThan(20);
    expect(names.every((n) => named(types, n).sku.arch === 'arm64')).toBe(true);
  });

  it('selects NVIDIA GPU sizes by manufacturer and GPU name', () => {
    const nvidia = matching(types, [
      { key: 'karpenter.azure.com/sku-gpu-manufacturer', operator: 'In', values: ['nvidia'] },
    ]);
    expect(nvidia).toContain('Standard_NC24ads_A100_v4');
    expect(nvidia.every((n) => (named(types, n).capacity['nvidia.com/gpu'] ?? 0) > 0)).toBe(true);
    const a100 = matching(types, [
      { key: 'karpenter.azure.com/sku-gpu-name', operator: 'In', values: ['A100'] },
    ]);
    expect(a100).toContain('Standard_NC24ads_A100_v4');
    expect(a100).not.toContain('Standard_NC16as_T4_v3');
  });

  it('keeps GPU sizes out of a NodePool that asks for no GPUs', () => {
    const names = matching(types, [
      { key: 'karpenter.azure.com/sku-gpu-count', operator: 'In', values: ['0'] },
    ]);
    expect(names).not.toContain('Standard_NC24ads_A100_v4');
    expect(names).toContain('Standard_D4s_v5');
  });

  it('answers zone, capacity type and placement scope through the offerings', () => {
    expect(
      matching(types, [
        { key: 'topology.kubernetes.io/zone', operator: 'In', values: ['eastus-2'] },
      ]),
    ).toContain('Standard_D4s_v5');
    expect(
      matching(types, [
        { key: 'karpenter.azure.com/placement-scope', operator: 'In', values: ['regional'] },
      ]),
    ).toContain('Standard_D4s_v5');
    // B-series sizes cannot run as spot VMs.
    const spot = matching(types, [
      { key: 'karpenter.sh/capacity-type', operator: 'In', values: ['spot'] },
    ]);
    expect(spot).toContain('Standard_D4s_v5');
    expect(spot).not.toContain('Standard_B4ms');
  });

  it("lets the default NodePool's requirements pick on-demand amd64 D-family sizes only", () => {
    const names = matching(types, defaultNodePool().spec.template.spec.requirements);
    expect(names.length).toBeGreaterThan(100);
    for (const n of names) {
      const t = named(types, n);
      expect([t.sku.sizeName?.family, t.sku.arch]).toEqual(['D', 'amd64']);
    }
  });
});

describe('well-known labels', () => {
  it('defines every Azure and Kubernetes label on each instance type, DoesNotExist where the size has no value', () => {
    const t = named(eastus({}, { nodeResourceGroup: 'MC_rg_cluster_eastus' }), 'Standard_D4s_v5');
    for (const key of [
      ...AzureWellKnownLabels,
      'kubernetes.io/arch',
      'kubernetes.io/os',
      'node.kubernetes.io/instance-type',
    ]) {
      expect([key, t.requirements.has(key)]).toEqual([key, true]);
    }
    const labels = t.requirements.labels();
    expect(labels).toMatchObject({
      'node.kubernetes.io/instance-type': 'Standard_D4s_v5',
      'topology.kubernetes.io/region': 'eastus',
      'kubernetes.io/os': 'linux',
      'kubernetes.azure.com/os-sku': 'Ubuntu',
      'kubernetes.azure.com/cluster': 'MC_rg_cluster_eastus',
      'karpenter.azure.com/sku-series': 'Ds_v5',
    });
    expect(t.requirements.get('karpenter.azure.com/sku-gpu-name').operator()).toBe('DoesNotExist');
    expect(t.requirements.get('kubernetes.azure.com/fips_enabled').operator()).toBe('DoesNotExist');
  });

  it('marks FIPS nodes and Azure Linux nodes', () => {
    const t = named(eastus({ fipsMode: 'FIPS', imageFamily: 'AzureLinux' }), 'Standard_D4s_v5');
    expect(t.requirements.labels()).toMatchObject({
      'kubernetes.azure.com/fips_enabled': 'true',
      'kubernetes.azure.com/os-sku': 'AzureLinux',
    });
  });
});

describe('capacity, overhead and allocatable', () => {
  const bySize = new Map(allAzureSkus().map((s) => [s.name, s] as const));

  it('equals the provider figures for every usable vm-skus.json SKU in southcentralus', () => {
    const types = getAzureInstanceTypes({
      region: 'southcentralus',
      nodeClass: defaultNodeClass(),
    });
    let compared = 0;
    for (const raw of armSkuRecords()) {
      if ((raw.providerExcludedReasons ?? []).length > 0) continue;
      const t = named(types, raw.name);
      const o = raw.overhead;
      if (!o) throw new Error(`${raw.name} has no reference figures`);
      expect([raw.name, t.overhead.kubeReserved]).toEqual([
        raw.name,
        { cpu: o.kubeReservedCPUm, memory: o.kubeReservedMemoryMi * 2 ** 20 },
      ]);
      expect(t.overhead.evictionThreshold).toEqual({ memory: o.evictionMemoryMi * 2 ** 20 });
      expect(t.capacity.memory).toBe(o.capacityMemoryBytes);
      expect(t.allocatable()).toMatchObject({
        cpu: o.allocatableCPUm,
        memory: o.allocatableMemoryBytes,
      });
      compared++;
    }
    expect(compared).toBe(16);
    expect(bySize.size).toBeGreaterThan(1500);
  });

  it('reports the OS disk as ephemeral-storage in decimal GB and GPUs as extended resources', () => {
    const t = named(eastus({ osDiskSizeGB: 64 }), 'Standard_NC24ads_A100_v4');
    expect(t.capacity).toMatchObject({
      cpu: 24000,
      'ephemeral-storage': 64e9,
      'nvidia.com/gpu': 1,
    });
    const amd = getAzureInstanceTypes({
      region: 'brazilsouth',
      nodeClass: nodeClass({ gpu: { mode: 'None' } }),
    });
    expect(named(amd, 'Standard_ND96isr_MI300X_v5').capacity['amd.com/gpu']).toBe(8);
  });

  it.each([
    [{ networkPlugin: 'azure', networkPluginMode: 'overlay' }, {}, 250],
    [{ networkPlugin: 'azure', networkPluginMode: '' }, {}, 30],
    [{ networkPlugin: 'none' }, {}, 250],
    [{ networkPlugin: 'azure', networkPluginMode: '' }, { maxPods: 60 }, 60],
  ] as const)(
    'sets pods from the network plugin %j and NodeClass %j to %i',
    (options, spec, pods) => {
      expect(named(eastus(spec, options), 'Standard_D4s_v5').capacity.pods).toBe(pods);
    },
  );

  it('applies a different VM memory overhead percentage', () => {
    const t = named(eastus({}, { vmMemoryOverheadPercent: 0 }), 'Standard_D4s_v5');
    expect(t.capacity.memory).toBe(16 * 2 ** 30);
  });
});

describe('offerings and prices', () => {
  it('offers each size in zones 1-3 of a zonal region and regionally (zone 0), on-demand and spot', () => {
    const t = named(eastus(), 'Standard_D4s_v5');
    expect(t.offerings.map((o) => `${o.zone}/${o.capacityType}`)).toEqual([
      'eastus-1/on-demand',
      'eastus-1/spot',
      'eastus-2/on-demand',
      'eastus-2/spot',
      'eastus-3/on-demand',
      'eastus-3/spot',
      '0/on-demand',
      '0/spot',
    ]);
  });

  it('uses the ARM zone list where the catalog has one, and regional only in regions without zones', () => {
    const sc = named(
      getAzureInstanceTypes({ region: 'southcentralus', nodeClass: defaultNodeClass() }),
      'Standard_NC24ads_A100_v4',
    );
    expect([...new Set(sc.offerings.map((o) => o.zone))]).toEqual([
      'southcentralus-1',
      'southcentralus-3',
      '0',
    ]);
    const wc = named(
      getAzureInstanceTypes({ region: 'westcentralus', nodeClass: defaultNodeClass() }),
      'Standard_D4s_v5',
    );
    expect([...new Set(wc.offerings.map((o) => o.zone))]).toEqual(['0']);
  });

  it('prices on-demand from the table and spot equal to on-demand while no spot prices are known', () => {
    const t = named(eastus(), 'Standard_D4s_v5');
    const onDemand = t.offerings.find((o) => o.capacityType === 'on-demand');
    const spot = t.offerings.find((o) => o.capacityType === 'spot');
    expect(onDemand?.price).toBe(0.192);
    expect(spot?.price).toBe(0.192);
  });

  it('uses live spot prices when a spot table is supplied', () => {
    const pricing = new AzurePricing(
      { eastus: { Standard_D4s_v5: 0.192 } },
      { eastus: { Standard_D4s_v5: 0.04 } },
    );
    const t = named(eastus({}, { pricing }), 'Standard_D4s_v5');
    expect(t.offerings.find((o) => o.capacityType === 'spot')?.price).toBe(0.04);
  });

  it('prices sizes outside the known AKS list at 999, as upstream does', () => {
    const base = allAzureSkus().find((s) => s.name === 'Standard_D4s_v5') as AzureSku;
    const unknown: AzureSku = { ...base, knownSKU: false };
    const [t] = eastus({}, { skus: [unknown] });
    expect(t?.offerings.every((o) => o.price === MISSING_PRICE)).toBe(true);
  });

  it('marks offerings the unavailable-offerings hook reports as unavailable and drops them from the zone requirement', () => {
    const t = named(
      eastus({}, { isUnavailable: (_s: string, zone: string) => zone === 'eastus-1' }),
      'Standard_D4s_v5',
    );
    expect(t.offerings.filter((o) => !o.available).map((o) => o.zone)).toEqual([
      'eastus-1',
      'eastus-1',
    ]);
    expect(t.requirements.get('topology.kubernetes.io/zone').has('eastus-1')).toBe(false);
  });

  it('rejects an unknown region, naming the field', () => {
    expect(
      () =>
        eastus().length &&
        getAzureInstanceTypes({ region: 'moon-1', nodeClass: defaultNodeClass() }),
    ).toThrow(/region: unknown Azure region "moon-1"/);
  });
});

describe('NodeClass filters in the instance type list', () => {
  it('drops arm64 sizes with artifact streaming and small sizes with required local DNS', () => {
    expect(
      eastus({ artifactStreaming: { enabled: true } }).some((t) => t.sku.arch === 'arm64'),
    ).toBe(false);
    expect(eastus({ localDNS: { mode: 'Required' } }).some((t) => t.sku.vCPUs < 4)).toBe(false);
  });

  it('keeps only encryption-at-host capable sizes when asked', () => {
    const types = eastus({ security: { encryptionAtHost: true } });
    expect(types.every((t) => t.sku.encryptionAtHostSupported)).toBe(true);
    expect(types.map((t) => t.name)).not.toContain('Standard_D2_v3');
  });
});

describe('AzureCatalog', () => {
  it('caches per region and NodeClass parameters, ignoring tags', () => {
    const catalog = new AzureCatalog();
    const a = catalog.instanceTypes('eastus', nodeClass({ tags: { team: 'a' } }));
    const b = catalog.instanceTypes('eastus', nodeClass({ tags: { team: 'b' } }));
    expect(b).toBe(a);
    const c = catalog.instanceTypes('eastus', nodeClass({ osDiskSizeGB: 64 }));
    expect(c).not.toBe(a);
    catalog.instanceTypes('westeurope', nodeClass({ tags: { team: 'a' } }));
    expect(catalog.size).toBe(3);
    catalog.invalidate();
    expect(catalog.size).toBe(0);
  });
});
