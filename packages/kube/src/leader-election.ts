/**
 * Leader election on a `coordination.k8s.io/v1` Lease, as client-go's leaderelection package
 * does it (and upstream Karpenter through controller-runtime):
 * - a candidate takes the Lease when it does not exist, has no holder, or its holder has not
 *   renewed for `leaseDurationSeconds` *as observed by this candidate's own clock* (the
 *   holder's `renewTime` is not compared with our clock, so clock skew between machines does
 *   not matter: we time from when we last saw the record change);
 * - the leader renews every `retryPeriodSeconds`; if it cannot renew for
 *   `renewDeadlineSeconds`, it stops leading (`onStoppedLeading`);
 * - on {@link LeaderElector.stop} the leader releases the Lease (empty holder, 1 s duration),
 *   so the next candidate takes over at once instead of waiting out the lease;
 * - every write carries the Lease's resourceVersion, so two candidates never both win a round.
 */
import { ConflictError, NotFoundError, AlreadyExistsError } from '@karpenter-ts/controllers';
import type { KubeConnection } from './connection.js';
import { collectionPath, LeaseResource, objectPath } from './resources.js';
import { WakeableSleep } from './wakeable-sleep.js';

/** Timings and callbacks of a {@link LeaderElector}. */
export interface LeaderElectionOptions {
  /** Lease name, e.g. `karpenter-leader-election`. */
  readonly name: string;
  /** Lease namespace. Default `kube-system`. */
  readonly namespace?: string;
  /** This candidate's identity (unique per process, e.g. pod name + random suffix). */
  readonly identity: string;
  /** How long a lease holds without renewal, seconds. Default 15 (client-go). */
  readonly leaseDurationSeconds?: number;
  /** How long the leader keeps trying to renew before giving up, seconds. Default 10. */
  readonly renewDeadlineSeconds?: number;
  /** Pause between attempts to acquire or renew, seconds. Default 2. */
  readonly retryPeriodSeconds?: number;
  /** Current time, milliseconds since the epoch. Default `Date.now`. */
  readonly now?: () => number;
  /** Called when this candidate becomes leader. */
  readonly onStartedLeading?: () => void;
  /** Called when this candidate stops leading (lost the lease or released it). */
  readonly onStoppedLeading?: () => void;
  /** Called with the holder's identity whenever the observed holder changes (also ours). */
  readonly onNewLeader?: (identity: string) => void;
  /** Told about failed attempts (network, conflicts are normal and not reported). */
  readonly onError?: (err: unknown) => void;
}

interface Lease {
  apiVersion?: string;
  kind?: string;
  metadata: { name: string; namespace: string; resourceVersion?: string };
  spec?: {
    holderIdentity?: string;
    leaseDurationSeconds?: number;
    acquireTime?: string;
    renewTime?: string;
    leaseTransitions?: number;
  };
}

/** See the module comment. */
export class LeaderElector {
  readonly #connection: KubeConnection;
  readonly #options: Required<
    Pick<
      LeaderElectionOptions,
      'leaseDurationSeconds' | 'renewDeadlineSeconds' | 'retryPeriodSeconds' | 'namespace'
    >
  > &
    LeaderElectionOptions;
  readonly #now: () => number;
  #observed: Lease | undefined;
  #observedAtMs = 0;
  #leading = false;
  #holder = '';
  #running = false;
  #loop: Promise<void> | undefined;
  readonly #pause = new WakeableSleep();

