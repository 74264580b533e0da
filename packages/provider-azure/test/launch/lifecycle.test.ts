import { CreateError, NodeClaimNotFoundError } from '@karpenter-ts/cloudprovider';
import type { Node } from '@karpenter-ts/api';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  AzureCloudProvider,
  DriftReason,
  allAzureSkus,
  launchTags,
  networkInterfaceBody,
  NodeClassHashAnnotation,
  createAzureCredential,
  fetchRetailPrices,
  pricingWithLiveRegion,
  AzurePricing,
  staticOnDemandPriceTable,
} from '../../src/index.js';
import {
  BOOTSTRAP_TOKEN,
  CLUSTER,
  GEN1_IMAGE,
  NODE_RG,
  REGION,
  SUBNET,
  SUBSCRIPTION,
  nodeClaim,
  readyNodeClass,
  startHarness,
  type Harness,
} from './harness.js';

let h: Harness;
beforeEach(async () => {
  h = await startHarness();
});
afterEach(async () => h.stop());

describe('delete', () => {
  it('removes the VM, its NIC and its OS disk, then reports NodeClaimNotFoundError', async () => {
    const launched = await h.provider.create(nodeClaim('general-del01'));
    expect(h.arm.state.disks()).toHaveLength(1);
    await h.provider.delete(launched);
    expect(h.arm.state.virtualMachines()).toHaveLength(0);
    expect(h.arm.state.networkInterfaces()).toHaveLength(0);
    expect(h.arm.state.disks()).toHaveLength(0);
    expect(
      h.arm.state.requestsTo('DELETE', '/virtualMachines/aks-general-del01')[0]?.url,
    ).toContain('forceDeletion=true');
    await expect(h.provider.delete(launched)).rejects.toBeInstanceOf(NodeClaimNotFoundError);
  });

  it('shares one ARM delete between concurrent deletes of the same node claim', async () => {
    const launched = await h.provider.create(nodeClaim('general-del02'));
    h.arm.faults.slow({ resourceType: 'virtualMachines', method: 'DELETE' }, 3);
    await Promise.all([h.provider.delete(launched), h.provider.delete(launched)]);
    expect(h.arm.state.requestsTo('DELETE', '/virtualMachines/')).toHaveLength(1);
  });

  it('finishes a VM delete that a killed controller started and never followed', async () => {
    const launched = await h.provider.create(nodeClaim('general-del04'));
    // The earlier process sent the DELETE (the VM is Deleting) and died before polling it out.
    await h.clients.compute.virtualMachines.beginDelete(NODE_RG, 'aks-general-del04', {
      forceDeletion: true,
    });
    expect(h.arm.state.virtualMachines()[0]?.properties['provisioningState']).toBe('Deleting');
    await h.provider.delete(launched);
    expect(h.arm.state.virtualMachines()).toHaveLength(0);
    expect(h.arm.state.networkInterfaces()).toHaveLength(0);
    await expect(h.provider.delete(launched)).rejects.toBeInstanceOf(NodeClaimNotFoundError);
  });

  it('finds the VM by node claim name when the claim has no provider ID yet', async () => {
    await h.provider.create(nodeClaim('general-del03'));
    await h.provider.delete(nodeClaim('general-del03'));
    expect(h.arm.state.virtualMachines()).toHaveLength(0);
  });
});

