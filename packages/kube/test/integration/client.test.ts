/**
 * ClusterKubeClient against a real API server: the informer caches follow creates, updates
 * and deletes, survive the server closing their watches, writes keep the optimistic-locking
 * and finalizer semantics of the KubeClient contract, and events are deduplicated.
 */
import type { NodeClaim, NodePool } from '@karpenter-ts/api';
import {
  ConflictError,
  NotFoundError,
  TooManyRequestsError,
  type WatchEvent,
} from '@karpenter-ts/controllers';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ClusterKubeClient } from '../../src/index.js';
import { clusterConnection, eventually, installAllCrds, uniqueName } from './cluster.js';

const connection = clusterConnection();

function nodePool(name: string): NodePool {
  return {
    apiVersion: 'karpenter.sh/v1',
    kind: 'NodePool',
    metadata: { name },
    spec: {
      template: {
        spec: {
          nodeClassRef: { group: 'karpenter.azure.com', kind: 'AKSNodeClass', name: 'default' },
          requirements: [
            { key: 'karpenter.sh/capacity-type', operator: 'In', values: ['on-demand'] },
          ],
        },
      },
    },
  } as NodePool;
}

function nodeClaim(name: string): NodeClaim {
  return {
    apiVersion: 'karpenter.sh/v1',
    kind: 'NodeClaim',
    metadata: { name, labels: { 'karpenter.sh/nodepool': 'default' } },
    spec: {
      nodeClassRef: { group: 'karpenter.azure.com', kind: 'AKSNodeClass', name: 'default' },
      requirements: [
        { key: 'node.kubernetes.io/instance-type', operator: 'In', values: ['Standard_D2s_v5'] },
      ],
    },
  } as NodeClaim;
}

