import type { NodeClaim } from '@karpenter-ts/api';
import { pod } from '@karpenter-ts/scheduling/testing';
import { describe, expect, it } from 'vitest';
import {
  AlreadyExistsError,
  ConflictError,
  KubeApiError,
  ManualClock,
  MemoryKubeClient,
  NotFoundError,
  TooManyRequestsError,
} from '../src/index.js';
import { pdb, runningPod } from './helpers.js';

function claim(name?: string): NodeClaim {
  return {
    apiVersion: 'karpenter.sh/v1',
    kind: 'NodeClaim',
    metadata: name ? { name } : { generateName: 'default-' },
    spec: { requirements: [], nodeClassRef: { group: 'g', kind: 'K', name: 'n' } },
  };
}

describe('MemoryKubeClient', () => {
  it('names objects from generateName and sets uid, resourceVersion and creationTimestamp', async () => {
    const clock = new ManualClock();
    const client = new MemoryKubeClient({ clock });
    const a = await client.create('NodeClaim', claim());
    const b = await client.create('NodeClaim', claim());
    expect(a.metadata.name).toMatch(/^default-[0-9a-z]{5}$/);
    expect(b.metadata.name).not.toBe(a.metadata.name);
    expect(a.metadata.uid).toBeTruthy();
    expect(a.metadata.resourceVersion).toBeTruthy();
    expect(a.metadata.creationTimestamp).toEqual(new Date(clock.now()));
  });

  it('lists every recorded event by default, and with distinctEvents each distinct one once, at its latest recording', () => {
    const failed = (name: string, message: string) => ({
      involved: { kind: 'Pod', name, namespace: 'default' },
      type: 'Warning' as const,
      reason: 'FailedScheduling',
      message,
    });
    const record = (client: MemoryKubeClient) => {
      client.recordEvent(failed('a', 'limit exceeded'));
      client.recordEvent(failed('b', 'limit exceeded'));
      client.recordEvent(failed('a', 'no zone left'));
      client.recordEvent(failed('a', 'limit exceeded'));
    };
    const all = new MemoryKubeClient();
    record(all);
    expect(all.events.map((e) => `${e.involved.name}: ${e.message}`)).toEqual([
      'a: limit exceeded',
      'b: limit exceeded',
      'a: no zone left',
      'a: limit exceeded',
    ]);
    const distinct = new MemoryKubeClient({ distinctEvents: true });
    record(distinct);
    expect(distinct.events.map((e) => `${e.involved.name}: ${e.message}`)).toEqual([
      'b: limit exceeded',
      'a: no zone left',
      'a: limit exceeded',
    ]);
  });

  it('hands out stored objects through view without copying, frozen, and a later write does not change them', async () => {
    const client = new MemoryKubeClient();
    await client.create('NodeClaim', claim('x'));
    const [seen] = client.view('NodeClaim');
    expect(client.view('NodeClaim')[0]).toBe(seen);
    expect(() => {
      (seen as NodeClaim).metadata.labels = { changed: 'yes' };
    }).toThrow(TypeError);
    expect(() => {
      (seen as NodeClaim).spec.requirements.push({ key: 'k', operator: 'Exists' });
    }).toThrow(TypeError);
    const current = await client.get('NodeClaim', { name: 'x' });
    await client.update('NodeClaim', {
      ...current!,
      metadata: { ...current!.metadata, labels: { a: 'b' } },
    });
    expect(seen?.metadata.labels).toBeUndefined();
    expect(client.view('NodeClaim')[0]?.metadata.labels).toEqual({ a: 'b' });
    // Readers that copy (list, get) may still change their copy.
    const copy = await client.get('NodeClaim', { name: 'x' });
    copy!.metadata.labels = { mine: 'yes' };
    expect(client.view('NodeClaim')[0]?.metadata.labels).toEqual({ a: 'b' });
  });

  it("lists only the unbound pods with nodeName ''", async () => {
    const client = new MemoryKubeClient();
    await client.create('Pod', pod({ name: 'a' }));
    await client.create('Pod', pod({ name: 'b' }));
    await client.bind({ name: 'a', namespace: 'default' }, 'n1');
    const unbound = await client.list('Pod', { nodeName: '' });
    expect(unbound.map((p) => p.metadata?.name)).toEqual(['b']);
  });

  it('refuses to create an object whose name is taken', async () => {
    const client = new MemoryKubeClient();
    await client.create('NodeClaim', claim('x'));
    await expect(client.create('NodeClaim', claim('x'))).rejects.toBeInstanceOf(AlreadyExistsError);
  });

  it('raises ConflictError when updating from a stale resourceVersion', async () => {
    const client = new MemoryKubeClient();
    const first = await client.create('NodeClaim', claim('x'));
    const stale = structuredClone(first);
    first.metadata.labels = { a: '1' };
    await client.update('NodeClaim', first);
    stale.metadata.labels = { b: '2' };
    await expect(client.update('NodeClaim', stale)).rejects.toBeInstanceOf(ConflictError);
    expect((await client.get('NodeClaim', { name: 'x' }))?.metadata.labels).toEqual({ a: '1' });
  });

  it('keeps status out of update and spec out of updateStatus', async () => {
    const client = new MemoryKubeClient();
    const created = await client.create('NodeClaim', claim('x'));
    created.status = { providerID: 'ignored' };
    const updated = await client.update('NodeClaim', created);
    expect(updated.status).toBeUndefined();
    updated.status = { providerID: 'sim:///z/x' };
    updated.metadata.labels = { ignored: 'true' };
    const withStatus = await client.updateStatus('NodeClaim', updated);
    expect(withStatus.status?.providerID).toBe('sim:///z/x');
    expect(withStatus.metadata.labels).toBeUndefined();
  });

  it('holds a deleted object with finalizers until the last finalizer is removed', async () => {
    const clock = new ManualClock();
    const client = new MemoryKubeClient({ clock });
    const events: string[] = [];
    client.watch('NodeClaim', (e) => events.push(e.type));
    const c = claim('x');
    c.metadata.finalizers = ['karpenter.sh/termination'];
    await client.create('NodeClaim', c);
    await client.delete('NodeClaim', { name: 'x' });
    const deleting = await client.get('NodeClaim', { name: 'x' });
    expect(deleting?.metadata.deletionTimestamp).toEqual(new Date(clock.now()));
    await expect(
      client.update('NodeClaim', {
        ...(deleting as NodeClaim),
        metadata: {
          ...(deleting as NodeClaim).metadata,
          finalizers: ['karpenter.sh/termination', 'other'],
        },
      }),
    ).rejects.toThrow(/no new finalizers/);
    (deleting as NodeClaim).metadata.finalizers = [];
    await client.update('NodeClaim', deleting as NodeClaim);
    expect(await client.get('NodeClaim', { name: 'x' })).toBeUndefined();
    expect(events).toEqual(['ADDED', 'MODIFIED', 'DELETED']);
  });

  it('merges a patch into metadata and spec, leaves status alone, and honors its optimistic lock', async () => {
    const client = new MemoryKubeClient();
    await client.create('Node', {
      metadata: { name: 'n', labels: { a: '1', b: '2' } },
      spec: { taints: [{ key: 'x', effect: 'NoSchedule' }] },
      status: { conditions: [{ type: 'Ready', status: 'True' }] },
    });
    const patched = await client.patch(
      'Node',
      { name: 'n' },
      {
        metadata: { labels: { b: null, c: '3' } },
        spec: { taints: [] },
        status: { conditions: [] },
      },
    );
    expect(patched.metadata?.labels).toEqual({ a: '1', c: '3' });
    expect(patched.spec?.taints).toEqual([]);
    expect(patched.status?.conditions).toHaveLength(1);
    await expect(
      client.patch(
        'Node',
        { name: 'n' },
        { metadata: { labels: { d: '4' } } },
        { resourceVersion: '1' },
      ),
    ).rejects.toBeInstanceOf(ConflictError);
  });

  it('raises NotFoundError when deleting or updating a missing object', async () => {
    const client = new MemoryKubeClient();
    await expect(client.delete('Node', { name: 'nope' })).rejects.toBeInstanceOf(NotFoundError);
    await expect(client.update('NodeClaim', claim('nope'))).rejects.toBeInstanceOf(NotFoundError);
  });

  describe('Eviction API', () => {
    it('evicts a running pod whose PDB allows a disruption', async () => {
      const client = new MemoryKubeClient();
      for (let i = 0; i < 3; i++) {
        await client.create(
          'Pod',
          runningPod(pod({ name: `web-${i}`, labels: { app: 'web' } }), 'n1'),
        );
      }
      await client.create(
        'PodDisruptionBudget',
        pdb('web', { app: 'web' }, { maxUnavailable: 1, expectedPods: 3 }),
      );
      await client.evict({ name: 'web-0', namespace: 'default' });
      expect(await client.get('Pod', { name: 'web-0', namespace: 'default' })).toBeUndefined();
      await expect(client.evict({ name: 'web-1', namespace: 'default' })).rejects.toBeInstanceOf(
        TooManyRequestsError,
      );
    });

    it('answers 429 when minAvailable leaves no room', async () => {
      const client = new MemoryKubeClient();
      await client.create('Pod', runningPod(pod({ name: 'db-0', labels: { app: 'db' } }), 'n1'));
      await client.create(
        'PodDisruptionBudget',
        pdb('db', { app: 'db' }, { minAvailable: '100%' }),
      );
      const err = await client
        .evict({ name: 'db-0', namespace: 'default' })
        .catch((e: unknown) => e);
      expect(err).toBeInstanceOf(TooManyRequestsError);
      expect((err as KubeApiError).code).toBe(429);
    });

    it('answers 500 when several PDBs select the pod', async () => {
      const client = new MemoryKubeClient();
      await client.create('Pod', runningPod(pod({ name: 'p', labels: { app: 'a' } }), 'n1'));
      await client.create('PodDisruptionBudget', pdb('one', { app: 'a' }, { maxUnavailable: 1 }));
      await client.create('PodDisruptionBudget', pdb('two', { app: 'a' }, { maxUnavailable: 1 }));
      const err = await client.evict({ name: 'p', namespace: 'default' }).catch((e: unknown) => e);
      expect((err as KubeApiError).code).toBe(500);
      expect((err as Error).message).toMatch(/more than one PodDisruptionBudget/);
    });

    it('evicts a pending pod without consulting its PDB', async () => {
      const client = new MemoryKubeClient();
      await client.create('Pod', pod({ name: 'p', labels: { app: 'a' } }));
      await client.create('PodDisruptionBudget', pdb('all', { app: 'a' }, { maxUnavailable: 0 }));
      await client.evict({ name: 'p', namespace: 'default' });
      expect(await client.get('Pod', { name: 'p', namespace: 'default' })).toBeUndefined();
    });

    it('refuses an eviction whose uid precondition does not match', async () => {
      const client = new MemoryKubeClient();
      await client.create('Pod', pod({ name: 'p' }));
      await expect(
        client.evict({ name: 'p', namespace: 'default' }, { uid: 'someone-else' }),
      ).rejects.toBeInstanceOf(ConflictError);
    });
  });

  it('lists pods by node and nodes by provider ID', async () => {
    const client = new MemoryKubeClient();
    await client.create('Pod', runningPod(pod({ name: 'a' }), 'n1'));
    await client.create('Pod', runningPod(pod({ name: 'b' }), 'n2'));
    await client.create('Node', { metadata: { name: 'n1' }, spec: { providerID: 'sim:///z/n1' } });
    expect((await client.list('Pod', { nodeName: 'n1' })).map((p) => p.metadata?.name)).toEqual([
      'a',
    ]);
    expect((await client.list('Node', { providerID: 'sim:///z/n1' })).length).toBe(1);
    expect((await client.list('Node', { providerID: 'sim:///z/other' })).length).toBe(0);
  });
});
