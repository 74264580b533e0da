import { describe, expect, it } from 'vitest';
import {
  ConflictError,
  ManualClock,
  MemoryKubeClient,
  writeNodeClassReady,
  type NodeClassObject,
} from '../../src/index.js';

const key = { name: 'default', nodeClass: { group: 'karpenter.sim', kind: 'SimNodeClass' } };

async function stored(client: MemoryKubeClient): Promise<NodeClassObject> {
  const found = await client.get('NodeClass', key);
  if (found === undefined) throw new Error('NodeClass missing');
  return found;
}

async function setup(): Promise<{ client: MemoryKubeClient; clock: ManualClock }> {
  const clock = new ManualClock();
  const client = new MemoryKubeClient({ clock });
  await client.create('NodeClass', {
    apiVersion: 'karpenter.sim/v1',
    kind: 'SimNodeClass',
    metadata: { name: 'default' },
    status: {
      conditions: [
        { type: 'Other', status: 'True', lastTransitionTime: 'x', reason: 'R', message: '' },
      ],
    },
  });
  return { client, clock };
}

describe('writeNodeClassReady', () => {
  it('writes Ready with the observed generation and the extra fields, keeping other conditions', async () => {
    const { client, clock } = await setup();
    const current = await stored(client);
    expect(current.metadata.generation).toBeGreaterThan(0);
    const result = await writeNodeClassReady(
      client,
      clock,
      current,
      { status: 'False', reason: 'ImagesNotResolved', message: 'no FIPS image' },
      { kubernetesVersion: '1.33.0' },
      { requeueAfter: 300 },
    );
    expect(result).toEqual({ requeueAfter: 300 });
    const status = (await stored(client)).status;
    expect(status?.['kubernetesVersion']).toBe('1.33.0');
    expect(status?.conditions?.map((c) => c.type)).toEqual(['Other', 'Ready']);
    expect(status?.conditions?.[1]).toMatchObject({
      status: 'False',
      reason: 'ImagesNotResolved',
      message: 'no FIPS image',
      observedGeneration: current.metadata.generation,
      lastTransitionTime: new Date(clock.now()).toISOString(),
    });
  });

  it('moves lastTransitionTime only when the status flips', async () => {
    const { client, clock } = await setup();
    const notReady = { status: 'False', reason: 'A', message: 'a' } as const;
    await writeNodeClassReady(client, clock, await stored(client), notReady, {}, {});
    const first = new Date(clock.now()).toISOString();
    clock.advance(60);
    await writeNodeClassReady(
      client,
      clock,
      await stored(client),
      { ...notReady, reason: 'B' },
      {},
      {},
    );
    expect((await stored(client)).status?.conditions?.[1]).toMatchObject({
      reason: 'B',
      lastTransitionTime: first,
    });
    clock.advance(60);
    await writeNodeClassReady(
      client,
      clock,
      await stored(client),
      { status: 'True', reason: 'Ready', message: '' },
      {},
      {},
    );
    expect((await stored(client)).status?.conditions?.[1]?.lastTransitionTime).toBe(
      new Date(clock.now()).toISOString(),
    );
  });

  it('asks for a retry in 1 s on a conflict and gives up quietly when the NodeClass is gone', async () => {
    const { client, clock } = await setup();
    const current = await stored(client);
    const ready = { status: 'True', reason: 'Ready', message: '' } as const;
    client.failNext('updateStatus', new ConflictError('stale'));
    expect(await writeNodeClassReady(client, clock, current, ready, {}, {})).toEqual({
      requeueAfter: 1,
    });
    await client.delete('NodeClass', key);
    expect(
      await writeNodeClassReady(client, clock, current, ready, {}, { requeueAfter: 300 }),
    ).toEqual({});
  });
});
