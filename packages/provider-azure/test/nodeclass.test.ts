import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import {
  AKS_NODE_CLASS_CRD_URL,
  defaultAKSNodeClass,
  defaultNodeClass,
  validateAKSNodeClass,
} from '../src/index.js';

function aksNodeClass(spec: Record<string, unknown>, apiVersion = 'karpenter.azure.com/v1beta1') {
  return { apiVersion, kind: 'AKSNodeClass', metadata: { name: 'test' }, spec };
}

/** Paths of the violations of a NodeClass with the given spec. */
function paths(spec: Record<string, unknown>): string[] {
  return validateAKSNodeClass(aksNodeClass(spec)).map((v) => v.path);
}

const override = (
  zone: string,
  forwardDestination: string,
  extra: Record<string, unknown> = {},
) => ({
  zone,
  queryLogging: 'Error',
  protocol: 'PreferUDP',
  forwardDestination,
  forwardPolicy: 'Sequential',
  maxConcurrent: 1000,
  cacheDuration: '1h',
  serveStaleDuration: '1h',
  serveStale: 'Immediate',
  ...extra,
});

describe('AKSNodeClass CRD', () => {
  const crd = parse(readFileSync(AKS_NODE_CLASS_CRD_URL, 'utf8'));

  it('serves v1beta1 as the storage version and v1alpha2 deprecated, with the same schema', () => {
    const [beta, alpha] = crd.spec.versions;
    expect([beta.name, beta.served, beta.storage]).toEqual(['v1beta1', true, true]);
    expect([alpha.name, alpha.served, alpha.storage, alpha.deprecated]).toEqual([
      'v1alpha2',
      true,
      false,
      true,
    ]);
    expect(alpha.schema).toEqual(beta.schema);
    expect(crd.spec.names.shortNames).toEqual(['aksnc', 'aksncs']);
    expect(crd.spec.scope).toBe('Cluster');
  });
});

