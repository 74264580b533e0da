import { readFileSync } from 'node:fs';
import { parse } from 'yaml';
import { describe, expect, it } from 'vitest';
import { karpenterCrdFiles } from '../../src/index.js';
import { clusterConnection, installAllCrds, providerCrdFiles } from './cluster.js';

interface Crd {
  metadata: { name: string };
  spec: {
    group: string;
    names: { plural: string };
    versions: { name: string; served: boolean; storage: boolean; schema?: unknown }[];
  };
  status?: { acceptedNames?: { plural?: string }; conditions?: { type: string; status: string }[] };
}

describe('installing CRDs on a real API server', () => {
  const connection = clusterConnection();
  const files = [...karpenterCrdFiles(), ...providerCrdFiles];

  it('installs the karpenter.sh, AKSNodeClass and EC2NodeClass CRDs unchanged and waits until Established', async () => {
    const names = await installAllCrds(connection);
    expect(names.sort()).toEqual([
      'aksnodeclasses.karpenter.azure.com',
      'ec2nodeclasses.karpenter.k8s.aws',
      'nodeclaims.karpenter.sh',
      'nodeoverlays.karpenter.sh',
      'nodepools.karpenter.sh',
    ]);
    for (const file of files) {
      const shipped = parse(readFileSync(file, 'utf8')) as Crd;
      const stored = await connection.request<Crd>(
        'GET',
        `/apis/apiextensions.k8s.io/v1/customresourcedefinitions/${shipped.metadata.name}`,
      );
      expect(stored.status?.conditions).toContainEqual(
        expect.objectContaining({ type: 'Established', status: 'True' }),
      );
      expect(stored.status?.acceptedNames?.plural).toBe(shipped.spec.names.plural);
      // The server stores each version's schema exactly as shipped (nothing dropped or rewritten).
      for (const version of shipped.spec.versions) {
        const served = stored.spec.versions.find((v) => v.name === version.name);
        expect(served?.served).toBe(version.served);
        expect(served?.storage).toBe(version.storage);
        expect(served?.schema).toEqual(version.schema);
      }
    }
  });

  it('serves every version of each installed CRD in discovery', async () => {
    await installAllCrds(connection);
    for (const file of files) {
      const shipped = parse(readFileSync(file, 'utf8')) as Crd;
      for (const version of shipped.spec.versions.filter((v) => v.served)) {
        const list = await connection.request<{ resources: { name: string }[] }>(
          'GET',
          `/apis/${shipped.spec.group}/${version.name}`,
        );
        expect(list.resources.map((r) => r.name)).toContain(shipped.spec.names.plural);
      }
    }
  });

  it('applies again without error (server-side apply is idempotent)', async () => {
    await expect(installAllCrds(connection)).resolves.toHaveLength(5);
  });
});