  constructor(connection: KubeConnection, options: LeaderElectionOptions) {
    const leaseDurationSeconds = options.leaseDurationSeconds ?? 15;
    const renewDeadlineSeconds = options.renewDeadlineSeconds ?? 10;
    const retryPeriodSeconds = options.retryPeriodSeconds ?? 2;
    if (!(
      leaseDurationSeconds > renewDeadlineSeconds &&
      renewDeadlineSeconds > retryPeriodSeconds &&
      retryPeriodSeconds > 0
    )) {
      throw new Error(
        `leader election: need leaseDurationSeconds (${leaseDurationSeconds}) > renewDeadlineSeconds (${renewDeadlineSeconds}) > retryPeriodSeconds (${retryPeriodSeconds}) > 0`,
      );
    }
    this.#connection = connection;
    this.#options = {
      namespace: 'kube-system',
      ...options,
      leaseDurationSeconds,
      renewDeadlineSeconds,
      retryPeriodSeconds,
    };
    this.#now = options.now ?? Date.now;
  }

  /** True while this candidate holds the lease. */
  get isLeader(): boolean {
    return this.#leading;
  }

  /** The identity of the holder last observed (`''` when none). */
  get leader(): string {
    return this.#holder;
  }

  /** Starts campaigning in the background (idempotent). */
  start(): void {
    if (this.#running) return;
    this.#running = true;
    this.#loop = this.#run();
  }

  /** Stops campaigning; a leader releases the lease first. Resolves when done. */
  async stop(): Promise<void> {
    this.#running = false;
    this.#pause.wake();
    await this.#loop;
    if (this.#leading) {
      await this.#release();
      this.#setLeading(false);
    }
  }

  /** One attempt to acquire or renew; true when we hold the lease afterwards. */
  async tryAcquireOrRenew(): Promise<boolean> {
    const o = this.#options;
    const now = this.#now();
    const path = objectPath(LeaseResource, o.name, o.namespace);
    let current: Lease;
    try {
      current = await this.#connection.request<Lease>('GET', path);
    } catch (err) {
      if (!(err instanceof NotFoundError)) throw err;
      const created = await this.#connection
        .request<Lease>('POST', collectionPath(LeaseResource, o.namespace), {
          body: this.#lease({ metadata: { name: o.name, namespace: o.namespace } }, now, 0, now),
          retry: false,
        })
        .catch((e: unknown) => {
          if (e instanceof AlreadyExistsError) return undefined;
          throw e;
        });
      if (created === undefined) return false;
      this.#observe(created, now);
      return true;
    }
    if (JSON.stringify(current.spec) !== JSON.stringify(this.#observed?.spec))
      this.#observe(current, now);
    else this.#observed = current;
    const holder = current.spec?.holderIdentity ?? '';
    const duration = (current.spec?.leaseDurationSeconds ?? o.leaseDurationSeconds) * 1000;
    if (holder !== '' && holder !== o.identity && this.#observedAtMs + duration > now) return false;
    const transitions = (current.spec?.leaseTransitions ?? 0) + (holder === o.identity ? 0 : 1);
    const acquiredMs =
      holder === o.identity && current.spec?.acquireTime
        ? Date.parse(current.spec.acquireTime)
        : now;
    try {
      const updated = await this.#connection.request<Lease>('PUT', path, {
        body: this.#lease(current, acquiredMs, transitions, now),
        retry: false,
      });
      this.#observe(updated, now);
      return true;
    } catch (err) {
      if (err instanceof ConflictError) return false;
      throw err;
    }
  }

  async #run(): Promise<void> {
    const o = this.#options;
    while (this.#running) {
      // Acquire.
      while (this.#running && !(await this.#attempt()))
        await this.#pause.sleep(o.retryPeriodSeconds * 1000);
      if (!this.#running) return;
      this.#setLeading(true);
      // Renew until the deadline passes without success.
      let lastRenewMs = this.#now();
      while (this.#running) {
        await this.#pause.sleep(o.retryPeriodSeconds * 1000);
        if (!this.#running) return;
        if (await this.#attempt()) lastRenewMs = this.#now();
        else if (
          this.#now() - lastRenewMs >= o.renewDeadlineSeconds * 1000 ||
          (this.#holder !== '' && this.#holder !== o.identity)
        ) {
          this.#setLeading(false);
          break;
        }
      }
    }
  }

  async #attempt(): Promise<boolean> {
    try {
      return await this.tryAcquireOrRenew();
    } catch (err) {
      this.#options.onError?.(err);
      return false;
    }
  }

  async #release(): Promise<void> {
    const o = this.#options;
    try {
      const current = await this.#connection.request<Lease>(
        'GET',
        objectPath(LeaseResource, o.name, o.namespace),
      );
      if (current.spec?.holderIdentity !== o.identity) return;
      const now = this.#now();
      await this.#connection.request('PUT', objectPath(LeaseResource, o.name, o.namespace), {
        body: {
          ...current,
          spec: {
            ...current.spec,
            holderIdentity: '',
            leaseDurationSeconds: 1,
            renewTime: microTime(now),
            acquireTime: microTime(now),
          },
        },
        retry: false,
      });
    } catch (err) {
      o.onError?.(err);
    }
  }

  #lease(
    base: Pick<Lease, 'metadata'>,
    acquiredMs: number,
    transitions: number,
    now: number,
  ): Lease {
    return {
      apiVersion: 'coordination.k8s.io/v1',
      kind: 'Lease',
      metadata: base.metadata,
      spec: {
        holderIdentity: this.#options.identity,
        leaseDurationSeconds: this.#options.leaseDurationSeconds,
        acquireTime: microTime(acquiredMs),
        renewTime: microTime(now),
        leaseTransitions: transitions,
      },
    };
  }

  #observe(lease: Lease, now: number): void {
    this.#observed = lease;
    this.#observedAtMs = now;
    const holder = lease.spec?.holderIdentity ?? '';
    if (holder !== this.#holder) {
      this.#holder = holder;
      if (holder !== '') this.#options.onNewLeader?.(holder);
    }
  }

  #setLeading(leading: boolean): void {
    if (leading === this.#leading) return;
    this.#leading = leading;
    if (leading) this.#options.onStartedLeading?.();
    else this.#options.onStoppedLeading?.();
  }
}

/** A `metav1.MicroTime`: RFC 3339 with exactly six fractional digits. */
function microTime(ms: number): string {
  return new Date(ms).toISOString().replace(/\.(\d{3})Z$/, '.$1000Z');
}