describe('validateAKSNodeClass', () => {
  it('accepts the default NodeClass and a fully specified one in either version', () => {
    expect(validateAKSNodeClass(defaultNodeClass())).toEqual([]);
    const full = {
      vnetSubnetID:
        '/subscriptions/0000/resourceGroups/rg-net/providers/Microsoft.Network/virtualNetworks/vnet/subnets/nodes',
      osDiskSizeGB: 256,
      imageFamily: 'AzureLinux',
      tags: { team: 'platform' },
      kubelet: {
        imageGCHighThresholdPercent: 85,
        imageGCLowThresholdPercent: 80,
        failSwapOn: false,
        containerLogMaxFiles: 3,
      },
      maxPods: 110,
      security: { encryptionAtHost: true, trustedLaunch: { vtpm: true, secureBoot: true } },
      localDNS: {
        mode: 'Required',
        vnetDNSOverrides: [override('.', 'VnetDNS'), override('cluster.local', 'ClusterCoreDNS')],
        kubeDNSOverrides: [
          override('.', 'ClusterCoreDNS'),
          override('cluster.local', 'ClusterCoreDNS'),
        ],
      },
      gpu: { mode: 'None' },
      artifactStreaming: { enabled: true },
      linuxOSConfig: {
        swapFileSize: '1500Mi',
        transparentHugePageEnabled: 'madvise',
        sysctls: {
          netCoreRmemDefault: 262144,
          netCoreRmemMax: 16777216,
          netIPv4IPLocalPortRange: '32000 60000',
        },
      },
    };
    expect(validateAKSNodeClass(aksNodeClass(full))).toEqual([]);
    expect(validateAKSNodeClass(aksNodeClass(full, 'karpenter.azure.com/v1alpha2'))).toEqual([]);
  });

  it('applies the CRD defaults', () => {
    const defaulted = defaultAKSNodeClass(
      aksNodeClass({ kubelet: {}, gpu: {}, artifactStreaming: {} }),
    );
    expect(defaulted.spec).toEqual({
      osDiskSizeGB: 128,
      imageFamily: 'Ubuntu',
      kubelet: {
        cpuManagerPolicy: 'none',
        cpuCFSQuota: true,
        cpuCFSQuotaPeriod: '100ms',
        topologyManagerPolicy: 'none',
        containerLogMaxSize: '50Mi',
        containerLogMaxFiles: 5,
      },
      gpu: { mode: 'Driver' },
      artifactStreaming: { enabled: false },
    });
  });

  it.each([undefined, null])(
    'applies the CRD defaults to an AKSNodeClass whose spec is %s, as to an empty spec',
    (spec) => {
      const nodeClass = {
        apiVersion: 'karpenter.azure.com/v1beta1',
        kind: 'AKSNodeClass',
        metadata: { name: 'bare' },
        ...(spec === undefined ? {} : { spec }),
      };
      expect(validateAKSNodeClass(nodeClass)).toEqual([]);
      expect(defaultAKSNodeClass(nodeClass).spec).toEqual({
        osDiskSizeGB: 128,
        imageFamily: 'Ubuntu',
      });
    },
  );

  it.each([
    [{ osDiskSizeGB: 20 }, 'spec.osDiskSizeGB'],
    [{ osDiskSizeGB: 4096 }, 'spec.osDiskSizeGB'],
    [{ imageFamily: 'Windows2022' }, 'spec.imageFamily'],
    [{ maxPods: 300 }, 'spec.maxPods'],
    [
      {
        vnetSubnetID:
          '/subscriptions/0000/resourceGroups/rg/providers/Microsoft.Network/virtualNetworks/vnet',
      },
      'spec.vnetSubnetID',
    ],
    [{ fipsMode: 'On' }, 'spec.fipsMode'],
    [{ gpu: { mode: 'Auto' } }, 'spec.gpu.mode'],
    [{ kubelet: { containerLogMaxFiles: 1 } }, 'spec.kubelet.containerLogMaxFiles'],
    [{ kubelet: { cpuManagerPolicy: 'dynamic' } }, 'spec.kubelet.cpuManagerPolicy'],
    [
      { kubelet: { imageGCHighThresholdPercent: 50, imageGCLowThresholdPercent: 60 } },
      'spec.kubelet',
    ],
    [
      { linuxOSConfig: { sysctls: { vmSwappiness: 101 } } },
      'spec.linuxOSConfig.sysctls.vmSwappiness',
    ],
    [
      { linuxOSConfig: { sysctls: { netCoreWmemDefault: 300000, netCoreWmemMax: 250000 } } },
      'spec.linuxOSConfig.sysctls',
    ],
    [
      { linuxOSConfig: { sysctls: { netIPv4IPLocalPortRange: '80 60000' } } },
      'spec.linuxOSConfig.sysctls.netIPv4IPLocalPortRange',
    ],
    [
      { linuxOSConfig: { sysctls: { netIPv4IPLocalPortRange: '50000 40000' } } },
      'spec.linuxOSConfig.sysctls.netIPv4IPLocalPortRange',
    ],
    [{ linuxOSConfig: { swapFileSize: '1Gi' } }, 'spec'],
    [{ tags: { 'a<b': 'x' } }, 'spec.tags[a<b]'],
    [{ tags: { team: 'x'.repeat(300) } }, 'spec.tags.team'],
  ])('rejects %j at %s', (spec, path) => {
    expect(paths(spec)).toContain(path);
  });

  it('enforces the FIPS rules', () => {
    expect(paths({ fipsMode: 'FIPS', imageFamily: 'Ubuntu2404' })).toContain('spec');
    expect(paths({ fipsMode: 'FIPS', imageFamily: 'Ubuntu2204' })).toContain('spec');
    expect(
      paths({
        fipsMode: 'FIPS',
        imageFamily: 'Ubuntu2204',
        security: { trustedLaunch: { vtpm: true } },
      }),
    ).toEqual([]);
    expect(
      paths({
        fipsMode: 'FIPS',
        imageFamily: 'AzureLinux',
        security: { trustedLaunch: { secureBoot: true } },
      }),
    ).toContain('spec');
    expect(paths({ fipsMode: 'FIPS' })).toEqual([]);
  });

  it('enforces the local DNS override rules', () => {
    const localDNS = (
      vnet: unknown[],
      kube: unknown[] = [
        override('.', 'ClusterCoreDNS'),
        override('cluster.local', 'ClusterCoreDNS'),
      ],
    ) => ({
      localDNS: { mode: 'Preferred', vnetDNSOverrides: vnet, kubeDNSOverrides: kube },
    });
    // The zone rules are upstream's, on localDNS itself.
    expect(paths(localDNS([override('.', 'VnetDNS')]))).toContain('spec.localDNS');
    expect(
      paths(localDNS([override('.', 'VnetDNS'), override('cluster.local', 'VnetDNS')])),
    ).toContain('spec.localDNS');
    expect(
      paths(
        localDNS([override('.', 'ClusterCoreDNS'), override('cluster.local', 'ClusterCoreDNS')]),
      ),
    ).toContain('spec.localDNS');
    expect(
      paths(
        localDNS([
          override('.', 'VnetDNS', { serveStale: 'Verify', protocol: 'ForceTCP' }),
          override('cluster.local', 'ClusterCoreDNS'),
        ]),
      ),
    ).toContain('spec.localDNS.vnetDNSOverrides[0]');
    expect(
      paths(
        localDNS([
          override('.', 'VnetDNS', { cacheDuration: '1 hour' }),
          override('cluster.local', 'ClusterCoreDNS'),
        ]),
      ),
    ).toContain('spec.localDNS.vnetDNSOverrides[0].cacheDuration');
  });

  it('names the rule and gives a readable message', () => {
    const [v] = validateAKSNodeClass(aksNodeClass({ osDiskSizeGB: 20 }));
    expect(v).toMatchObject({
      kind: 'AKSNodeClass',
      name: 'test',
      path: 'spec.osDiskSizeGB',
      rule: 'minimum',
      apiServer: 'reject',
    });
    expect(v?.message).toMatch(/30/);
  });
});
