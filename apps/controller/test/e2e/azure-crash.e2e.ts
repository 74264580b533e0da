/**
 * `--provider azure`, the controller killed (SIGKILL, no clean-up) while a VM PUT is in flight,
 * then restarted: the relaunch finds each NodeClaim's VM by its name `aks-<nodeclaim>` instead of
 * creating a second, no VM or NIC is left without a NodeClaim, and the real kube-scheduler binds
 * every pod. The controller runs as a child process (test/e2e/process) against the in-process
 * ARM emulator over HTTPS; it authenticates as a managed identity whose token endpoint
 * (`IDENTITY_ENDPOINT`, App Service style) is a tiny server of azure-harness.ts.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AzureHarness } from './azure-harness.js';
import { startController, type ControllerProcess } from './process/controller-process.js';
import { eventually, Workload } from './support.js';

const SUBSCRIPTION = '00000000-0000-0000-0000-0000000000e3';
const NODE_RG = 'MC_rg_e2e-crash_southcentralus';
const REGION = 'southcentralus';
const NAME = 'azure-crash';

let harness: AzureHarness;
let workload: Workload;
let controller: ControllerProcess | undefined;

/** Names of the emulator's VMs and NICs in the node resource group. */
function armNames() {
  const { vms, nics } = harness.armNames();
  return { vms, nics };
}

beforeAll(async () => {
  harness = await AzureHarness.start({
    subscription: SUBSCRIPTION,
    nodeResourceGroup: NODE_RG,
    region: REGION,
    clusterName: 'e2e-crash',
    managedIdentity: true,
  });
  // Four one-core pods.
  workload = new Workload(harness.api, NAME, 4);
  await harness.createNodePool(
    NAME,
    ['Standard_D2s_v3', 'Standard_D4s_v3', 'Standard_D2_v5'],
    ['on-demand'],
  );
});

afterAll(async () => {
  const ignore = () => {};
  try {
    if (controller !== undefined) await workload.remove().catch(ignore);
  } finally {
    await controller?.stop();
    await harness?.deleteNodePool(NAME);
    await harness?.stop();
  }
});

describe('a controller killed while a VM PUT is in flight (--provider azure)', () => {
  let claimNames: string[] = [];

  it('dies with the NIC created and the VM accepted but not finished', async () => {
    // Every VM create stays InProgress while the controller polls: the window to kill in.
    harness.arm.faults.slow({ resourceType: 'virtualMachines', method: 'PUT' }, 1000);
    controller = await startController('azure-first', harness.controllerArgs(), harness.env);
    await workload.poolReady();
    await workload.deploy();
    const claims = await eventually(
      'a VM PUT in flight for every node claim',
      async () => {
        const claims = await workload.nodeClaims();
        const { vms } = armNames();
        return claims.length > 0 && claims.every((c) => vms.includes(`aks-${c.metadata.name}`))
          ? claims
          : false;
      },
      45_000,
    );
    await controller.crash();
    controller = undefined;
    harness.arm.faults.clear();

    claimNames = claims.map((c) => c.metadata.name ?? '').sort();
    for (const claim of await workload.nodeClaims())
      expect(claim.status?.providerID ?? '').toBe('');
    expect(armNames()).toEqual({
      vms: claimNames.map((n) => `aks-${n}`),
      nics: claimNames.map((n) => `aks-${n}`),
    });
    await harness.finishOperations();
  });

  it('after a restart: the VMs are found by name, none duplicated or leaked, every pod bound', async () => {
    const putsBefore = harness.arm.state.requestsTo('PUT', '/virtualMachines/').length;
    controller = await startController('azure-restarted', harness.controllerArgs(), harness.env);
    const pods = await workload.allPodsBound(45_000);
    // The Nodes booted before the restart, so one lifecycle pass launches (finds the VM),
    // registers (untaints the Node: pods bind) and only then writes the status, as upstream's
    // single status patch per reconcile: the provider IDs land just after the pods bind.
    const claims = await eventually(
      'every node claim to carry its provider ID',
      async () => {
        const claims = await workload.nodeClaims();
        return claims.every((c) => c.status?.providerID) ? claims : false;
      },
      15_000,
    );
    const nodes = await workload.nodes();
    // The same node claims, each on the VM launched before the crash: no new VM PUT.
    expect(claims.map((c) => c.metadata.name).sort()).toEqual(claimNames);
    expect(harness.arm.state.requestsTo('PUT', '/virtualMachines/').length).toBe(putsBefore);
    expect(armNames()).toEqual({
      vms: claimNames.map((n) => `aks-${n}`),
      nics: claimNames.map((n) => `aks-${n}`),
    });
    expect(nodes.map((n) => n.spec?.providerID).sort()).toEqual(
      claims.map((c) => c.status?.providerID).sort(),
    );
    expect(pods.every((p) => nodes.some((n) => n.metadata.name === p.spec?.nodeName))).toBe(true);
  });
});
