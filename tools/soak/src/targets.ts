/**
 * What the soak runs the controller against, per provider, built from the controller e2e
 * suites' harness modules (apps/controller/test/e2e): `sim` (the controller's simulated cloud,
 * its machines in a state folder) and `azure` (the ARM emulator in this process, whose booted
 * VMs' emulated kubelets register Nodes). Each creates one NodePool, its NodeClass and a
 * namespace named `pool`, lists the cloud's machines with the node claim each belongs to, and
 * gives the controller's arguments and environment.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { connect, installCrds, karpenterCrdFiles, type KubeConnection } from '@karpenter-ts/kube';
import { AzureHarness } from '../../../apps/controller/test/e2e/azure-harness.js';
import { machinesIn, Workload } from '../../../apps/controller/test/e2e/support.js';

/** A cloud machine (sim machine, Azure VM or NIC) and the node claim its name or record names. */
export interface Machine {
  readonly kind: string;
  readonly name: string;
  readonly nodeClaim: string;
}

/** One provider's side of the soak. */
export interface SoakTarget {
  readonly provider: 'sim' | 'azure';
  readonly api: KubeConnection;
  /** Names the NodePool, NodeClass, namespace and Deployment. */
  readonly pool: string;
  /** Creates the NodePool, its NodeClass and the namespace. */
  createPool(): Promise<void>;
  /** The controller's arguments (leader election off; the process adds its ports). */
  controllerArgs(): string[];
  /** The controller's environment additions. */
  controllerEnv(): Record<string, string>;
  /** Every machine the cloud holds now. */
  machines(): Machine[];
  /** Ends what the target started (the emulator, the state folder). */
  stop(): Promise<void>;
}

const simCrd = fileURLToPath(
  new URL('../../../apps/controller/crds/karpenter.sim_simnodeclasses.yaml', import.meta.url),
);

/** The sim provider: a state folder of machines, nodes of at most 16 cores (Workload's pool). */
export async function simTarget(kubeconfig: string, pool: string): Promise<SoakTarget> {
  const api = connect({ kubeconfig });
  await installCrds(api, [...karpenterCrdFiles(), simCrd]);
  const stateDir = mkdtempSync(join(tmpdir(), 'karpenter-ts-soak-sim-state.'));
  return {
    provider: 'sim',
    api,
    pool,
    createPool: () => new Workload(api, pool, 0).createPool(),
    controllerArgs: () => [
      '--kubeconfig',
      kubeconfig,
      '--disable-leader-election',
      '--sim-state-dir',
      stateDir,
    ],
    controllerEnv: () => ({}),
    machines: () =>
      machinesIn(stateDir).map((m) => ({
        kind: 'sim machine',
        name: m.instance.nodeClaimName,
        nodeClaim: m.instance.nodeClaimName,
      })),
    async stop() {
      rmSync(stateDir, { recursive: true, force: true });
    },
  };
}

/** VM sizes of the Azure pool: 2 and 4 cores, so a few dozen one-core pods need several VMs. */
const AZURE_SIZES = ['Standard_D2s_v3', 'Standard_D4s_v3', 'Standard_D2_v5'];

/** The Azure provider on the ARM emulator (HTTPS on 127.0.0.1), a managed-identity endpoint. */
export async function azureTarget(kubeconfig: string, pool: string): Promise<SoakTarget> {
  const harness = await AzureHarness.start({
    subscription: '00000000-0000-0000-0000-00000000500a',
    nodeResourceGroup: `MC_rg_${pool}_southcentralus`,
    region: 'southcentralus',
    clusterName: pool,
    managedIdentity: true,
    kubeconfig,
  });
  const machines = (kind: string, names: string[]): Machine[] =>
    names.map((name) => ({ kind, name, nodeClaim: name.replace(/^aks-/, '') }));
  return {
    provider: 'azure',
    api: harness.api,
    pool,
    createPool: () => harness.createNodePool(pool, AZURE_SIZES, ['on-demand']),
    controllerArgs: () => harness.controllerArgs(),
    controllerEnv: () => ({ ...harness.env }),
    machines() {
      const { vms, nics } = harness.armNames();
      return [...machines('Azure VM', vms), ...machines('Azure NIC', nics)];
    },
    async stop() {
      await harness.deleteNodePool(pool);
      await harness.stop();
    },
  };
}
