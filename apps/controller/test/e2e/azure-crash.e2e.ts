/**
 * `--provider azure`, the controller killed (SIGKILL, no clean-up) while a VM PUT is in flight,
 * then restarted: the relaunch finds each NodeClaim's VM by its name `aks-<nodeclaim>` instead of
 * creating a second, no VM or NIC is left without a NodeClaim, and the real kube-scheduler binds
 * every pod. The controller runs as a child process (test/e2e/process) against the in-process
 * ARM emulator over HTTPS; it authenticates as a managed identity whose token endpoint
 * (`IDENTITY_ENDPOINT`, App Service style) is a tiny server here.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startArmEmulator, type ArmEmulator } from '@karpenter-ts/arm-emulator';
import type { NodePool } from '@karpenter-ts/api';
import { connect, installCrds, karpenterCrdFiles, type KubeConnection } from '@karpenter-ts/kube';
import { AKS_NODE_CLASS_CRD_URL } from '@karpenter-ts/provider-azure';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { EmulatedKubelets } from './azure-kubelet.js';
import { startController, type ControllerProcess } from './process/controller-process.js';
import { eventually, Workload } from './support.js';

const SUBSCRIPTION = '00000000-0000-0000-0000-0000000000e3';
const NODE_RG = 'MC_rg_e2e-crash_southcentralus';
const REGION = 'southcentralus';
const SUBNET = `/subscriptions/${SUBSCRIPTION}/resourceGroups/rg/providers/Microsoft.Network/virtualNetworks/vnet/subnets/nodes`;
const NAME = 'azure-crash';

let api: KubeConnection;
let kubeconfig: string;
let arm: ArmEmulator;
let kubelets: EmulatedKubelets;
let identity: Server;
let env: Record<string, string>;
let workload: Workload;
let controller: ControllerProcess | undefined;

const args = () => [
  '--kubeconfig',
  kubeconfig,
  '--provider',
  'azure',
  '--cluster-name',
  'e2e-crash',
  '--disable-leader-election',
];

/** Names of the emulator's VMs and NICs in the node resource group. */
function armNames() {
  return {
    vms: arm.state
      .virtualMachines(NODE_RG)
      .map((v) => v.name)
      .sort(),
    nics: arm.state
      .networkInterfaces(NODE_RG)
      .map((n) => n.name)
      .sort(),
  };
}

/**
 * Real ARM finishes an accepted operation whether or not anyone polls it; the emulator advances
 * one only when polled. With the controller dead, the test polls the VM operations to the end.
 */
async function finishOperations(): Promise<void> {
  for (const op of arm.state.operations.values()) {
    if (op.status !== 'InProgress') continue;
    op.pollsLeft = 0;
    const url = new URL(
      `/subscriptions/${SUBSCRIPTION}/providers/Microsoft.Compute/locations/${REGION}/operations/${op.id}?api-version=2024-07-01`,
      arm.url,
    );
    await new Promise<void>((resolve, reject) => {
      const req = httpsRequest(
        url,
        { ca: arm.ca, headers: { authorization: 'Bearer e2e-token' } },
        (res) => {
          res.resume();
          res.on('end', resolve);
        },
      );
      req.on('error', reject);
      req.end();
    });
  }
}

