/**
 * `ClusterKubeClient.start`: the wait for every cache's first list, its deadline and what the
 * deadline's error tells a user, and a shutdown (an aborted signal) during the wait.
 */
import { NotFoundError } from '@karpenter-ts/controllers';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import {
  ClusterKubeClient,
  DefaultCachedKinds,
  type KubeConnection,
  type ResourceType,
} from '../src/index.js';

/** How the fake API server answers the list of one resource (by plural). */
type ListAnswer = 'empty' | 'hang' | (() => Error);

/**
 * An in-memory API server: lists answer per resource (an empty list, never, or an error);
 * watches stay open until the informer aborts them.
 */
function fakeConnection(answers: Record<string, ListAnswer>): {
  connection: KubeConnection;
  lists: string[];
} {
  const lists: string[] = [];
  const connection = {
    request: async (_method: string, path: string) => {
      const plural = path.split('/').at(-1) ?? '';
      lists.push(plural);
      const answer = answers[plural] ?? 'empty';
      if (answer === 'hang') return new Promise(() => undefined);
      if (answer !== 'empty') throw answer();
      return { items: [], metadata: { resourceVersion: '1' } };
    },
    watch: async (
      _path: string,
      _query: unknown,
      _onEvent: unknown,
      onDone: (err: unknown) => void,
    ) => ({ abort: () => onDone(null) }),
  } as unknown as KubeConnection;
  return { connection, lists };
}

const refused = (): Error => new Error('connect ECONNREFUSED 127.0.0.1:6443');
const crdMissing = (): Error =>
  new NotFoundError('the server could not find the requested resource');

describe('ClusterKubeClient.start', () => {
  const clients: ClusterKubeClient[] = [];
  beforeEach(() => {
    vi.useFakeTimers();
  });
  afterEach(async () => {
    await Promise.all(clients.splice(0).map((c) => c.stop()));
    vi.useRealTimers();
  });

  function client(answers: Record<string, ListAnswer>, onError?: (resource: string) => void) {
    const { connection, lists } = fakeConnection(answers);
    const c = new ClusterKubeClient(connection, {
      informer: {
        minBackoffMs: 10,
        maxBackoffMs: 10,
        ...(onError !== undefined ? { onError: (_e, r: ResourceType) => onError(r.plural) } : {}),
      },
    });
    clients.push(c);
    return { client: c, lists };
  }

  it('caches every kind of the KubeClient contract by default, NodeClass kinds included', () => {
    const { client: c } = client({});
    expect(DefaultCachedKinds).toEqual([
      'Pod',
      'Node',
      'DaemonSet',
      'PodDisruptionBudget',
      'NodePool',
      'NodeClaim',
      'NodeClass',
      'LimitRange',
      'PersistentVolumeClaim',
      'PersistentVolume',
      'StorageClass',
      'CSINode',
    ]);
    for (const kind of DefaultCachedKinds) expect(c.informers(kind).length).toBeGreaterThan(0);
  });

  it('resolves once every cache has listed', async () => {
    const { client: c } = client({});
    await expect(c.start({ timeoutMs: 2000 })).resolves.toBeUndefined();
    expect(vi.getTimerCount()).toBe(0);
  });

  it('names a missing CRD and the last failed list when only some caches synced', async () => {
    const { client: c } = client({ nodepools: crdMissing });
    const started = c.start({ timeoutMs: 2000 });
    const outcome = started.catch((err: unknown) => err);
    await vi.advanceTimersByTimeAsync(2000);
    expect(((await outcome) as Error).message).toBe(
      'caches not synced after 2000 ms: nodepools.karpenter.sh (is the CRD installed?); ' +
        'last error (nodepools.karpenter.sh): NotFoundError: the server could not find the requested resource',
    );
  });

  // Which list fails last varies from run to run; any resource, groups with digits (k8s) too.
  it('names an unreachable API server when no cache synced, with the last error of any list', async () => {
    const answers = Object.fromEntries(
      [
        'pods',
        'nodes',
        'daemonsets',
        'poddisruptionbudgets',
        'nodepools',
        'nodeclaims',
        'limitranges',
        'persistentvolumeclaims',
        'persistentvolumes',
        'storageclasses',
        'csinodes',
      ].map((plural) => [plural, refused]),
    );
    answers['aksnodeclasses'] = refused;
    answers['ec2nodeclasses'] = refused;
    const { client: c } = client(answers);
    const outcome = c.start({ timeoutMs: 2000 }).catch((err: unknown) => err);
    await vi.advanceTimersByTimeAsync(2000);
    expect(((await outcome) as Error).message).toMatch(
      /^caches not synced after 2000 ms: pods\.core, nodes\.core, .* \(is the API server reachable\?\); last error \([a-z0-9]+\.[a-z0-9.]+\): Error: connect ECONNREFUSED 127\.0\.0\.1:6443$/,
    );
  });

  it('adds no last error when no list has failed yet', async () => {
    const { client: c } = client({ nodeclaims: 'hang' });
    // A hanging list keeps its informer's loop from ending, so this client is not stopped.
    clients.pop();
    const outcome = c.start({ timeoutMs: 2000 }).catch((err: unknown) => err);
    await vi.advanceTimersByTimeAsync(2000);
    expect(((await outcome) as Error).message).toBe(
      'caches not synced after 2000 ms: nodeclaims.karpenter.sh (is the CRD installed?)',
    );
  });

  it('still tells the caller about every failed list while it remembers the last one', async () => {
    const failures: string[] = [];
    const { client: c } = client({ pods: refused }, (resource) => failures.push(resource));
    const outcome = c.start({ timeoutMs: 2000 }).catch((err: unknown) => err);
    await vi.advanceTimersByTimeAsync(2000);
    expect(((await outcome) as Error).message).toMatch(
      /; last error \(pods\.core\): Error: connect ECONNREFUSED/,
    );
    expect(failures.length).toBeGreaterThan(1);
    expect(new Set(failures)).toEqual(new Set(['pods']));
  });

  it('rejects at once with the reason when the signal aborts during the wait, leaving no timer', async () => {
    const { client: c, lists } = client({ pods: refused });
    const shutdown = new AbortController();
    const outcome = c
      .start({ timeoutMs: 120_000, signal: shutdown.signal })
      .catch((err: unknown) => err);
    await vi.advanceTimersByTimeAsync(0);
    expect(lists).toContain('pods');
    const reason = new Error('received SIGTERM');
    shutdown.abort(reason);
    expect(await outcome).toBe(reason);
    // The informers keep running (and backing off) until stop(); then nothing is left pending.
    expect(c.informers('Pod')[0]?.hasSynced).toBe(false);
    await c.stop();
    expect(vi.getTimerCount()).toBe(0);
  });

  it('rejects with the reason of a signal already aborted, without starting the informers', async () => {
    const { client: c, lists } = client({});
    const shutdown = new AbortController();
    const reason = new Error('received SIGTERM');
    shutdown.abort(reason);
    await expect(c.start({ timeoutMs: 2000, signal: shutdown.signal })).rejects.toBe(reason);
    await vi.advanceTimersByTimeAsync(0);
    expect(lists).toEqual([]);
    expect(vi.getTimerCount()).toBe(0);
  });

  it('can be aborted without a deadline', async () => {
    const { client: c } = client({ pods: refused });
    const shutdown = new AbortController();
    const outcome = c.start({ signal: shutdown.signal }).catch((err: unknown) => err);
    shutdown.abort(new Error('stop'));
    expect(await outcome).toEqual(new Error('stop'));
    await c.stop();
    expect(vi.getTimerCount()).toBe(0);
  });
});
