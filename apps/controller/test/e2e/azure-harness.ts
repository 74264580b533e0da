/**
 * What the `--provider azure` e2e suites share: the real control plane with Karpenter's and the
 * AKSNodeClass CRDs, the ARM emulator (in-process, HTTPS with a throw-away CA written to a file
 * for `ARM_CA_FILE`) holding the cluster subnet (`VNET_SUBNET_ID`, which the AKSNodeClass status
 * controller looks up for `SubnetsReady` and every NIC names), optionally a disk encryption set
 * (`NODE_OSDISK_DISKENCRYPTIONSET_ID`), and whose booted VMs' emulated kubelets register Nodes;
 * optionally a managed-identity token endpoint (App Service style, `IDENTITY_ENDPOINT`) for a
 * controller run as a child process; the controller's environment and arguments, and clean-up.
 * Every token is the fixed {@link E2E_TOKEN}: the emulator checks that a bearer token is present,
 * not what it is.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  startArmEmulator,
  type ArmEmulator,
  type BootedVirtualMachine,
} from '@karpenter-ts/arm-emulator';
import type { NodePool } from '@karpenter-ts/api';
import { connect, installCrds, karpenterCrdFiles, type KubeConnection } from '@karpenter-ts/kube';
import {
  AKS_NODE_CLASS_CRD_URL,
  createArmClients,
  type AKSNodeClass,
  type ArmClientOptions,
  type ArmClients,
} from '@karpenter-ts/provider-azure';
import { inject } from 'vitest';
import { EmulatedKubelets } from './azure-kubelet.js';

/** The bearer token every ARM call of these suites carries. */
export const E2E_TOKEN = 'e2e-token';

/** A credential that always answers {@link E2E_TOKEN}, valid for an hour. */
export const fixedTokenCredential: ArmClientOptions['credential'] = {
  getToken: async () => ({ token: E2E_TOKEN, expiresOnTimestamp: Date.now() + 3600_000 }),
};

/** `KUBELET_BOOTSTRAP_TOKEN` of the node bootstrap (the emulated kubelets do not check it). */
export const KUBELET_BOOTSTRAP_TOKEN = 'abcdef.0123456789abcdef';

/** `SSH_PUBLIC_KEY` of the node bootstrap. */
export const SSH_PUBLIC_KEY =
  'ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIBkL7b4Wb0lQq3ZsQ0vVt9YrHq1u2m9yC0mF0tN2fYxZ e2e';

/** The spec of every AKSNodeClass these suites create: Ubuntu, 64 GB OS disk. */
export const nodeClassSpec: AKSNodeClass['spec'] = { imageFamily: 'Ubuntu', osDiskSizeGB: 64 };

/** The API server URL of an AKS cluster named `clusterName` in `region` (`CLUSTER_ENDPOINT`). */
export function clusterEndpoint(clusterName: string, region: string): string {
  return `https://${clusterName}-dns.hcp.${region}.azmk8s.io:443`;
}

/** Where and as whom the harness runs. */
export interface AzureHarnessOptions {
  /** `AZURE_SUBSCRIPTION_ID` (a GUID). */
  readonly subscription: string;
  /** `AZURE_NODE_RESOURCE_GROUP`, where the VMs, NICs and disks go (`MC_...`). */
  readonly nodeResourceGroup: string;
  /** `AZURE_LOCATION`, e.g. `southcentralus`. */
  readonly region: string;
  /** `--cluster-name`; also names `CLUSTER_ENDPOINT`. */
  readonly clusterName: string;
  /**
   * Serve a managed-identity token endpoint and select it in {@link AzureHarness.env}
   * (`AZURE_CREDENTIAL_MODE=managed-identity`); without it the env names no credential mode and
   * an in-process operator is given {@link fixedTokenCredential} instead.
   */
  readonly managedIdentity: boolean;
  /** Booted VMs' kubelets register their Node only while this answers true; default always. */
  readonly registerNodes?: () => boolean;
  /**
   * Put a disk encryption set in place in the emulator ({@link AzureHarness.diskEncryptionSetId})
   * and name it in `NODE_OSDISK_DISKENCRYPTIONSET_ID`; default none.
   */
  readonly diskEncryptionSet?: boolean;
  /** The control plane's kubeconfig file; default the e2e global setup's (`inject`). */
  readonly kubeconfig?: string;
}

/** Names of the emulator's resources in the node resource group, each list sorted. */
export interface ArmNames {
  vms: string[];
  nics: string[];
  disks: string[];
}