describe('create after a killed controller', () => {
  const nicOf = (claim: string) =>
    networkInterfaceBody({
      name: `aks-${claim}`,
      location: REGION,
      subnetID: SUBNET,
      acceleratedNetworking: false,
      tags: launchTags({ clusterName: CLUSTER, nodePool: 'general', nodeClaim: claim }),
    });
  const state = (list: { name: string; properties: { provisioningState: string } }[]) =>
    list.map((r) => [r.name, r.properties.provisioningState]);

  // Soak azure-2027 cycle 29: controller 28 sent the NIC PUT of a launch and was killed before
  // polling it out; controller 29's create of the same node claim PUT the NIC again and waited
  // for it for good (the NIC stayed Updating), so the claim never got a provider ID.
  it(
    'finishes a launch whose NIC create another client started and never polled',
    { timeout: 30_000 },
    async () => {
      await h.clients.network.networkInterfaces.beginCreateOrUpdate(
        NODE_RG,
        'aks-general-cr01',
        nicOf('general-cr01'),
        { updateIntervalInMs: 5 },
      );
      expect(state(h.arm.state.networkInterfaces())).toEqual([['aks-general-cr01', 'Updating']]);
      const launched = await h.provider.create(nodeClaim('general-cr01'));
      expect(launched.status?.providerID).toMatch(/\/virtualMachines\/aks-general-cr01$/);
      expect(state(h.arm.state.networkInterfaces())).toEqual([['aks-general-cr01', 'Succeeded']]);
      expect(state(h.arm.state.virtualMachines())).toEqual([['aks-general-cr01', 'Succeeded']]);
      expect(h.booted.map((b) => b.vm.name)).toEqual(['aks-general-cr01']);
    },
  );

  it(
    'bounds its wait for the NIC: a NIC create that never finishes fails the launch and is deleted, and the retry launches',
    { timeout: 30_000 },
    async () => {
      const bounded = await startHarness({ networkInterfaceCreateTimeoutMs: 500 });
      try {
        bounded.arm.faults.slow({ resourceType: 'networkInterfaces', method: 'PUT' }, 1_000_000, {
          times: 1,
        });
        const started = Date.now();
        const err = await bounded.provider
          .create(nodeClaim('general-cr03'))
          .catch((e: unknown) => e);
        expect(Date.now() - started).toBeLessThan(15_000);
        expect(err).toBeInstanceOf(CreateError);
        expect((err as CreateError).reason).toBe('LaunchTimeout');
        expect((err as Error).message).toContain('network interface aks-general-cr03');
        expect(bounded.arm.state.networkInterfaces()).toEqual([]);
        const launched = await bounded.provider.create(nodeClaim('general-cr03'));
        expect(launched.status?.providerID).toMatch(/\/virtualMachines\/aks-general-cr03$/);
      } finally {
        await bounded.stop();
      }
    },
  );

  it(
    'bounds its wait for the VM: a VM create that never finishes fails the launch, VM and NIC are deleted, and the retry launches',
    { timeout: 30_000 },
    async () => {
      const bounded = await startHarness({ virtualMachineCreateTimeoutMs: 500 });
      try {
        bounded.arm.faults.slow({ resourceType: 'virtualMachines', method: 'PUT' }, 1_000_000, {
          times: 1,
        });
        const err = await bounded.provider
          .create(nodeClaim('general-cr04'))
          .catch((e: unknown) => e);
        expect(err).toBeInstanceOf(CreateError);
        expect((err as CreateError).reason).toBe('LaunchTimeout');
        expect((err as Error).message).toContain('VM aks-general-cr04');
        expect(bounded.arm.state.virtualMachines()).toEqual([]);
        expect(bounded.arm.state.networkInterfaces()).toEqual([]);
        const launched = await bounded.provider.create(nodeClaim('general-cr04'));
        expect(launched.status?.providerID).toMatch(/\/virtualMachines\/aks-general-cr04$/);
      } finally {
        await bounded.stop();
      }
    },
  );
});

