/**
 * The controller killed in the middle of a launch (SIGKILL, no clean-up) on a real control
 * plane, then restarted: the sim cloud's machines outlive the process (its state directory, as
 * a real cloud account outlives a pod), the relaunch finds each NodeClaim's machine instead of
 * creating a second, garbage collection removes the machine whose NodeClaim went away while no
 * controller ran, and the real kube-scheduler still binds every pod.
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

let api: KubeConnection;
let kubeconfig: string;
let stateDir: string;
let workload: Workload;
let controller: ControllerProcess | undefined;

const args = () => [
  '--kubeconfig',
  kubeconfig,
  '--disable-leader-election',
  '--sim-state-dir',
  stateDir,
];

beforeAll(async () => {
  kubeconfig = inject('kubeconfig');
  api = connect({ kubeconfig });
  await installCrds(api, [...karpenterCrdFiles(), simCrd]);
  stateDir = mkdtempSync(join(process.env.TMPDIR ?? tmpdir(), 'karpenter-ts-sim-state.'));
  // 40 one-core pods on nodes of at most 16 cores: three node claims.
  workload = new Workload(api, 'faults', 40);
});

afterAll(async () => {
  try {
    if (controller !== undefined) await workload.remove();
  } finally {
    await controller?.stop();
    rmSync(stateDir, { recursive: true, force: true });
  }
});

describe('a controller killed between the cloud create and the NodeClaim status write', () => {
  let beforeCrash: SimMachineRecord[] = [];
  let victim = '';

  it('dies with machines running that no NodeClaim records yet', async () => {
    // The sim cloud answers launches 60 s after the machine runs: the window to kill in.
    controller = await startController('first', [...args(), '--sim-create-delay', '60s']);
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
    await controller.crash();
    controller = undefined;

    beforeCrash = machinesIn(stateDir);
    // Launched in the cloud, but the launch result never reached the NodeClaims.
    const after = await workload.nodeClaims();
    expect(after.map((c) => c.metadata.name).sort()).toEqual(
      claims.map((c) => c.metadata.name).sort(),
    );
    for (const claim of after) {
      expect(claim.status?.providerID ?? '').toBe('');
      expect(claim.metadata.finalizers).toContain('karpenter.sh/termination');
    }
    expect(beforeCrash.map((m) => m.instance.nodeClaimName).sort()).toEqual(
      claims.map((c) => c.metadata.name).sort(),
    );

    // While no controller runs, one NodeClaim is deleted: its machine has no owner any more.
    victim = after[0]?.metadata.name ?? '';
    await api.request('DELETE', `/apis/karpenter.sh/v1/nodeclaims/${victim}`);
  });

  it('after a restart: no duplicate machine, the orphan collected, every pod bound', async () => {
    controller = await startController('restarted', args());
    const pods = await workload.allPodsBound(90_000);

    // Garbage collection runs at start; the orphan goes once its machine is 30 s old (measured
    // from its launch, so the restart does not restart the grace period).
    await eventually(
      `the machine of deleted node claim ${victim} to be garbage collected`,
      async () => !machinesIn(stateDir).some((m) => m.instance.nodeClaimName === victim),
      90_000,
    );
    const [claims, nodes, machines] = await eventually(
      'node claims, nodes and machines to agree',
      async () => {
        const claims = await workload.nodeClaims();
        const nodes = await workload.nodes();
        const machines = machinesIn(stateDir);
        const launched = claims.every((c) => c.status?.providerID);
        return launched && claims.length === nodes.length && nodes.length === machines.length
          ? ([claims, nodes, machines] as const)
          : false;
      },
      60_000,
    );

    // One machine per NodeClaim, each one recorded on its NodeClaim and running a Node.
    const names = machines.map((m) => m.instance.nodeClaimName);
    expect(new Set(names).size).toBe(names.length);
    expect(names.sort()).toEqual(claims.map((c) => c.metadata.name ?? '').sort());
    expect(claims.map((c) => c.status?.providerID).sort()).toEqual(
      machines.map((m) => m.instance.providerID).sort(),
    );
    expect(nodes.map((n) => n.spec?.providerID).sort()).toEqual(
      machines.map((m) => m.instance.providerID).sort(),
    );
    // The survivors kept the machines launched before the crash (found, not launched again).
    for (const old of beforeCrash.filter((m) => m.instance.nodeClaimName !== victim)) {
      expect(machines.find((m) => m.instance.nodeClaimName === old.instance.nodeClaimName)).toEqual(
        old,
      );
    }
    // The victim is gone everywhere; its pods moved to a new NodeClaim.
    expect(names).not.toContain(victim);
    expect(nodes.map((n) => n.metadata.name)).not.toContain(victim);
    expect(pods.every((p) => nodes.some((n) => n.metadata.name === p.spec?.nodeName))).toBe(true);

    // Garbage collection says what it removed.
    await eventually(
      `a GarbageCollected event for ${victim}`,
      async () =>
        (
          await api.request<{ items: { involvedObject?: { name?: string }; message?: string }[] }>(
            'GET',
            '/api/v1/events?fieldSelector=reason%3DGarbageCollected',
          )
        ).items.some(
          (e) => e.involvedObject?.name === victim && /no NodeClaim owns it/.test(e.message ?? ''),
        ),
      30_000,
    );
  });
});
