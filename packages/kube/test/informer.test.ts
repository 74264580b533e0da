import { KubeApiError } from '@karpenter-ts/controllers';
import { afterEach, describe, expect, it } from 'vitest';
import {
  BuiltinResources,
  Informer,
  type InformerEvent,
  type KubeConnection,
  type RequestOptions,
} from '../src/index.js';

interface Obj {
  metadata: { name: string; resourceVersion: string };
}

const obj = (name: string, resourceVersion: string): Obj => ({
  metadata: { name, resourceVersion },
});

type WatchScript = (
  emit: (type: string, object: unknown) => void,
  end: (err: unknown) => void,
) => void;

/**
 * An in-memory stand-in for the API server's list and watch: lists and watches answer from
 * queues in order; a watch stays open until its script ends it or the informer aborts it.
 */
class FakeServer {
  readonly lists: (() => { items: Obj[]; resourceVersion: string })[] = [];
  readonly watches: WatchScript[] = [];
  readonly watchQueries: Record<string, unknown>[] = [];
  readonly listOptions: RequestOptions[] = [];

  connection(): KubeConnection {
    return {
      request: async (_method: string, _path: string, options: RequestOptions) => {
        this.listOptions.push(options);
        const next = this.lists.shift();
        if (next === undefined) throw new Error('unexpected list');
        const { items, resourceVersion } = next();
        return { items, metadata: { resourceVersion } };
      },
      watch: async (
        _path: string,
        query: Record<string, unknown>,
        onEvent: (t: string, o: unknown) => void,
        onDone: (e: unknown) => void,
      ) => {
        this.watchQueries.push(query);
        let done = false;
        const end = (err: unknown): void => {
          if (done) return;
          done = true;
          onDone(err);
        };
        const script = this.watches.shift();
        queueMicrotask(() => script?.(onEvent, end));
        return { abort: () => end(null) };
      },
    } as unknown as KubeConnection;
  }
}

const openForever: WatchScript = () => undefined;

