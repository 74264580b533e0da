/**
 * The provisioner reads a pending pod's volumes from cluster state (issue 15, item 10): a PVC
 * bound to a zonal PV, or unbound with a
 * WaitForFirstConsumer StorageClass that has allowedTopologies, puts the node claim in those
 * zones; the PVC edge cases leave the pod to the volume controllers with a FailedScheduling
 * event; an existing node takes no more CSI volumes than its CSINode allows.
 */
import type {
  CSINode,
  PersistentVolume,
  PersistentVolumeClaim,
  Pod,
  StorageClass,
} from '@karpenter-ts/api';
import { Labels } from '@karpenter-ts/api';
import { unschedulablePod } from '@karpenter-ts/scheduling/testing';
import { describe, expect, it } from 'vitest';
import {
  apply,
  provision,
  provisionNodes,
  readyNodePool,
  testEnv,
  type TestEnv,
} from './helpers.js';

const ZONE = Labels.TopologyZone;

function claim(
  name: string,
  o: { volumeName?: string; storageClass?: string; bound?: boolean; phase?: string } = {},
): PersistentVolumeClaim {
  const bound = o.bound ?? o.volumeName !== undefined;
  return {
    apiVersion: 'v1',
    kind: 'PersistentVolumeClaim',
    metadata: {
      name,
      namespace: 'default',
      ...(bound ? { annotations: { 'pv.kubernetes.io/bind-completed': 'yes' } } : {}),
    },
    spec: {
      accessModes: ['ReadWriteOnce'],
      resources: { requests: { storage: '10Gi' } },
      ...(o.volumeName ? { volumeName: o.volumeName } : {}),
      ...(o.storageClass ? { storageClassName: o.storageClass } : {}),
    },
    status: { phase: o.phase ?? (o.volumeName ? 'Bound' : 'Pending') },
  };
}

function zonalVolume(name: string, zone: string, key: string = ZONE): PersistentVolume {
  return {
    apiVersion: 'v1',
    kind: 'PersistentVolume',
    metadata: { name },
    spec: {
      capacity: { storage: '10Gi' },
      accessModes: ['ReadWriteOnce'],
      csi: { driver: 'ebs.csi.aws.com', volumeHandle: `vol-${name}` },
      nodeAffinity: {
        required: {
          nodeSelectorTerms: [{ matchExpressions: [{ key, operator: 'In', values: [zone] }] }],
        },
      },
    },
  };
}

function storageClass(
  name: string,
  binding: 'Immediate' | 'WaitForFirstConsumer',
  zones?: string[],
): StorageClass {
  return {
    apiVersion: 'storage.k8s.io/v1',
    kind: 'StorageClass',
    metadata: { name },
    provisioner: 'ebs.csi.aws.com',
    volumeBindingMode: binding,
    ...(zones
      ? { allowedTopologies: [{ matchLabelExpressions: [{ key: ZONE, values: zones }] }] }
      : {}),
  };
}

function withClaim(pod: Pod, claimName: string): Pod {
  return {
    ...pod,
    spec: {
      ...pod.spec!,
      volumes: [{ name: 'data', persistentVolumeClaim: { claimName } }],
    },
  };
}

async function store(
  env: TestEnv,
  ...objects: (PersistentVolumeClaim | PersistentVolume | StorageClass | CSINode)[]
) {
  for (const o of objects) await env.client.create(o.kind as 'PersistentVolume', o as never);
}

async function failedScheduling(env: TestEnv): Promise<string[]> {
  return env.client.events.filter((e) => e.reason === 'FailedScheduling').map((e) => e.message);
}