describe('get and list', () => {
  it('gets a launched VM by provider ID and raises NodeClaimNotFoundError for unknown ones', async () => {
    const launched = await h.provider.create(
      nodeClaim('general-get01', { capacityTypes: ['spot'] }),
    );
    const got = await h.provider.get(launched.status?.providerID ?? '');
    expect(got.metadata.name).toBe('general-get01');
    expect(got.metadata.labels).toMatchObject({
      'node.kubernetes.io/instance-type': 'Standard_D2s_v3',
      'karpenter.sh/capacity-type': 'spot',
      'karpenter.sh/nodepool': 'general',
      'topology.kubernetes.io/zone': launched.metadata.labels?.['topology.kubernetes.io/zone'],
    });
    expect(got.status?.imageID).toBe(launched.status?.imageID);
    await expect(
      h.provider.get(launched.status!.providerID!.replace('general-get01', 'general-nope')),
    ).rejects.toBeInstanceOf(NodeClaimNotFoundError);
    await expect(h.provider.get('aws:///us-west-2a/i-123')).rejects.toBeInstanceOf(
      NodeClaimNotFoundError,
    );
  });

  it("reports each VM's ARM timeCreated as its creationTimestamp (what an orphan's grace is measured from)", async () => {
    await h.provider.create(nodeClaim('general-age01'));
    h.arm.state.backdateVirtualMachine(NODE_RG, 'aks-general-age01', 3600);
    const vm = await h.clients.compute.virtualMachines.get(NODE_RG, 'aks-general-age01');
    expect(vm.timeCreated).toBeInstanceOf(Date);
    const [listed] = await h.provider.list();
    expect(listed?.metadata.creationTimestamp).toEqual(vm.timeCreated);
    const got = await h.provider.get(listed?.status?.providerID ?? '');
    expect(got.metadata.creationTimestamp).toEqual(vm.timeCreated);
  });

  it('lists only VMs tagged for this cluster', async () => {
    await h.provider.create(nodeClaim('general-lst01'));
    await h.provider.create(nodeClaim('general-lst02'));
    const nic = await h.clients.network.networkInterfaces.beginCreateOrUpdateAndWait(
      NODE_RG,
      'other',
      { location: REGION, ipConfigurations: [{ name: 'other', subnet: { id: SUBNET } }] },
      { updateIntervalInMs: 5 },
    );
    await h.clients.compute.virtualMachines.createOrUpdate(
      NODE_RG,
      'other',
      {
        location: REGION,
        tags: { 'karpenter.azure.com_cluster': 'another-cluster', 'karpenter.sh_nodepool': 'x' },
        hardwareProfile: { vmSize: 'Standard_D2s_v3' },
        storageProfile: {
          imageReference: { communityGalleryImageId: GEN1_IMAGE },
          osDisk: { createOption: 'FromImage' },
        },
        osProfile: { computerName: 'other', adminUsername: 'azureuser' },
        networkProfile: { networkInterfaces: [{ id: nic.id }] },
      },
      { updateIntervalInMs: 5 },
    );
    const names = (await h.provider.list()).map((c) => c.metadata.name).sort();
    expect(names).toEqual(['general-lst01', 'general-lst02']);
  });
});

