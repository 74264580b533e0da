import { describe, expect, it } from 'vitest';
import { cli } from './support/cli.js';
import { writeManifests } from './support/manifests.js';

const ZONE_POOL = `apiVersion: karpenter.sh/v1
kind: NodePool
metadata: { name: pinned }
spec:
  template:
    spec:
      nodeClassRef: { group: karpenter.azure.com, kind: AKSNodeClass, name: default }
      requirements:
        - { key: topology.kubernetes.io/zone, operator: In, values: [eastus-9] }
`;
// Zone spread is what made the scheduler's reason blame topology spread.
const WEB = `apiVersion: apps/v1
kind: Deployment
metadata: { name: web }
spec:
  replicas: 2
  template:
    metadata: { labels: { app: web } }
    spec:
      topologySpreadConstraints:
        - maxSkew: 1
          topologyKey: topology.kubernetes.io/zone
          whenUnsatisfiable: DoNotSchedule
          labelSelector: { matchLabels: { app: web } }
      containers: [{ name: c, image: nginx, resources: { requests: { cpu: 500m } } }]
`;
// Azure's non-zonal offerings carry zone 0, as AKS labels nodes without an availability zone.
const UNOFFERED =
  'no instance type offers topology.kubernetes.io/zone In [eastus-9] (eastus has 0, eastus-1, eastus-2, eastus-3)';

describe('a NodePool pinned to a zone the region does not have', () => {
  it('explain names the requirement key, its values and the zones of the region', async () => {
    const file = await writeManifests(ZONE_POOL, WEB);
    const { code, stdout } = await cli('explain', file, '--pod', 'web', '--cloud', 'azure');
    expect(code).toBe(0);
    expect(stdout).toContain(`has labels matching the NodePool and pod requirements: ${UNOFFERED}`);
  });

  it('simulate gives that requirement as the pending reason, not topology spread alone', async () => {
    const file = await writeManifests(ZONE_POOL, WEB);
    const { code, stdout } = await cli('simulate', file, '--cloud', 'azure', '-o', 'json');
    expect(code).toBe(0);
    const report = JSON.parse(stdout) as { podErrors: { reason: string }[] };
    expect(report.podErrors).toHaveLength(2);
    for (const e of report.podErrors)
      expect(e.reason).toBe(
        `no usable NodePool: NodePool "pinned" can launch nothing: ${UNOFFERED}`,
      );
  });
});