describe('Informer', () => {
  const informers: Informer<Obj>[] = [];
  afterEach(async () => {
    await Promise.all(informers.splice(0).map((i) => i.stop()));
  });

  function start(
    server: FakeServer,
    options: ConstructorParameters<typeof Informer<Obj>>[2] = {},
  ): { informer: Informer<Obj>; events: string[] } {
    const informer = new Informer<Obj>(server.connection(), BuiltinResources.NodeClaim, {
      minBackoffMs: 1,
      maxBackoffMs: 2,
      ...options,
    });
    const events: string[] = [];
    informer.on((e: InformerEvent<Obj>) =>
      events.push(`${e.type} ${e.object.metadata.name}@${e.object.metadata.resourceVersion}`),
    );
    informers.push(informer);
    informer.start();
    return { informer, events };
  }

  async function until(condition: () => boolean): Promise<void> {
    while (!condition()) await new Promise((r) => setTimeout(r, 1));
  }

  it('re-watches from the last resourceVersion (bookmarks included) when the server ends a watch, without relisting', async () => {
    const server = new FakeServer();
    server.lists.push(() => ({ items: [obj('a', '5')], resourceVersion: '10' }));
    server.watches.push((emit, end) => {
      emit('ADDED', obj('b', '11'));
      emit('BOOKMARK', { metadata: { resourceVersion: '15' } });
      end(null);
    }, openForever);
    const { informer, events } = start(server, { watchTimeoutSeconds: () => 7 });
    await until(() => server.watchQueries.length === 2);
    expect(server.watchQueries.map((q) => q.resourceVersion)).toEqual(['10', '15']);
    expect(server.watchQueries[0]).toMatchObject({ allowWatchBookmarks: true, timeoutSeconds: 7 });
    expect(informer.stats.lists).toBe(1);
    expect(events).toEqual(['ADDED a@5', 'ADDED b@11']);
  });

  it('relists after a 410 Gone event and reports what changed meanwhile, deletions included', async () => {
    const server = new FakeServer();
    server.lists.push(
      () => ({ items: [obj('a', '1'), obj('b', '2')], resourceVersion: '10' }),
      () => ({ items: [obj('a', '11'), obj('c', '12')], resourceVersion: '20' }),
    );
    server.watches.push(
      (emit) => emit('ERROR', { kind: 'Status', code: 410, reason: 'Expired' }),
      openForever,
    );
    const { informer, events } = start(server);
    await until(() => informer.stats.lists === 2 && server.watchQueries.length === 2);
    expect(events).toEqual([
      'ADDED a@1',
      'ADDED b@2',
      'MODIFIED a@11',
      'ADDED c@12',
      'DELETED b@2',
    ]);
    expect(
      informer
        .list()
        .map((o) => o.metadata.name)
        .sort(),
    ).toEqual(['a', 'c']);
    expect(informer.stats.expired).toBe(1);
    expect(server.watchQueries[1]?.resourceVersion).toBe('20');
  });

  it('relists when the watch request itself is answered 410', async () => {
    const server = new FakeServer();
    server.lists.push(
      () => ({ items: [], resourceVersion: '10' }),
      () => ({ items: [obj('a', '30')], resourceVersion: '30' }),
    );
    server.watches.push(
      (_, end) => end(new KubeApiError(410, 'too old resource version')),
      openForever,
    );
    const { informer, events } = start(server);
    await until(() => informer.stats.lists === 2);
    expect(events).toEqual(['ADDED a@30']);
    expect(informer.stats.failures).toBe(0);
  });

  it('backs off and retries throttled or failing lists until the cache syncs', async () => {
    const server = new FakeServer();
    const errors: unknown[] = [];
    server.lists.push(
      () => {
        throw new KubeApiError(429, 'throttled');
      },
      () => {
        throw new KubeApiError(503, 'unavailable');
      },
      () => ({ items: [obj('a', '1')], resourceVersion: '1' }),
    );
    server.watches.push(openForever);
    const { informer } = start(server, { onError: (e) => errors.push(e) });
    await informer.synced();
    expect(informer.hasSynced).toBe(true);
    expect(errors.map((e) => (e as KubeApiError).code)).toEqual([429, 503]);
    expect(informer.stats.failures).toBe(2);
    expect(informer.get('a')?.metadata.resourceVersion).toBe('1');
  });

  it('reports every failed list with its resource at once: lists go without the connection retries, the backoff retries them', async () => {
    const server = new FakeServer();
    const reported: { err: unknown; resource: string }[] = [];
    server.lists.push(
      () => {
        throw new Error('connect ECONNREFUSED 127.0.0.1:1');
      },
      () => {
        throw new Error('connect ECONNREFUSED 127.0.0.1:1');
      },
      () => ({ items: [], resourceVersion: '1' }),
    );
    server.watches.push(openForever);
    const { informer } = start(server, {
      onError: (err, resource) => reported.push({ err, resource: resource.plural }),
    });
    await informer.synced();
    expect(reported.map((r) => [(r.err as Error).message, r.resource])).toEqual([
      ['connect ECONNREFUSED 127.0.0.1:1', 'nodeclaims'],
      ['connect ECONNREFUSED 127.0.0.1:1', 'nodeclaims'],
    ]);
    expect(server.listOptions.map((o) => o.retry)).toEqual([false, false, false]);
  });

  it('treats a non-410 ERROR event as a failure and watches again from the same resourceVersion', async () => {
    const server = new FakeServer();
    const errors: unknown[] = [];
    server.lists.push(() => ({ items: [], resourceVersion: '7' }));
    server.watches.push(
      (emit) => emit('ERROR', { kind: 'Status', code: 500, message: 'internal error' }),
      openForever,
    );
    const { informer } = start(server, { onError: (e) => errors.push(e) });
    await until(() => server.watchQueries.length === 2);
    expect((errors[0] as KubeApiError).code).toBe(500);
    expect(server.watchQueries.map((q) => q.resourceVersion)).toEqual(['7', '7']);
    expect(informer.stats.lists).toBe(1);
  });
});