/** A started harness; {@link AzureHarness.stop} ends what it started. */
export class AzureHarness {
  private constructor(
    readonly options: AzureHarnessOptions,
    /** The control plane's kubeconfig file (from the global setup). */
    readonly kubeconfig: string,
    readonly api: KubeConnection,
    readonly arm: ArmEmulator,
    readonly kubelets: EmulatedKubelets,
    /** The token endpoint server, when `managedIdentity`. */
    private readonly identity: Server | undefined,
    /** The controller's environment: Azure settings, `ARM_ENDPOINT`, `ARM_CA_FILE` (+ identity). */
    readonly env: Readonly<Record<string, string>>,
  ) {}

  /**
   * Installs the CRDs, starts the ARM emulator with emulated kubelets, writes its CA to a
   * temporary file and, when asked, serves the token endpoint. Stops what it started and raises
   * when a step fails.
   */
  static async start(options: AzureHarnessOptions): Promise<AzureHarness> {
    const kubeconfig = options.kubeconfig ?? inject('kubeconfig');
    const api = connect({ kubeconfig });
    await installCrds(api, [...karpenterCrdFiles(), AKS_NODE_CLASS_CRD_URL.pathname]);
    const kubelets = new EmulatedKubelets(api);
    const registerNodes = options.registerNodes ?? (() => true);
    const arm = await startArmEmulator({
      onVmBooted: async (booted: BootedVirtualMachine) => {
        if (registerNodes()) await kubelets.onVmBooted(booted);
      },
    });
    kubelets.start(arm);
    let identity: Server | undefined;
    try {
      // ARM refuses a NIC whose subnet does not exist.
      arm.putSubnet({ id: subnetId(options.subscription) });
      if (options.diskEncryptionSet)
        arm.putDiskEncryptionSet({
          id: diskEncryptionSetId(options.subscription),
          location: options.region,
        });
      const caFile = join(
        mkdtempSync(join(tmpdir(), `karpenter-ts-azure-${options.clusterName}.`)),
        'arm-ca.pem',
      );
      writeFileSync(caFile, arm.ca ?? '');
      const env: Record<string, string> = {
        AZURE_SUBSCRIPTION_ID: options.subscription,
        AZURE_LOCATION: options.region,
        AZURE_NODE_RESOURCE_GROUP: options.nodeResourceGroup,
        VNET_SUBNET_ID: subnetId(options.subscription),
        CLUSTER_ENDPOINT: clusterEndpoint(options.clusterName, options.region),
        KUBELET_BOOTSTRAP_TOKEN,
        SSH_PUBLIC_KEY,
        ARM_ENDPOINT: arm.url,
        ARM_CA_FILE: caFile,
        ...(options.diskEncryptionSet
          ? { NODE_OSDISK_DISKENCRYPTIONSET_ID: diskEncryptionSetId(options.subscription) }
          : {}),
      };
      if (options.managedIdentity) {
        identity = await serveTokenEndpoint();
        Object.assign(env, {
          AZURE_CREDENTIAL_MODE: 'managed-identity',
          IDENTITY_ENDPOINT: `http://127.0.0.1:${port(identity)}/msi/token`,
          IDENTITY_HEADER: 'e2e',
        });
      }
      return new AzureHarness(options, kubeconfig, api, arm, kubelets, identity, env);
    } catch (err) {
      kubelets.stop();
      identity?.close();
      await arm.stop();
      throw err;
    }
  }

  /** `VNET_SUBNET_ID`: subnet `nodes` of vnet `vnet` in resource group `rg`. */
  get subnetId(): string {
    return subnetId(this.options.subscription);
  }

  /** The disk encryption set `NODE_OSDISK_DISKENCRYPTIONSET_ID` names with `diskEncryptionSet`. */
  get diskEncryptionSetId(): string {
    return diskEncryptionSetId(this.options.subscription);
  }

  /**
   * Arguments of a child-process controller (test/e2e/process) of this cluster, leader election
   * off; the process adds free metrics and health ports.
   */
  controllerArgs(): string[] {
    return [
      '--kubeconfig',
      this.kubeconfig,
      '--provider',
      'azure',
      '--cluster-name',
      this.options.clusterName,
      '--disable-leader-election',
    ];
  }

  /** Sorted names of the emulator's VMs, NICs and disks in the node resource group. */
  armNames(): ArmNames {
    const group = this.options.nodeResourceGroup;
    const names = (list: { name: string }[]) => list.map((r) => r.name).sort();
    return {
      vms: names(this.arm.state.virtualMachines(group)),
      nics: names(this.arm.state.networkInterfaces(group)),
      disks: names(this.arm.state.disks(group)),
    };
  }

