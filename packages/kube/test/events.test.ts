import type { KubeEvent } from '@karpenter-ts/controllers';
import { describe, expect, it } from 'vitest';
import { BuiltinResources, EventRecorder, type KubeConnection } from '../src/index.js';

interface Call {
  method: string;
  path: string;
  body: Record<string, unknown>;
}

function fakeConnection(calls: Call[], fail = false): KubeConnection {
  return {
    request: async (method: string, path: string, options: { body: Record<string, unknown> }) => {
      calls.push({ method, path, body: options.body });
      if (fail) throw new Error('connection refused');
      return {};
    },
  } as unknown as KubeConnection;
}

const event: KubeEvent = {
  involved: { kind: 'NodeClaim', name: 'default-abcde', uid: 'u1' },
  type: 'Normal',
  reason: 'Launched',
  message: 'launched Standard_D2s_v5',
};

describe('EventRecorder', () => {
  it('creates an Event once and raises its count for repeats within the window', async () => {
    const calls: Call[] = [];
    let now = Date.parse('2025-01-01T00:00:00Z');
    const recorder = new EventRecorder(fakeConnection(calls), {
      now: () => now,
      component: 'karpenter',
    });
    recorder.record(event, BuiltinResources.NodeClaim);
    now += 1000;
    recorder.record(event, BuiltinResources.NodeClaim);
    recorder.record(event, BuiltinResources.NodeClaim);
    await recorder.flush();
    expect(calls.map((c) => c.method)).toEqual(['POST', 'PATCH', 'PATCH']);
    expect(calls[0]?.path).toBe('/api/v1/namespaces/default/events');
    expect(calls[0]?.body).toMatchObject({
      involvedObject: {
        apiVersion: 'karpenter.sh/v1',
        kind: 'NodeClaim',
        name: 'default-abcde',
        uid: 'u1',
      },
      count: 1,
      firstTimestamp: '2025-01-01T00:00:00Z',
      source: { component: 'karpenter' },
    });
    const name = (calls[0]?.body.metadata as { name: string }).name;
    expect(calls[2]?.path).toBe(`/api/v1/namespaces/default/events/${name}`);
    expect(calls[2]?.body).toEqual({ count: 3, lastTimestamp: '2025-01-01T00:00:01Z' });
  });

  it('creates a new Event after the window, and for a different message', async () => {
    const calls: Call[] = [];
    let now = 0;
    const recorder = new EventRecorder(fakeConnection(calls), {
      now: () => now,
      dedupWindowMs: 60_000,
    });
    recorder.record(event, BuiltinResources.NodeClaim);
    recorder.record({ ...event, message: 'other' }, BuiltinResources.NodeClaim);
    now = 60_000;
    recorder.record(event, BuiltinResources.NodeClaim);
    await recorder.flush();
    expect(calls.map((c) => c.method)).toEqual(['POST', 'POST', 'POST']);
  });

  it('never throws to the caller and reports failed writes to onError', async () => {
    const calls: Call[] = [];
    const errors: unknown[] = [];
    const recorder = new EventRecorder(fakeConnection(calls, true), {
      onError: (e) => errors.push(e),
    });
    expect(() => recorder.record(event, BuiltinResources.NodeClaim)).not.toThrow();
    await recorder.flush();
    expect(errors).toHaveLength(1);
  });
});