beforeAll(async () => {
  kubeconfig = inject('kubeconfig');
  api = connect({ kubeconfig });
  await installCrds(api, [...karpenterCrdFiles(), AKS_NODE_CLASS_CRD_URL.pathname]);
  kubelets = new EmulatedKubelets(api);
  arm = await startArmEmulator({ onVmBooted: kubelets.onVmBooted });
  kubelets.start(arm);
  identity = createServer((_req, res) => {
    res.setHeader('content-type', 'application/json');
    res.end(
      JSON.stringify({
        access_token: 'e2e-token',
        expires_on: String(Math.floor(Date.now() / 1000) + 3600),
        resource: 'https://management.azure.com',
        token_type: 'Bearer',
      }),
    );
  });
  await new Promise<void>((resolve) => identity.listen(0, '127.0.0.1', resolve));
  const address = identity.address();
  if (address === null || typeof address === 'string') throw new Error('no identity port');
  const caFile = join(mkdtempSync(join(tmpdir(), 'karpenter-ts-azure-crash.')), 'arm-ca.pem');
  writeFileSync(caFile, arm.ca ?? '');
  env = {
    AZURE_SUBSCRIPTION_ID: SUBSCRIPTION,
    AZURE_LOCATION: REGION,
    AZURE_NODE_RESOURCE_GROUP: NODE_RG,
    VNET_SUBNET_ID: SUBNET,
    CLUSTER_ENDPOINT: 'https://e2e-crash-dns.hcp.southcentralus.azmk8s.io:443',
    KUBELET_BOOTSTRAP_TOKEN: 'abcdef.0123456789abcdef',
    SSH_PUBLIC_KEY: 'ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIE e2e',
    ARM_ENDPOINT: arm.url,
    ARM_CA_FILE: caFile,
    AZURE_CREDENTIAL_MODE: 'managed-identity',
    IDENTITY_ENDPOINT: `http://127.0.0.1:${address.port}/msi/token`,
    IDENTITY_HEADER: 'e2e',
  };
  // Four one-core pods.
  workload = new Workload(api, NAME, 4);
  await api.request('POST', '/api/v1/namespaces', {
    body: { apiVersion: 'v1', kind: 'Namespace', metadata: { name: NAME } },
  });
  await api.request('POST', '/apis/karpenter.azure.com/v1beta1/aksnodeclasses', {
    body: {
      apiVersion: 'karpenter.azure.com/v1beta1',
      kind: 'AKSNodeClass',
      metadata: { name: NAME },
      spec: { imageFamily: 'Ubuntu', osDiskSizeGB: 64 },
    },
  });
  const pool: NodePool = {
    apiVersion: 'karpenter.sh/v1',
    kind: 'NodePool',
    metadata: { name: NAME },
    spec: {
      template: {
        spec: {
          nodeClassRef: { group: 'karpenter.azure.com', kind: 'AKSNodeClass', name: NAME },
          requirements: [
            { key: 'kubernetes.io/os', operator: 'In', values: ['linux'] },
            {
              key: 'node.kubernetes.io/instance-type',
              operator: 'In',
              values: ['Standard_D2s_v3', 'Standard_D4s_v3', 'Standard_D2_v5'],
            },
            { key: 'karpenter.sh/capacity-type', operator: 'In', values: ['on-demand'] },
          ],
        },
      },
    },
  };
  await api.request('POST', '/apis/karpenter.sh/v1/nodepools', { body: pool });
});

afterAll(async () => {
  const ignore = () => {};
  try {
    if (controller !== undefined) await workload.remove().catch(ignore);
  } finally {
    await controller?.stop();
    await api?.request('DELETE', `/apis/karpenter.sh/v1/nodepools/${NAME}`).catch(ignore);
    await api
      ?.request('DELETE', `/apis/karpenter.azure.com/v1beta1/aksnodeclasses/${NAME}`)
      .catch(ignore);
    await api?.request('DELETE', `/api/v1/namespaces/${NAME}`).catch(ignore);
    kubelets?.stop();
    identity?.close();
    await arm?.stop();
  }
});

describe('a controller killed while a VM PUT is in flight (--provider azure)', () => {
  let claimNames: string[] = [];

  it('dies with the NIC created and the VM accepted but not finished', async () => {
    // Every VM create stays InProgress while the controller polls: the window to kill in.
    arm.faults.slow({ resourceType: 'virtualMachines', method: 'PUT' }, 1000);
    controller = await startController('azure-first', args(), env);
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
    arm.faults.clear();

    claimNames = claims.map((c) => c.metadata.name ?? '').sort();
    for (const claim of await workload.nodeClaims())
      expect(claim.status?.providerID ?? '').toBe('');
    expect(armNames()).toEqual({
      vms: claimNames.map((n) => `aks-${n}`),
      nics: claimNames.map((n) => `aks-${n}`),
    });
    await finishOperations();
  });

  it('after a restart: the VMs are found by name, none duplicated or leaked, every pod bound', async () => {
    const putsBefore = arm.state.requestsTo('PUT', '/virtualMachines/').length;
    controller = await startController('azure-restarted', args(), env);
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
    expect(arm.state.requestsTo('PUT', '/virtualMachines/').length).toBe(putsBefore);
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
