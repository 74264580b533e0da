/**
 * Scheduling inputs the CLI reads from its input instead of ignoring (issue 15, items 9 and
 * 10): a namespace's LimitRange defaults in DaemonSet overhead, and volume topology (a PVC
 * bound to a zonal PV, minValues under Strict and BestEffort). Same data path as the
 * controller: the input is loaded into the in-memory cluster and the controllers' provisioner
 * decides.
 */
import { describe, expect, it } from 'vitest';
import { cli } from './support/cli.js';
import { writeManifests } from './support/manifests.js';

interface Report {
  nodeClaims: {
    instanceType: string;
    zone: string;
    requirements: { key: string; operator: string; values?: string[]; minValues?: number }[];
    annotations: Record<string, string>;
    daemonSetOverhead: Record<string, string>;
  }[];
  podErrors: { pod: string; reason: string }[];
  notes: string[];
}

async function simulate(docs: string[], ...flags: string[]): Promise<Report> {
  const file = await writeManifests(...docs);
  const { code, stdout, stderr } = await cli(
    'simulate',
    file,
    '--cloud',
    'sim',
    '-o',
    'json',
    ...flags,
  );
  expect(stderr).toBe('');
  expect(code).toBe(0);
  return JSON.parse(stdout) as Report;
}

const pool = (requirements: string) => `apiVersion: karpenter.sh/v1
kind: NodePool
metadata: { name: default }
spec:
  template:
    spec:
      nodeClassRef: { group: karpenter.sim, kind: SimNodeClass, name: default }
      requirements:
${requirements}
`;
const pod = (cpu: string, volumes = '') => `apiVersion: v1
kind: Pod
metadata: { name: app, namespace: default }
spec:
  containers: [{ name: app, image: app, resources: { requests: { cpu: "${cpu}" } } }]
${volumes}`;

describe('DaemonSet overhead with the namespace LimitRange', () => {
  const limitRange = `apiVersion: v1
kind: LimitRange
metadata: { name: defaults, namespace: kube-system }
spec:
  limits:
    - type: Container
      defaultRequest: { cpu: 500m, memory: 256Mi }
`;
  const daemonSet = `apiVersion: apps/v1
kind: DaemonSet
metadata: { name: agent, namespace: kube-system }
spec:
  selector: { matchLabels: { app: agent } }
  template:
    metadata: { labels: { app: agent } }
    spec:
      containers: [{ name: agent, image: agent }]
`;
  const types = pool(
    '        - { key: node.kubernetes.io/instance-type, operator: In, values: [c-2x-amd64-linux, c-4x-amd64-linux] }',
  );

  it('a DaemonSet without requests takes the LimitRange defaults: 1500m and 500m do not fit 1900m', async () => {
    const report = await simulate([types, limitRange, daemonSet, pod('1500m')]);
    expect(report.nodeClaims.map((c) => [c.instanceType, c.daemonSetOverhead])).toEqual([
      ['c-4x-amd64-linux', { cpu: '500m', memory: '256Mi', pods: '1' }],
    ]);
  });

  it('a DaemonSet with a pod in the input counts that pod’s admitted requests (500m/256Mi from a LimitRange then)', async () => {
    const node = `apiVersion: v1
kind: Node
metadata: { name: system, labels: { kubernetes.io/hostname: system, kubernetes.io/os: linux } }
spec: { providerID: "kind://system" }
status: { allocatable: { cpu: "4", memory: 16Gi, pods: "110" } }
`;
    const running = `apiVersion: v1
kind: Pod
metadata:
  name: agent-x1
  namespace: kube-system
  labels: { app: agent }
  ownerReferences: [{ apiVersion: apps/v1, kind: DaemonSet, name: agent, uid: uid-agent, controller: true }]
spec:
  nodeName: system
  containers: [{ name: agent, image: agent, resources: { requests: { cpu: 500m, memory: 256Mi } } }]
status: { phase: Running }
`;
    const pinned = pod('1500m').replace(
      'spec:\n',
      'spec:\n  nodeSelector: { karpenter.sh/nodepool: default }\n',
    );
    const report = await simulate([types, daemonSet, node, running, pinned]);
    expect(report.nodeClaims.map((c) => [c.instanceType, c.daemonSetOverhead])).toEqual([
      ['c-4x-amd64-linux', { cpu: '500m', memory: '256Mi', pods: '1' }],
    ]);
  });

  it('without the LimitRange the same DaemonSet adds only its pod', async () => {
    const report = await simulate([types, daemonSet, pod('1500m')]);
    expect(report.nodeClaims.map((c) => c.instanceType)).toEqual(['c-2x-amd64-linux']);
  });
});

