/**
 * Pods that went Pending while no controller ran (a restart, a crash, a leader change) on a real
 * control plane: the kube-scheduler marks them Unschedulable once and leaves them so, and the
 * controller's caches list them before it starts its controllers, so no watch event ever reports
 * them. A controller started afterwards must still provision them (issue 17).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connect, installCrds, karpenterCrdFiles, type KubeConnection } from '@karpenter-ts/kube';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { startController, type ControllerProcess } from './process/controller-process.js';
import { eventually, Workload } from './support.js';

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
  // 10 one-core pods: one node claim of at most 16 cores.
  workload = new Workload(api, 'pending-at-start', 10);
});

afterAll(async () => {
  try {
    if (controller !== undefined) await workload.remove();
  } finally {
    await controller?.stop();
    rmSync(stateDir, { recursive: true, force: true });
  }
});

describe('pods left pending while no controller ran', () => {
  it('a first controller readies the NodePool, then stops', async () => {
    controller = await startController('first', args());
    await workload.createPool();
    await workload.poolReady();
    await controller.stop();
    controller = undefined;
  });

  it('the kube-scheduler marks the pods created meanwhile Unschedulable', async () => {
    await workload.deploy();
    await eventually(
      `all ${workload.replicas} pods to be marked Unschedulable`,
      async () => {
        const pods = await workload.pods();
        return (
          pods.length === workload.replicas &&
          pods.every((p) =>
            p.status?.conditions?.some(
              (c) =>
                c.type === 'PodScheduled' && c.status === 'False' && c.reason === 'Unschedulable',
            ),
          )
        );
      },
      60_000,
    );
    expect(await workload.nodeClaims()).toEqual([]);
  });

  it('a controller started afterwards creates node claims for them in its first batch, and every pod binds', async () => {
    controller = await startController('restarted', args());
    // No pod changes from here on: only the controller's start-up pass can trigger provisioning.
    // The deadline is far below the kube-scheduler's 5 min retry of unschedulable pods, which
    // leaves their status as it is anyway.
    const claims = await eventually(
      'node claims for the pending pods',
      async () => {
        const claims = await workload.nodeClaims();
        return claims.length > 0 ? claims : false;
      },
      60_000,
    );
    expect(
      claims.every((c) => c.metadata.labels?.['karpenter.sh/nodepool'] === workload.name),
    ).toBe(true);
    const pods = await workload.allPodsBound(90_000);
    const nodes = new Set((await workload.nodes()).map((n) => n.metadata.name));
    expect(pods.every((p) => nodes.has(p.spec?.nodeName ?? ''))).toBe(true);
  });
});