describe('ClusterKubeClient on a real API server', () => {
  let client: ClusterKubeClient;
  const errors: unknown[] = [];
  // A busy API server may answer 429 (priority and fairness, or a watch cache still
  // initializing after a CRD install); the informer retries those by design, so only other
  // failures count against the run. They still count in an informer's `stats.failures`, so
  // they are tallied per resource.
  const throttled = new Map<unknown, number>();
  const record = (err: unknown, resource?: unknown) => {
    if (err instanceof TooManyRequestsError)
      throttled.set(resource, (throttled.get(resource) ?? 0) + 1);
    else errors.push(err);
  };

  beforeAll(async () => {
    await installAllCrds(connection);
    client = new ClusterKubeClient(connection, {
      // The server ends every watch after 1 s, so the run exercises many watch restarts.
      informer: { watchTimeoutSeconds: () => 1, onError: record },
      events: { onError: record },
    });
    await client.start({ timeoutMs: 60_000 });
  });

  afterAll(async () => {
    await client?.stop();
  });

  it('sees a NodePool created, updated and deleted through its cache, and tells watchers', async () => {
    const name = uniqueName('pool');
    const seen: WatchEvent<'NodePool'>[] = [];
    const off = client.watch('NodePool', (e) => {
      if (e.object.metadata?.name === name) seen.push(e);
    });
    const created = await client.create('NodePool', nodePool(name));
    expect(created.metadata?.uid).toBeTruthy();
    // The server applied the CRD defaults.
    expect(created.spec.disruption?.budgets).toEqual([{ nodes: '10%' }]);
    const cached = await eventually('the cache to hold the NodePool', () =>
      client.get('NodePool', { name }),
    );
    expect(cached.metadata?.creationTimestamp).toBeInstanceOf(Date);

    await client.patch('NodePool', { name }, { metadata: { labels: { team: 'a' } } });
    await eventually(
      'the cache to see the label',
      async () => (await client.get('NodePool', { name }))?.metadata?.labels?.team === 'a',
    );
    expect(
      (await client.list('NodePool', { labels: { team: 'a' } })).map((p) => p.metadata?.name),
    ).toEqual([name]);

    await client.delete('NodePool', { name });
    await eventually(
      'the cache to drop the NodePool',
      async () => (await client.get('NodePool', { name })) === undefined,
    );
    await eventually('the DELETED event', () => seen.some((e) => e.type === 'DELETED'));
    off();
    expect(seen.map((e) => e.type)).toEqual(['ADDED', 'MODIFIED', 'DELETED']);
  });

  it('caches NodeClasses of both providers and reads them by group and kind', async () => {
    const name = uniqueName('nc');
    await client.create('NodeClass', {
      apiVersion: 'karpenter.azure.com/v1beta1',
      kind: 'AKSNodeClass',
      metadata: { name },
      spec: {},
    });
    await client.create('NodeClass', {
      apiVersion: 'karpenter.k8s.aws/v1',
      kind: 'EC2NodeClass',
      metadata: { name },
      spec: {
        role: 'KarpenterNodeRole',
        amiSelectorTerms: [{ alias: 'al2023@latest' }],
        subnetSelectorTerms: [{ tags: { 'karpenter.sh/discovery': 'c' } }],
        securityGroupSelectorTerms: [{ tags: { 'karpenter.sh/discovery': 'c' } }],
      },
    });
    const aks = await eventually('the AKSNodeClass in the cache', () =>
      client.get('NodeClass', {
        name,
        nodeClass: { group: 'karpenter.azure.com', kind: 'AKSNodeClass' },
      }),
    );
    expect(aks.kind).toBe('AKSNodeClass');
    const ec2 = await eventually('the EC2NodeClass in the cache', () =>
      client.get('NodeClass', {
        name,
        nodeClass: { group: 'karpenter.k8s.aws', kind: 'EC2NodeClass' },
      }),
    );
    expect(ec2.apiVersion).toBe('karpenter.k8s.aws/v1');
    expect(
      (await client.list('NodeClass'))
        .filter((n) => n.metadata.name === name)
        .map((n) => n.kind)
        .sort(),
    ).toEqual(['AKSNodeClass', 'EC2NodeClass']);
  });

  it('re-watches from the last resourceVersion when the server closes the watch, without relisting', async () => {
    const [informer] = client.informers('NodeClaim');
    const before = informer!.stats.watches;
    await eventually(
      'the server to close the watch twice',
      () => informer!.stats.watches >= before + 2,
    );
    const name = uniqueName('claim');
    await client.create('NodeClaim', nodeClaim(name));
    await eventually('the NodeClaim created after the restarts', () =>
      client.get('NodeClaim', { name }),
    );
    expect(informer!.stats.lists).toBe(1);
    // Watch restarts are not failures; only a retried 429 may have been counted.
    expect(informer!.stats.failures).toBe(throttled.get(informer!.resource) ?? 0);
  });

  it('raises ConflictError for a stale update, merge patch or JSON patch, and mutate retries the conflict', async () => {
    const name = uniqueName('pool');
    const created = await client.create('NodePool', nodePool(name));
    const stale = created.metadata!.resourceVersion!;
    await client.patch('NodePool', { name }, { metadata: { labels: { step: '1' } } });

    await expect(
      client.update('NodePool', { ...created, spec: { ...created.spec, weight: 5 } }),
    ).rejects.toBeInstanceOf(ConflictError);
    await expect(
      client.patch('NodePool', { name }, { spec: { weight: 5 } }, { resourceVersion: stale }),
    ).rejects.toBeInstanceOf(ConflictError);
    await expect(
      client.jsonPatch('NodePool', { name }, [{ op: 'add', path: '/spec/weight', value: 5 }], {
        resourceVersion: stale,
      }),
    ).rejects.toBeInstanceOf(ConflictError);

    let attempts = 0;
    const result = await client.mutate('NodePool', { name }, async (pool) => {
      attempts++;
      // Another writer changes the object between our read and our first write.
      if (attempts === 1)
        await client.patch('NodePool', { name }, { metadata: { labels: { other: 'writer' } } });
      pool.spec.weight = 7;
    });
    expect(attempts).toBe(2);
    expect(result.spec.weight).toBe(7);
    expect(result.metadata?.labels).toMatchObject({ step: '1', other: 'writer' });
  });

  it('removes one finalizer by JSON patch and lets a deleting object go once its last finalizer is gone', async () => {
    const name = uniqueName('claim');
    await client.create('NodeClaim', {
      ...nodeClaim(name),
      metadata: { name, finalizers: ['karpenter.sh/termination', 'example.com/hold'] },
    });
    await client.delete('NodeClaim', { name });
    const deleting = await eventually('the deletionTimestamp in the cache', async () => {
      const c = await client.get('NodeClaim', { name });
      return c?.metadata.deletionTimestamp !== undefined ? c : undefined;
    });
    expect(deleting.metadata.deletionTimestamp).toBeInstanceOf(Date);
    // Deleting an object that is already deleting changes nothing.
    await client.delete('NodeClaim', { name });
    await client.jsonPatch(
      'NodeClaim',
      { name },
      [
        { op: 'test', path: '/metadata/finalizers/1', value: 'example.com/hold' },
        { op: 'remove', path: '/metadata/finalizers/1' },
      ],
      { resourceVersion: deleting.metadata.resourceVersion! },
    );
    await client.patch('NodeClaim', { name }, { metadata: { finalizers: null } });
    await eventually(
      'the NodeClaim to be gone',
      async () => (await client.get('NodeClaim', { name })) === undefined,
    );
    await expect(client.delete('NodeClaim', { name })).rejects.toBeInstanceOf(NotFoundError);
  });

  it('writes status only through the status subresource', async () => {
    const name = uniqueName('claim');
    const created = await client.create('NodeClaim', nodeClaim(name));
    const withStatus = await client.updateStatus('NodeClaim', {
      ...created,
      metadata: { ...created.metadata, labels: { ignored: 'by-status' } },
      status: { providerID: 'azure:///subscriptions/s/vm-1', conditions: [] },
    });
    expect(withStatus.status?.providerID).toBe('azure:///subscriptions/s/vm-1');
    expect(withStatus.metadata.labels?.ignored).toBeUndefined();
    const updated = await client.update('NodeClaim', {
      ...withStatus,
      status: { providerID: 'changed' },
      metadata: { ...withStatus.metadata, labels: { a: 'b' } },
    });
    expect(updated.status?.providerID).toBe('azure:///subscriptions/s/vm-1');
    expect(updated.metadata.labels?.a).toBe('b');
    await eventually(
      'the cache to find the NodeClaim by provider ID',
      async () =>
        (await client.list('NodeClaim', { providerID: 'azure:///subscriptions/s/vm-1' })).length ===
        1,
    );
    const mutated = await client.mutateStatus('NodeClaim', { name }, (c) => {
      c.status = { ...c.status, nodeName: 'node-1' };
    });
    expect(mutated.status?.nodeName).toBe('node-1');
  });

  it('caches LimitRanges and the storage objects, with their fields as the provisioner reads them', async () => {
    const name = uniqueName('storage');
    await client.create('LimitRange', {
      apiVersion: 'v1',
      kind: 'LimitRange',
      metadata: { name, namespace: 'default' },
      spec: { limits: [{ type: 'Container', max: { cpu: '2' } }] },
    });
    await client.create('StorageClass', {
      apiVersion: 'storage.k8s.io/v1',
      kind: 'StorageClass',
      metadata: { name },
      provisioner: 'ebs.csi.aws.com',
      volumeBindingMode: 'WaitForFirstConsumer',
      allowedTopologies: [
        { matchLabelExpressions: [{ key: 'topology.kubernetes.io/zone', values: ['zone-b'] }] },
      ],
    });
    await client.create('PersistentVolume', {
      apiVersion: 'v1',
      kind: 'PersistentVolume',
      metadata: { name },
      spec: {
        capacity: { storage: '1Gi' },
        accessModes: ['ReadWriteOnce'],
        csi: { driver: 'ebs.csi.aws.com', volumeHandle: 'vol-1' },
        nodeAffinity: {
          required: {
            nodeSelectorTerms: [
              {
                matchExpressions: [
                  { key: 'topology.kubernetes.io/zone', operator: 'In', values: ['zone-c'] },
                ],
              },
            ],
          },
        },
      },
    });
    await client.create('PersistentVolumeClaim', {
      apiVersion: 'v1',
      kind: 'PersistentVolumeClaim',
      metadata: { name, namespace: 'default' },
      spec: {
        accessModes: ['ReadWriteOnce'],
        resources: { requests: { storage: '1Gi' } },
        storageClassName: name,
      },
    });
    await client.create('CSINode', {
      apiVersion: 'storage.k8s.io/v1',
      kind: 'CSINode',
      metadata: { name },
      spec: { drivers: [{ name: 'ebs.csi.aws.com', nodeID: 'i-1', allocatable: { count: 25 } }] },
    });
    // The API server stored the defaults: defaultRequest and default from max.
    const limitRange = await eventually('the LimitRange', () =>
      client.get('LimitRange', { name, namespace: 'default' }),
    );
    expect(limitRange.spec?.limits[0]?.defaultRequest).toEqual({ cpu: '2' });
    const sc = await eventually('the StorageClass', () => client.get('StorageClass', { name }));
    expect(sc.allowedTopologies?.[0]?.matchLabelExpressions?.[0]?.values).toEqual(['zone-b']);
    const pv = await eventually('the PV', () => client.get('PersistentVolume', { name }));
    expect(pv.spec?.csi?.driver).toBe('ebs.csi.aws.com');
    const pvc = await eventually('the PVC', () =>
      client.get('PersistentVolumeClaim', { name, namespace: 'default' }),
    );
    expect(pvc.spec?.storageClassName).toBe(name);
    const csiNode = await eventually('the CSINode', () => client.get('CSINode', { name }));
    expect(csiNode.spec?.drivers[0]?.allocatable?.count).toBe(25);
  });

  it('names objects from generateName', async () => {
    const created = await client.create('NodeClaim', {
      ...nodeClaim(''),
      metadata: { generateName: 'default-' },
    });
    expect(created.metadata.name).toMatch(/^default-[a-z0-9]{5}$/);
  });

  it('records a repeated event once, with its count raised', async () => {
    const name = uniqueName('pool');
    const pool = await client.create('NodePool', nodePool(name));
    for (let i = 0; i < 3; i++) {
      client.recordEvent({
        involved: { kind: 'NodePool', name, uid: pool.metadata!.uid! },
        type: 'Warning',
        reason: 'NoCompatibleInstanceTypes',
        message: 'no instance type satisfies the requirements',
      });
    }
    await client.flushEvents();
    const events = await connection.request<{
      items: { count: number; reason: string; involvedObject: { apiVersion: string } }[];
    }>('GET', '/api/v1/namespaces/default/events', {
      query: { fieldSelector: `involvedObject.name=${name}` },
    });
    expect(events.items).toHaveLength(1);
    expect(events.items[0]).toMatchObject({
      count: 3,
      reason: 'NoCompatibleInstanceTypes',
      involvedObject: { apiVersion: 'karpenter.sh/v1' },
    });
  });

  it('reported no informer or event failures other than retried 429s during the run', () => {
    expect(errors).toEqual([]);
  });
});