describe('garbage collection', () => {
  it('lists VMs without a node claim only after the grace period, and deletes them with NIC and disk', async () => {
    await h.provider.create(nodeClaim('general-gc001'));
    await h.provider.create(nodeClaim('general-gc002'));
    const live = new Set(['general-gc002']);
    expect((await h.provider.listGarbage(live)).virtualMachines).toEqual([]);
    h.clock.advance(301);
    const providerID = `azure:///subscriptions/${SUBSCRIPTION}/resourceGroups/${NODE_RG.toLowerCase()}/providers/Microsoft.Compute/virtualMachines/aks-general-gc001`;
    expect(await h.provider.listGarbage(live)).toEqual({
      virtualMachines: ['aks-general-gc001'],
      providerIDs: [providerID],
      networkInterfaces: [],
    });
    expect((await h.provider.collectGarbage(live)).providerIDs).toEqual([providerID]);
    expect(h.arm.state.virtualMachines().map((v) => v.name)).toEqual(['aks-general-gc002']);
    expect(h.arm.state.networkInterfaces().map((n) => n.name)).toEqual(['aks-general-gc002']);
    expect(h.arm.state.disks().map((d) => d.name)).toEqual(['aks-general-gc002']);
  });

  it("collects an orphan NIC of this cluster and never touches another cluster's VM", async () => {
    const other = new AzureCloudProvider({
      clients: h.clients,
      subscriptionId: SUBSCRIPTION,
      location: REGION,
      nodeResourceGroup: NODE_RG,
      clusterName: 'other-cluster',
      clusterEndpoint: 'https://other-cluster.hcp.southcentralus.azmk8s.io:443',
      kubeletBootstrapToken: BOOTSTRAP_TOKEN,
      sshPublicKey: 'ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIE test',
      vnetSubnetID: SUBNET,
      getNodeClass: async (name) => h.nodeClasses.get(name),
      skus: allAzureSkus().filter((s) => s.capabilitySource === 'arm'),
      clock: h.clock,
      random: () => 0,
      pollIntervalMs: 5,
    });
    await other.create(nodeClaim('general-gc101'));
    await h.clients.network.networkInterfaces.beginCreateOrUpdateAndWait(
      NODE_RG,
      'aks-general-gc102',
      networkInterfaceBody({
        name: 'aks-general-gc102',
        location: REGION,
        subnetID: SUBNET,
        acceleratedNetworking: false,
        tags: launchTags({ clusterName: CLUSTER, nodePool: 'general', nodeClaim: 'general-gc102' }),
      }),
      { updateIntervalInMs: 5 },
    );
    h.clock.advance(3600);
    expect(await h.provider.listGarbage(new Set())).toEqual({
      virtualMachines: [],
      providerIDs: [],
      networkInterfaces: ['aks-general-gc102'],
    });
    // Its NodeClaim existing keeps a NIC (a launch between NIC and VM creation).
    expect((await h.provider.listGarbage(new Set(['general-gc102']))).networkInterfaces).toEqual(
      [],
    );
    await h.provider.collectGarbage(new Set());
    expect(h.arm.state.virtualMachines().map((v) => v.name)).toEqual(['aks-general-gc101']);
    expect(h.arm.state.networkInterfaces().map((n) => n.name)).toEqual(['aks-general-gc101']);
  });

  it('collects only the kinds asked for: a VM pass leaves the orphan NIC, a NIC pass the old VM (and its NIC)', async () => {
    await h.provider.create(nodeClaim('general-gc201'));
    await h.clients.network.networkInterfaces.beginCreateOrUpdateAndWait(
      NODE_RG,
      'aks-general-gc202',
      networkInterfaceBody({
        name: 'aks-general-gc202',
        location: REGION,
        subnetID: SUBNET,
        acceleratedNetworking: false,
        tags: launchTags({ clusterName: CLUSTER, nodePool: 'general', nodeClaim: 'general-gc202' }),
      }),
      { updateIntervalInMs: 5 },
    );
    h.clock.advance(3600);
    const names = () => ({
      vms: h.arm.state.virtualMachines().map((v) => v.name),
      nics: h.arm.state
        .networkInterfaces()
        .map((n) => n.name)
        .sort(),
    });

    expect(await h.provider.collectGarbage(new Set(), { virtualMachines: false })).toMatchObject({
      virtualMachines: [],
      networkInterfaces: ['aks-general-gc202'],
    });
    expect(names()).toEqual({ vms: ['aks-general-gc201'], nics: ['aks-general-gc201'] });
    expect(await h.provider.collectGarbage(new Set(), { networkInterfaces: false })).toMatchObject({
      virtualMachines: ['aks-general-gc201'],
      networkInterfaces: [],
    });
    expect(names()).toEqual({ vms: [], nics: [] });
  });
});

