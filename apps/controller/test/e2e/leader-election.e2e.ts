/**
 * Two controller replicas with leader election on a real control plane:
 * only the Lease holder runs controllers, the other waits and says so in its logs and
 * `leader_election_master_status`; when the leader is killed mid-launch (SIGKILL, so the Lease
 * is not released), the other takes the Lease once it expires and finishes the work on the
 * machines the first one launched (both replicas share the sim cloud's state directory, as
 * both would share one cloud account).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { SimMachineRecord } from '@karpenter-ts/cloudprovider';
import { connect, installCrds, karpenterCrdFiles, type KubeConnection } from '@karpenter-ts/kube';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { startController, type ControllerProcess } from './process/controller-process.js';
import { eventually, machinesIn, Workload } from './support.js';

const simCrd = new URL('../../crds/karpenter.sim_simnodeclasses.yaml', import.meta.url).pathname;
const leaseName = 'e2e-handover';
const leasePath = `/apis/coordination.k8s.io/v1/namespaces/default/leases/${leaseName}`;
/** The elector's defaults (client-go's): lease duration and retry period, seconds. */
const leaseDurationSeconds = 15;
const retryPeriodSeconds = 2;

interface Lease {
  spec?: {
    holderIdentity?: string;
    acquireTime?: string;
    renewTime?: string;
    leaseTransitions?: number;
  };
}

let api: KubeConnection;
let kubeconfig: string;
let stateDir: string;
let workload: Workload;
let leader: ControllerProcess | undefined;
let follower: ControllerProcess | undefined;

const args = () => [
  '--kubeconfig',
  kubeconfig,
  '--leader-election-namespace',
  'default',
  '--leader-election-name',
  leaseName,
  '--sim-state-dir',
  stateDir,
];

/** The identity a replica campaigns with (from its "waiting for the lease" log line). */
async function identityOf(p: ControllerProcess): Promise<string> {
  const line = await p.waitForLog(
    'waiting for the leader election lease',
    (l) => l.message === 'waiting for the leader election lease',
    10_000,
  );
  return String(line['identity']);
}

const metric = (body: string, re: RegExp) => Number(body.match(re)?.[1] ?? NaN);
const masterStatus = new RegExp(
  `^leader_election_master_status\\{name="${leaseName}"\\} (\\d+)$`,
  'm',
);

beforeAll(async () => {
  kubeconfig = inject('kubeconfig');
  api = connect({ kubeconfig });
  await installCrds(api, [...karpenterCrdFiles(), simCrd]);
  stateDir = mkdtempSync(join(process.env.TMPDIR ?? tmpdir(), 'karpenter-ts-sim-state.'));
  workload = new Workload(api, 'handover', 40);
});

afterAll(async () => {
  try {
    if (follower !== undefined) await workload.remove();
  } finally {
    await leader?.stop();
    await follower?.stop();
    rmSync(stateDir, { recursive: true, force: true });
  }
});

describe('two replicas with leader election', () => {
  let leaderIdentity = '';
  let followerIdentity = '';
  let beforeCrash: SimMachineRecord[] = [];

  it('only the Lease holder runs controllers; the other waits', async () => {
    // The first replica's cloud answers launches 60 s late, so it dies mid-launch below.
    leader = await startController('replica-1', [...args(), '--sim-create-delay', '60s']);
    leaderIdentity = await identityOf(leader);
    await eventually(
      'replica-1 to hold the Lease',
      async () =>
        (await api.request<Lease>('GET', leasePath)).spec?.holderIdentity === leaderIdentity,
      30_000,
    );
    follower = await startController('replica-2', args());
    followerIdentity = await identityOf(follower);
    expect(followerIdentity).not.toBe(leaderIdentity);
    await follower.waitForLog(
      'the leader observed',
      (l) => l.message === 'leader observed' && l['holder'] === leaderIdentity,
      10_000,
    );

    await workload.createPool();
    await workload.poolReady();
    await workload.deploy();
    const claims = await eventually(
      'every node claim to have a running machine',
      async () => {
        const claims = await workload.nodeClaims();
        const machines = new Set(machinesIn(stateDir).map((m) => m.instance.nodeClaimName));
        return claims.length >= 2 && claims.every((c) => machines.has(c.metadata.name ?? ''))
          ? claims
          : false;
      },
      60_000,
    );

    const leaderMetrics = await leader.metrics();
    const followerMetrics = await follower.metrics();
    expect(metric(leaderMetrics, masterStatus)).toBe(1);
    expect(metric(followerMetrics, masterStatus)).toBe(0);
    // The leader counted the node claims it created; the follower created none and ran no
    // controller at all.
    expect(
      metric(
        leaderMetrics,
        /^karpenter_nodeclaims_created_total\{reason="provisioning",nodepool="handover",min_values_relaxed="false"\} (\d+)$/m,
      ),
    ).toBe(claims.length);
    expect(followerMetrics).not.toMatch(/^karpenter_nodeclaims_created_total\{/m);
    expect(followerMetrics).not.toMatch(/^karpenter_cloudprovider_duration_seconds_count\{/m);
    const acted = (m?: string) =>
      m === 'controllers started' || m === 'computed new nodeclaim(s) to fit pod(s)';
    expect(leader.logs.some((l) => acted(l.message))).toBe(true);
    expect(follower.logs.some((l) => acted(l.message))).toBe(false);
  });

  it('takes over within the lease duration when the leader is killed, and finishes the work', async () => {
    const l = leader;
    const f = follower;
    if (l === undefined || f === undefined) throw new Error('the first test did not start both');
    beforeCrash = machinesIn(stateDir);
    const lastRenew = Date.parse(
      (await api.request<Lease>('GET', leasePath)).spec?.renewTime ?? '',
    );
    await l.crash();
    leader = undefined;

    await f.waitForLog(
      'becoming leader',
      (line) => line.message === 'became leader; starting controllers',
      (leaseDurationSeconds + 4 * retryPeriodSeconds) * 1000,
    );
    const lease = await api.request<Lease>('GET', leasePath);
    expect(lease.spec?.holderIdentity).toBe(followerIdentity);
    expect(lease.spec?.leaseTransitions).toBeGreaterThanOrEqual(1);
    // The Lease changed hands only after it expired (client-go's safety contract). How soon
    // after is bounded by the wait above, not asserted to the millisecond: a loaded machine
    // delays timers, and a timed assertion would make that a failure.
    const acquired = Date.parse(lease.spec?.acquireTime ?? '');
    expect(acquired).toBeGreaterThanOrEqual(lastRenew + leaseDurationSeconds * 1000);
    expect(metric(await f.metrics(), masterStatus)).toBe(1);

    const pods = await workload.allPodsBound(90_000);
    const [claims, machines] = await eventually(
      'every node claim launched, one machine each',
      async () => {
        const claims = await workload.nodeClaims();
        const machines = machinesIn(stateDir);
        return claims.every((c) => c.status?.providerID) && claims.length === machines.length
          ? ([claims, machines] as const)
          : false;
      },
      60_000,
    );
    const names = machines.map((m) => m.instance.nodeClaimName);
    expect(new Set(names).size).toBe(names.length);
    expect(names.sort()).toEqual(claims.map((c) => c.metadata.name ?? '').sort());
    // The new leader adopted the machines the old one launched instead of launching again.
    for (const old of beforeCrash) {
      expect(machines.find((m) => m.instance.nodeClaimName === old.instance.nodeClaimName)).toEqual(
        old,
      );
    }
    const nodes = await workload.nodes();
    expect(pods.every((p) => nodes.some((n) => n.metadata.name === p.spec?.nodeName))).toBe(true);
  });
});
