import { describe, expect, it } from 'vitest';
import {
  allAzureSkus,
  armSkuRecords,
  clusterLabelValue,
  nodeClassExclusionReasons,
  skuExclusionReasons,
  skuLabelValues,
  type AzureSku,
} from '../src/index.js';
import { nodeClass } from './builders.js';

function sku(name: string): AzureSku {
  const found = allAzureSkus().find((s) => s.name === name);
  if (!found) throw new Error(`no ${name} in the catalog`);
  return found;
}

describe('label values of the 20 ARM SKUs', () => {
  it('equal the labels the provider derives (vm-skus.json `labels`) for every SKU', () => {
    const mismatches: string[] = [];
    for (const raw of armSkuRecords()) {
      const expected = Object.fromEntries(
        Object.entries(raw.labels ?? {}).map(([k, v]) => [k, typeof v === 'string' ? [v] : [...v]]),
      );
      const got = skuLabelValues(sku(raw.name));
      if (
        JSON.stringify(Object.entries(got).sort()) !==
        JSON.stringify(Object.entries(expected).sort())
      ) {
        mismatches.push(`${raw.name}: ${JSON.stringify(got)}`);
      }
    }
    expect(mismatches).toEqual([]);
  });

  it('exclude exactly the SKUs the provider excludes, for the same reasons', () => {
    for (const raw of armSkuRecords()) {
      expect([raw.name, skuExclusionReasons(sku(raw.name))]).toEqual([
        raw.name,
        raw.providerExcludedReasons,
      ]);
    }
  });
});

describe('catalog-wide filtering', () => {
  it('drops sizes the size parser rejects, as upstream does', () => {
    expect(skuExclusionReasons(sku('Standard_D2nds_v6'))).toContain('unparseableName');
  });

  it('drops confidential, constrained and under-sized sizes', () => {
    expect(skuExclusionReasons(sku('Standard_EC8as_v5'))).toContain('confidential');
    expect(skuExclusionReasons(sku('Standard_E16-4as_v5'))).toContain('constrainedCPU');
    expect(skuExclusionReasons(sku('Standard_B2ts_v2'))).toEqual(['lessThan3.5GiB']);
    expect(skuExclusionReasons(sku('Standard_E64i_v3'))).toContain('karpenterRestrictedSize');
  });

  it('keeps an ordinary general-purpose size', () => {
    expect(skuExclusionReasons(sku('Standard_D4s_v5'))).toEqual([]);
  });
});

describe('NodeClass filtering', () => {
  it('keeps NVIDIA sizes with the default driver mode and drops AMD GPU sizes (no driver install)', () => {
    expect(nodeClassExclusionReasons(sku('Standard_NC24ads_A100_v4'), nodeClass())).toEqual([]);
    expect(nodeClassExclusionReasons(sku('Standard_ND96isr_MI300X_v5'), nodeClass())).toContain(
      'gpuDriverNotInstallable',
    );
  });

  it('allows AMD GPU sizes when gpu.mode is None', () => {
    expect(
      nodeClassExclusionReasons(
        sku('Standard_ND96isr_MI300X_v5'),
        nodeClass({ gpu: { mode: 'None' } }),
      ),
    ).toEqual([]);
  });

  it('drops GPU sizes without a driver for the image family OS', () => {
    // NC6s_v3-class K80 sizes (NCv1) have no Azure Linux driver.
    expect(
      nodeClassExclusionReasons(sku('Standard_NC6'), nodeClass({ imageFamily: 'AzureLinux' })),
    ).toContain('gpuNotSupportedByImageFamily');
    expect(
      nodeClassExclusionReasons(sku('Standard_NC6'), nodeClass({ imageFamily: 'Ubuntu2204' })),
    ).not.toContain('gpuNotSupportedByImageFamily');
  });

  it('requires encryption-at-host support when the NodeClass asks for it', () => {
    const nc = nodeClass({ security: { encryptionAtHost: true } });
    expect(nodeClassExclusionReasons(sku('Standard_D2_v3'), nc)).toEqual([
      'encryptionAtHostUnsupported',
    ]);
    expect(nodeClassExclusionReasons(sku('Standard_D2s_v3'), nc)).toEqual([]);
  });

  it('requires a trusted-launch capable Gen2 size for vTPM or secure boot', () => {
    const nc = nodeClass({ security: { trustedLaunch: { secureBoot: true } } });
    expect(nodeClassExclusionReasons(sku('Standard_D2_v3'), nc)).toEqual([
      'trustedLaunchUnsupported',
    ]);
    expect(nodeClassExclusionReasons(sku('Standard_D16plds_v5'), nc)).toEqual([
      'trustedLaunchUnsupported',
    ]);
    expect(nodeClassExclusionReasons(sku('Standard_D2s_v3'), nc)).toEqual([]);
  });

  it('needs at least 4 vCPUs when local DNS is required, or preferred and enabled in status', () => {
    expect(
      nodeClassExclusionReasons(
        sku('Standard_D2s_v3'),
        nodeClass({ localDNS: { mode: 'Required' } }),
      ),
    ).toEqual(['localDNSNeeds4vCPU']);
    expect(
      nodeClassExclusionReasons(
        sku('Standard_D4s_v3'),
        nodeClass({ localDNS: { mode: 'Required' } }),
      ),
    ).toEqual([]);
    expect(
      nodeClassExclusionReasons(
        sku('Standard_D2s_v3'),
        nodeClass({ localDNS: { mode: 'Preferred' } }, { localDNSState: 'Enabled' }),
      ),
    ).toEqual(['localDNSNeeds4vCPU']);
    expect(
      nodeClassExclusionReasons(
        sku('Standard_D2s_v3'),
        nodeClass({ localDNS: { mode: 'Preferred' } }),
      ),
    ).toEqual([]);
  });

  it('drops arm64 sizes when artifact streaming is enabled', () => {
    const nc = nodeClass({ artifactStreaming: { enabled: true } });
    expect(nodeClassExclusionReasons(sku('Standard_D16plds_v5'), nc)).toEqual([
      'artifactStreamingNoArm64',
    ]);
    expect(nodeClassExclusionReasons(sku('Standard_D16plds_v5'), nodeClass())).toEqual([]);
  });
});

describe('kubernetes.azure.com/cluster value', () => {
  it('replaces parentheses and keeps the value a valid label', () => {
    expect(clusterLabelValue('MC_rg(1)_cluster_eastus')).toBe('MC_rg-1-_cluster_eastus');
    expect(clusterLabelValue('MC_rg_cluster_')).toBe('MC_rg_cluster_z');
    expect(clusterLabelValue('a'.repeat(70))).toHaveLength(63);
  });
});