describe('volume topology', () => {
  const pv = (zone: string) => `apiVersion: v1
kind: PersistentVolume
metadata: { name: pv-data }
spec:
  capacity: { storage: 10Gi }
  accessModes: [ReadWriteOnce]
  csi: { driver: ebs.csi.aws.com, volumeHandle: vol-1 }
  nodeAffinity:
    required:
      nodeSelectorTerms:
        - matchExpressions: [{ key: topology.kubernetes.io/zone, operator: In, values: [${zone}] }]
`;
  const pvc = `apiVersion: v1
kind: PersistentVolumeClaim
metadata: { name: data, namespace: default }
spec:
  accessModes: [ReadWriteOnce]
  resources: { requests: { storage: 10Gi } }
  volumeName: pv-data
`;
  const withData = pod(
    '1',
    '  volumes: [{ name: data, persistentVolumeClaim: { claimName: data } }]\n',
  );
  const linux = '        - { key: kubernetes.io/os, operator: In, values: [linux] }';

  it('a pod whose PVC is bound to a PV in test-zone-c gets a node in test-zone-c', async () => {
    const report = await simulate([pool(linux), pv('test-zone-c'), pvc, withData]);
    expect(report.nodeClaims.map((c) => c.zone)).toEqual(['test-zone-c']);
  });

  const twoZones = pool(
    `${linux}\n        - { key: topology.kubernetes.io/zone, operator: In, values: [test-zone-b, test-zone-c], minValues: 2 }`,
  );

  it('zone In [b, c] minValues 2 and a PV in b, Strict: the pod is pending with the minValues reason', async () => {
    const report = await simulate([twoZones, pv('test-zone-b'), pvc, withData]);
    expect(report.nodeClaims).toEqual([]);
    expect(report.podErrors).toEqual([
      {
        pod: 'default/app',
        reason: expect.stringMatching(
          /minValues for topology\.kubernetes\.io\/zone needs 2 distinct values, only 1 available/,
        ),
      },
    ]);
  });

  it('the same under BestEffort: one claim with zone In [b], minValues relaxed and annotated', async () => {
    const report = await simulate(
      [twoZones, pv('test-zone-b'), pvc, withData],
      '--min-values-policy',
      'BestEffort',
    );
    expect(report.nodeClaims).toHaveLength(1);
    const [claim] = report.nodeClaims;
    expect(claim!.zone).toBe('test-zone-b');
    expect(claim!.requirements.find((r) => r.key === 'topology.kubernetes.io/zone')).toEqual({
      key: 'topology.kubernetes.io/zone',
      operator: 'In',
      values: ['test-zone-b'],
      minValues: 1,
    });
    expect(claim!.annotations['karpenter.sh/nodeclaim-min-values-relaxed']).toBe('true');
  });

  it('a pod whose PVC is missing is left pending with the reason', async () => {
    const report = await simulate([pool(linux), withData]);
    expect(report.nodeClaims).toEqual([]);
    expect(report.podErrors[0]?.reason).toMatch(/persistent volume claim default\/data not found/);
  });

  it('a StatefulSet with volumeClaimTemplates and no StorageClass in the input is still placed, with a note', async () => {
    const sts = `apiVersion: apps/v1
kind: StatefulSet
metadata: { name: db, namespace: default }
spec:
  replicas: 2
  selector: { matchLabels: { app: db } }
  template:
    metadata: { labels: { app: db } }
    spec:
      containers: [{ name: db, image: db, resources: { requests: { cpu: 500m } } }]
  volumeClaimTemplates:
    - metadata: { name: data }
      spec: { accessModes: [ReadWriteOnce], resources: { requests: { storage: 1Gi } } }
`;
    const report = await simulate([pool(linux), sts]);
    expect(report.podErrors).toEqual([]);
    expect(report.nodeClaims.length).toBeGreaterThan(0);
    expect(report.notes.join('\n')).toMatch(/the input has no default StorageClass/);
  });
});
