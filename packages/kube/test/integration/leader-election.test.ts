/** Leader election on a real coordination.k8s.io/v1 Lease with two candidates. */
import { afterEach, describe, expect, it } from 'vitest';
import { LeaderElector, type LeaderElectionOptions } from '../../src/index.js';
import { clusterConnection, eventually, uniqueName } from './cluster.js';

const connection = clusterConnection();

interface Lease {
  spec?: { holderIdentity?: string; leaseTransitions?: number };
}

describe('leader election on a Lease', () => {
  const electors: LeaderElector[] = [];

  function candidate(
    identity: string,
    lease: string,
    log: string[],
    timings: Partial<LeaderElectionOptions> = {},
  ): LeaderElector {
    const elector = new LeaderElector(connection, {
      name: lease,
      namespace: 'default',
      identity,
      // Seconds, not the defaults' tens, so a takeover fits in a test; wide enough that a
      // loaded machine's slow API calls (a CI run shares two cores) never cost the leader its
      // lease, which would make a second leader the test would count.
      leaseDurationSeconds: 12,
      renewDeadlineSeconds: 8,
      retryPeriodSeconds: 0.5,
      onStartedLeading: () => log.push(`${identity} leads`),
      onStoppedLeading: () => log.push(`${identity} stops`),
      ...timings,
    });
    electors.push(elector);
    return elector;
  }

  afterEach(async () => {
    await Promise.all(electors.splice(0).map((e) => e.stop()));
  });

  it('lets only one of two candidates lead, the other observes it, and takes over after release', async () => {
    const lease = uniqueName('lease');
    const log: string[] = [];
    const a = candidate('a', lease, log);
    a.start();
    await eventually('a to lead', () => a.isLeader);
    const b = candidate('b', lease, log);
    b.start();
    await eventually('b to observe a as leader', () => b.leader === 'a');
    // Several of b's retry periods pass while a renews: b never leads.
    const held = await connection.request<{ spec: { renewTime: string } }>(
      'GET',
      `/apis/coordination.k8s.io/v1/namespaces/default/leases/${lease}`,
    );
    await eventually('a to renew', async () => {
      const now = await connection.request<{ spec: { renewTime: string } }>(
        'GET',
        `/apis/coordination.k8s.io/v1/namespaces/default/leases/${lease}`,
      );
      return now.spec.renewTime !== held.spec.renewTime;
    });
    expect(b.isLeader).toBe(false);
    expect(a.isLeader).toBe(true);

    await a.stop();
    await eventually('b to take over', () => b.isLeader);
    expect(log).toEqual(['a leads', 'a stops', 'b leads']);
    const stored = await connection.request<Lease>(
      'GET',
      `/apis/coordination.k8s.io/v1/namespaces/default/leases/${lease}`,
    );
    expect(stored.spec?.holderIdentity).toBe('b');
    expect(stored.spec?.leaseTransitions).toBe(1);
  });

  it('takes over from a leader that stopped renewing once the lease expires', async () => {
    const lease = uniqueName('lease');
    const log: string[] = [];
    // A leader that dies without releasing: one successful round, no loop, no release.
    const dead = candidate('dead', lease, log);
    expect(await dead.tryAcquireOrRenew()).toBe(true);
    const b = candidate('b', lease, log);
    b.start();
    await eventually('b to observe the dead leader', () => b.leader === 'dead');
    expect(b.isLeader).toBe(false);
    await eventually('b to take over after the lease duration', () => b.isLeader);
    expect(log).toEqual(['b leads']);
  });

  it('rejects timings where the renew deadline is not shorter than the lease', () => {
    expect(() =>
      candidate('x', 'l', [], { leaseDurationSeconds: 2, renewDeadlineSeconds: 2 }),
    ).toThrow(/leaseDurationSeconds \(2\) > renewDeadlineSeconds \(2\)/);
  });
});