  /** SDK clients on the emulator with {@link fixedTokenCredential} (the test's own ARM calls). */
  armClients(): ArmClients {
    return createArmClients({
      subscriptionId: this.options.subscription,
      credential: fixedTokenCredential,
      endpoint: this.arm.url,
      ...(this.arm.ca ? { tlsCA: this.arm.ca } : {}),
    });
  }

  /**
   * Real ARM finishes an accepted operation whether or not anyone polls it; the emulator advances
   * one only when polled. With the controller dead, this polls every compute operation still in
   * progress once, after setting it to finish on that poll.
   */
  async finishOperations(): Promise<void> {
    const { subscription, region } = this.options;
    for (const op of this.arm.state.operations.values()) {
      if (op.status !== 'InProgress') continue;
      op.pollsLeft = 0;
      const url = new URL(
        `/subscriptions/${subscription}/providers/Microsoft.Compute/locations/${region}/operations/${op.id}?api-version=2024-07-01`,
        this.arm.url,
      );
      await new Promise<void>((resolve, reject) => {
        const req = httpsRequest(
          url,
          { ca: this.arm.ca, headers: { authorization: `Bearer ${E2E_TOKEN}` } },
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

  /**
   * Creates namespace `name`, AKSNodeClass `name` (`spec`, default {@link nodeClassSpec}) and
   * NodePool `name` on it: Linux, instance types `sizes`, capacity types `capacityTypes` (`spot`,
   * `on-demand`).
   */
  async createNodePool(
    name: string,
    sizes: readonly string[],
    capacityTypes: readonly string[],
    spec: AKSNodeClass['spec'] = nodeClassSpec,
  ): Promise<void> {
    await this.api.request('POST', '/api/v1/namespaces', {
      body: { apiVersion: 'v1', kind: 'Namespace', metadata: { name } },
    });
    await this.api.request('POST', '/apis/karpenter.azure.com/v1beta1/aksnodeclasses', {
      body: {
        apiVersion: 'karpenter.azure.com/v1beta1',
        kind: 'AKSNodeClass',
        metadata: { name },
        spec,
      },
    });
    const pool: NodePool = {
      apiVersion: 'karpenter.sh/v1',
      kind: 'NodePool',
      metadata: { name },
      spec: {
        template: {
          spec: {
            nodeClassRef: { group: 'karpenter.azure.com', kind: 'AKSNodeClass', name },
            requirements: [
              { key: 'kubernetes.io/os', operator: 'In', values: ['linux'] },
              { key: 'node.kubernetes.io/instance-type', operator: 'In', values: [...sizes] },
              { key: 'karpenter.sh/capacity-type', operator: 'In', values: [...capacityTypes] },
            ],
          },
        },
      },
    };
    await this.api.request('POST', '/apis/karpenter.sh/v1/nodepools', { body: pool });
  }

  /**
   * Deletes NodePool, AKSNodeClass and namespace `name`, ignoring errors (clean-up: the next
   * suite must find no NodePool another provider cannot serve).
   */
  async deleteNodePool(name: string): Promise<void> {
    const ignore = () => {};
    await this.api.request('DELETE', `/apis/karpenter.sh/v1/nodepools/${name}`).catch(ignore);
    await this.api
      .request('DELETE', `/apis/karpenter.azure.com/v1beta1/aksnodeclasses/${name}`)
      .catch(ignore);
    await this.api.request('DELETE', `/api/v1/namespaces/${name}`).catch(ignore);
  }

  /** Stops the kubelets, the token endpoint and the emulator. */
  async stop(): Promise<void> {
    this.kubelets.stop();
    this.identity?.close();
    await this.arm.stop();
  }
}

function subnetId(subscription: string): string {
  return `/subscriptions/${subscription}/resourceGroups/rg/providers/Microsoft.Network/virtualNetworks/vnet/subnets/nodes`;
}

function diskEncryptionSetId(subscription: string): string {
  return `/subscriptions/${subscription}/resourceGroups/security/providers/Microsoft.Compute/diskEncryptionSets/nodes-des`;
}

/** A token endpoint on a free localhost port answering {@link E2E_TOKEN} to every request. */
async function serveTokenEndpoint(): Promise<Server> {
  const server = createServer((_req, res) => {
    res.setHeader('content-type', 'application/json');
    res.end(
      JSON.stringify({
        access_token: E2E_TOKEN,
        expires_on: String(Math.floor(Date.now() / 1000) + 3600),
        resource: 'https://management.azure.com',
        token_type: 'Bearer',
      }),
    );
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return server;
}

function port(server: Server): number {
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('no identity port');
  return address.port;
}