describe('volume topology in provisioning', () => {
  it('puts the node claim in the zone of the PV its PVC is bound to', async () => {
    const env = await testEnv();
    await store(env, zonalVolume('pv-c', 'test-zone-3'), claim('data', { volumeName: 'pv-c' }));
    await apply(
      env,
      readyNodePool(),
      withClaim(unschedulablePod({ requests: { cpu: '1' } }), 'data'),
    );
    const [nc] = await provision(env);
    const zone = nc?.spec.requirements.find((r) => r.key === ZONE);
    expect(zone).toMatchObject({ operator: 'In', values: ['test-zone-3'] });
  });

  it("reads a CSI driver's zone key as the node's zone", async () => {
    const env = await testEnv();
    await store(
      env,
      zonalVolume('pv-b', 'test-zone-2', 'topology.ebs.csi.aws.com/zone'),
      claim('data', { volumeName: 'pv-b' }),
    );
    await apply(
      env,
      readyNodePool(),
      withClaim(unschedulablePod({ requests: { cpu: '1' } }), 'data'),
    );
    const [nc] = await provision(env);
    expect(nc?.spec.requirements.find((r) => r.key === ZONE)?.values).toEqual(['test-zone-2']);
  });

  it('puts an unbound WaitForFirstConsumer PVC in the StorageClass allowedTopologies', async () => {
    const env = await testEnv();
    await store(
      env,
      storageClass('zonal', 'WaitForFirstConsumer', ['test-zone-1']),
      claim('data', { storageClass: 'zonal' }),
    );
    await apply(
      env,
      readyNodePool(),
      withClaim(unschedulablePod({ requests: { cpu: '1' } }), 'data'),
    );
    const [nc] = await provision(env);
    expect(nc?.spec.requirements.find((r) => r.key === ZONE)?.values).toEqual(['test-zone-1']);
  });

  describe('leaves the pod to the volume controllers (FailedScheduling, no node claim)', () => {
    const cases: [string, (env: TestEnv) => Promise<void>, RegExp][] = [
      ['a missing PVC', async () => {}, /persistent volume claim default\/data not found/],
      [
        'a PVC bound to a missing PV',
        async (env) => store(env, claim('data', { volumeName: 'gone' })),
        /persistent volume gone of claim default\/data not found/,
      ],
      [
        'a PVC not marked bind-completed yet',
        async (env) =>
          store(
            env,
            zonalVolume('pv', 'test-zone-1'),
            claim('data', { volumeName: 'pv', bound: false }),
          ),
        /not bound yet/,
      ],
      [
        'a Lost PVC',
        async (env) => store(env, claim('data', { volumeName: 'pv', phase: 'Lost' })),
        /is Lost/,
      ],
      [
        'an unbound PVC without a storage class',
        async (env) => store(env, claim('data')),
        /has no storage class/,
      ],
      [
        'an unbound PVC whose StorageClass is missing',
        async (env) => store(env, claim('data', { storageClass: 'nope' })),
        /storage class nope of claim default\/data not found/,
      ],
      [
        'an unbound PVC whose StorageClass binds Immediate',
        async (env) =>
          store(env, storageClass('now', 'Immediate'), claim('data', { storageClass: 'now' })),
        /Immediate binding/,
      ],
    ];
    it.each(cases)('%s', async (_, setup, reason) => {
      const env = await testEnv();
      await setup(env);
      await apply(
        env,
        readyNodePool(),
        withClaim(unschedulablePod({ requests: { cpu: '1' } }), 'data'),
      );
      expect(await provision(env)).toEqual([]);
      const messages = await failedScheduling(env);
      expect(messages).toHaveLength(1);
      expect(messages[0]).toMatch(/^Ignoring pod, volume "data": /);
      expect(messages[0]).toMatch(reason);
    });
  });

  it('an existing node takes no more CSI volumes than its CSINode allows', async () => {
    const env = await testEnv();
    await apply(env, readyNodePool(), unschedulablePod({ requests: { cpu: '100m' } }));
    const [node] = await provisionNodes(env);
    const name = node!.metadata!.name!;
    const zone = node!.metadata!.labels![ZONE]!;
    await store(env, {
      apiVersion: 'storage.k8s.io/v1',
      kind: 'CSINode',
      metadata: { name },
      spec: { drivers: [{ name: 'ebs.csi.aws.com', nodeID: name, allocatable: { count: 1 } }] },
    });
    await store(env, zonalVolume('pv-1', zone), claim('one', { volumeName: 'pv-1' }));
    await store(env, zonalVolume('pv-2', zone), claim('two', { volumeName: 'pv-2' }));
    for (const p of await env.client.list('Pod'))
      await env.client.delete('Pod', { name: p.metadata!.name!, namespace: 'default' });
    await apply(
      env,
      withClaim(unschedulablePod({ name: 'a', requests: { cpu: '100m' } }), 'one'),
      withClaim(unschedulablePod({ name: 'b', requests: { cpu: '100m' } }), 'two'),
    );
    const { results } = await env.provisioner.schedule();
    expect(results.existingNodes.map((n) => [n.name, n.pods.length])).toEqual([[name, 1]]);
    expect(results.newNodeClaims).toHaveLength(1);
  });
});