describe('drift', () => {
  function node(kubeletVersion: string, labels: Record<string, string> = {}): Node {
    return {
      metadata: { name: 'n1', labels },
      status: { nodeInfo: { kubeletVersion } },
    } as unknown as Node;
  }

  it('is not drifted right after launch; tags changes never drift', async () => {
    const launched = await h.provider.create(nodeClaim('general-dr001'));
    expect(await h.provider.isDrifted(launched)).toBe('');
    h.nodeClasses.set('default', readyNodeClass({ tags: { team: 'a' } }));
    expect(await h.provider.isDrifted(launched)).toBe('');
  });

  it('NodeClassDrift when the spec (e.g. the subnet) changes', async () => {
    const launched = await h.provider.create(nodeClaim('general-dr002'));
    expect(launched.metadata.annotations?.[NodeClassHashAnnotation]).toBeDefined();
    h.nodeClasses.set(
      'default',
      readyNodeClass({ vnetSubnetID: SUBNET.replace('/nodes', '/other') }),
    );
    expect(await h.provider.isDrifted(launched)).toBe(DriftReason.NodeClass);
  });

  it('K8sVersionDrift, KubeletIdentityDrift and ImageDrift, in that order', async () => {
    let nodeForTest: Node | undefined;
    await h.stop();
    h = await startHarness({ getNode: async () => nodeForTest });
    const launched = await h.provider.create(nodeClaim('general-dr003'));
    launched.status = { ...launched.status, nodeName: 'n1' };
    nodeForTest = node('v1.33.2', {
      'kubernetes.azure.com/kubelet-identity-client-id': '11111111-2222-3333-4444-555555555555',
    });
    expect(await h.provider.isDrifted(launched)).toBe('');
    nodeForTest = node('v1.32.9');
    expect(await h.provider.isDrifted(launched)).toBe(DriftReason.K8sVersion);
    nodeForTest = node('v1.33.2', {
      'kubernetes.azure.com/kubelet-identity-client-id': 'someone-else',
    });
    expect(await h.provider.isDrifted(launched)).toBe(DriftReason.KubeletIdentity);
    nodeForTest = node('v1.33.2');
    const nc = readyNodeClass();
    nc.status!.images = nc.status!.images!.map((i) => ({
      ...i,
      id: i.id.replace('202501.01.0', '202502.01.0'),
    }));
    h.nodeClasses.set('default', nc);
    expect(await h.provider.isDrifted(launched)).toBe(DriftReason.Image);
  });
});

describe('live retail prices', () => {
  it('reads Linux on-demand and spot prices of a region through NextPageLink, dropping Windows and Low Priority', async () => {
    const live = await fetchRetailPrices({
      region: REGION,
      endpoint: h.arm.url,
      ...(h.arm.ca ? { tlsCA: h.arm.ca } : {}),
    });
    expect(live.onDemand['Standard_D2s_v3']).toBe(0.11);
    expect(live.spot['Standard_D2s_v3']).toBe(0.022);
    // Every size of the region's static table comes back (the emulator serves that table).
    expect(Object.keys(live.onDemand).sort()).toEqual(
      Object.keys(staticOnDemandPriceTable()[REGION] ?? {}).sort(),
    );
    const pricing = pricingWithLiveRegion(AzurePricing.fromStaticData(), REGION, live);
    expect(pricing.spotPrice(REGION, 'Standard_D2s_v3')).toBe(0.022);
    expect(pricing.onDemandPrice('westeurope', 'Standard_D2s_v3')).toBe(
      AzurePricing.fromStaticData().onDemandPrice('westeurope', 'Standard_D2s_v3'),
    );
  });
});

describe('credentials', () => {
  it('names the missing settings of workload identity', () => {
    expect(() => createAzureCredential({ mode: 'workload-identity', clientId: 'c' })).toThrow(
      /AZURE_TENANT_ID/,
    );
    const cred = createAzureCredential({
      mode: 'workload-identity',
      clientId: 'c',
      tenantId: 't',
      tokenFilePath: '/var/run/token',
    });
    expect(cred.constructor.name).toBe('WorkloadIdentityCredential');
    expect(
      createAzureCredential({ mode: 'managed-identity', clientId: 'c' }).constructor.name,
    ).toBe('ManagedIdentityCredential');
  });
});
