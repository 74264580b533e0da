import {
  CreateError,
  InsufficientCapacityError,
  NodeClassNotReadyError,
} from '@karpenter-ts/cloudprovider';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  ALL_ZONAL_ZONES,
  ALL_ZONES,
  NodeClassHashAnnotation,
  UnavailableTTL,
  parseBootstrapEnv,
} from '../../src/index.js';
import {
  BOOTSTRAP_TOKEN,
  CLUSTER,
  GEN1_IMAGE,
  GEN2_IMAGE,
  IDENTITY,
  NODE_RG,
  SUBNET,
  SUBSCRIPTION,
  nodeClaim,
  readyNodeClass,
  startHarness,
  storedVm,
  type Harness,
} from './harness.js';

let h: Harness;
beforeEach(async () => {
  h = await startHarness();
});
afterEach(async () => h.stop());

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

describe('create: the launch', () => {
  it('creates the NIC, then the VM, for the cheapest offering of the node claim', async () => {
    const launched = await h.provider.create(nodeClaim('general-abc12'));
    const puts = h.arm.state.requests
      .filter((r) => r.method === 'PUT')
      .map((r) => r.url.split('?')[0]?.split('/').slice(-2).join('/'));
    expect(puts).toEqual([
      'networkInterfaces/aks-general-abc12',
      'virtualMachines/aks-general-abc12',
    ]);

    expect(launched.status?.providerID).toBe(
      `azure:///subscriptions/${SUBSCRIPTION}/resourceGroups/${NODE_RG.toLowerCase()}/providers/Microsoft.Compute/virtualMachines/aks-general-abc12`,
    );
    expect(launched.metadata.labels).toMatchObject({
      'node.kubernetes.io/instance-type': 'Standard_D2s_v3',
      'karpenter.sh/capacity-type': 'on-demand',
      'karpenter.sh/nodepool': 'general',
      'kubernetes.azure.com/scalesetpriority': 'regular',
      'kubernetes.azure.com/mode': 'user',
      'karpenter.azure.com/placement-scope': 'zonal',
      'kubernetes.io/arch': 'amd64',
    });
    expect(launched.metadata.labels?.['topology.kubernetes.io/zone']).toMatch(
      /^southcentralus-[123]$/,
    );
    expect(launched.status?.imageID).toBe(GEN2_IMAGE);
    expect(launched.status?.capacity).toMatchObject({ cpu: '2', pods: '250' });
    expect(launched.status?.allocatable?.['cpu']).toBe('1900m');
    expect(launched.metadata.annotations?.[NodeClassHashAnnotation]).toMatch(/^[0-9a-f]{64}$/);

    const nic = h.arm.state.networkInterfaces()[0] as Json;
    expect(nic['tags']).toEqual({
      'karpenter.azure.com_cluster': CLUSTER,
      'karpenter.sh_nodepool': 'general',
      'karpenter.sh_nodeclaim': 'general-abc12',
      'compute.aks.billing': 'linux',
    });
    expect(nic['properties'].ipConfigurations[0].properties.subnet.id).toBe(SUBNET);
    expect(nic['properties'].enableAcceleratedNetworking).toBe(true);
    expect(nic['properties'].virtualMachine.id).toContain('/virtualMachines/aks-general-abc12');

    const vm = storedVm(h, 'aks-general-abc12') as Json;
    const p = vm['properties'];
    expect(vm['tags']).toEqual(nic['tags']);
    expect(vm['zones']).toEqual([
      launched.metadata.labels?.['topology.kubernetes.io/zone']?.slice(-1),
    ]);
    expect(vm['identity']).toEqual({
      type: 'UserAssigned',
      userAssignedIdentities: { [IDENTITY]: {} },
    });
    expect(p.hardwareProfile.vmSize).toBe('Standard_D2s_v3');
    expect(p.priority).toBe('Regular');
    expect(p.storageProfile.imageReference).toEqual({ communityGalleryImageId: GEN2_IMAGE });
    // 128 GB does not fit D2s_v3's 53 GB cache disk: managed premium disk named like the VM.
    expect(p.storageProfile.osDisk).toMatchObject({
      name: 'aks-general-abc12',
      diskSizeGB: 128,
      createOption: 'FromImage',
      deleteOption: 'Delete',
    });
    expect(p.storageProfile.osDisk.diffDiskSettings).toBeUndefined();
    expect(h.arm.state.disks().map((d) => d.name)).toEqual(['aks-general-abc12']);
    expect((h.arm.state.disks()[0] as Json)['sku'].name).toBe('Premium_LRS');
    expect(p.osProfile).toMatchObject({
      computerName: 'aks-general-abc12',
      adminUsername: 'azureuser',
    });
    expect(p.osProfile.linuxConfiguration.disablePasswordAuthentication).toBe(true);
    expect(p.networkProfile.networkInterfaces[0].properties).toEqual({
      primary: true,
      deleteOption: 'Delete',
    });
    expect(p.provisioningState).toBe('Succeeded');
  });

  it('boots the VM with custom data carrying kubelet labels, taints and max pods (and never returns it)', async () => {
    await h.provider.create(
      nodeClaim('general-boot1', {
        taints: [{ key: 'dedicated', value: 'gpu', effect: 'NoSchedule' }],
      }),
    );
    expect(h.booted).toHaveLength(1);
    const env = parseBootstrapEnv(h.booted[0]?.customData ?? '');
    expect(env['MAX_PODS']).toBe('250');
    expect(env['BOOTSTRAP_TOKEN']).toBe(BOOTSTRAP_TOKEN);
    expect(env['KUBELET_FLAGS']).toContain(
      '--register-with-taints=karpenter.sh/unregistered:NoExecute,dedicated=gpu:NoSchedule',
    );
    expect(env['KUBELET_FLAGS']).toContain('karpenter.sh/nodepool=general');
    expect(env['KUBELET_FLAGS']).toContain(
      'kubernetes.azure.com/kubelet-identity-client-id=11111111-2222-3333-4444-555555555555',
    );
    expect(env['KUBELET_FLAGS']).toContain('--kube-reserved=cpu=100m,memory=1843Mi');
    expect(env['KUBELET_FLAGS']).toContain('--eviction-hard=memory.available<750Mi');
    expect(env['KUBELET_FLAGS']).toContain('--cluster-dns=10.0.0.10');
    expect(env['KUBELET_FLAGS']).toContain('node.kubernetes.io/instance-type=Standard_D2s_v3');
    const got = await h.clients.compute.virtualMachines.get(NODE_RG, 'aks-general-boot1');
    expect(got.osProfile?.customData).toBeUndefined();
  });

  it('launches spot as priority Spot with eviction policy Delete and max price -1', async () => {
    const launched = await h.provider.create(
      nodeClaim('general-spot1', { capacityTypes: ['spot'] }),
    );
    const p = (storedVm(h, 'aks-general-spot1') as Json)['properties'];
    expect(p).toMatchObject({
      priority: 'Spot',
      evictionPolicy: 'Delete',
      billingProfile: { maxPrice: -1 },
    });
    expect(launched.metadata.labels).toMatchObject({
      'karpenter.sh/capacity-type': 'spot',
      'kubernetes.azure.com/priority': 'spot',
    });
  });

  it('uses an ephemeral OS disk on the cache disk when osDiskSizeGB fits it', async () => {
    h.nodeClasses.set('default', readyNodeClass({ osDiskSizeGB: 50 }));
    const launched = await h.provider.create(
      nodeClaim('general-eph01', { instanceTypes: ['Standard_D2s_v3'] }),
    );
    const osDisk = (storedVm(h, 'aks-general-eph01') as Json)['properties'].storageProfile.osDisk;
    expect(osDisk).toMatchObject({
      caching: 'ReadOnly',
      diffDiskSettings: { option: 'Local', placement: 'CacheDisk' },
      diskSizeGB: 50,
    });
    expect(h.arm.state.disks()).toHaveLength(0);
    expect(launched.status?.capacity?.['ephemeral-storage']).toBe('50000000000');
  });

  it('honours the zone requirement and the NodeClass subnet, and picks the gen1 image for a gen1-only size', async () => {
    const subnet = SUBNET.replace('/nodes', '/pool-b');
    h.arm.putSubnet({ id: subnet });
    h.nodeClasses.set('default', readyNodeClass({ vnetSubnetID: subnet }));
    const launched = await h.provider.create(
      nodeClaim('general-zone3', {
        instanceTypes: ['Standard_D2_v2'],
        zones: ['southcentralus-3'],
      }),
    );
    expect(launched.metadata.labels?.['topology.kubernetes.io/zone']).toBe('southcentralus-3');
    expect((storedVm(h, 'aks-general-zone3') as Json)['zones']).toEqual(['3']);
    expect(
      (h.arm.state.networkInterfaces()[0] as Json)['properties'].ipConfigurations[0].properties
        .subnet.id,
    ).toBe(subnet);
    expect(launched.status?.imageID).toBe(GEN1_IMAGE);
  });

  it('returns the existing VM on a second create of the same node claim, without new PUTs', async () => {
    const first = await h.provider.create(nodeClaim('general-idem1'));
    const puts = h.arm.state.requests.filter((r) => r.method === 'PUT').length;
    const second = await h.provider.create(nodeClaim('general-idem1'));
    expect(h.arm.state.requests.filter((r) => r.method === 'PUT').length).toBe(puts);
    expect(second.status?.providerID).toBe(first.status?.providerID);
    expect(second.metadata.labels?.['node.kubernetes.io/instance-type']).toBe('Standard_D2s_v3');
  });

  it('raises NodeClassNotReadyError for a not-ready NodeClass and InsufficientCapacityError for a missing one', async () => {
    const notReady = readyNodeClass();
    notReady.status!.conditions = [{ type: 'Ready', status: 'False', message: 'ImagesNotFound' }];
    h.nodeClasses.set('default', notReady);
    await expect(h.provider.create(nodeClaim('general-nr001'))).rejects.toBeInstanceOf(
      NodeClassNotReadyError,
    );
    await expect(
      h.provider.create(nodeClaim('general-nr002', { nodeClass: 'absent' })),
    ).rejects.toBeInstanceOf(InsufficientCapacityError);
    expect(h.arm.state.requests.filter((r) => r.method === 'PUT')).toHaveLength(0);
  });

  it('raises CreateError NoCompatibleImage when no image fits the instance types', async () => {
    const nc = readyNodeClass();
    nc.status!.images = [
      {
        id: GEN2_IMAGE,
        requirements: [{ key: 'kubernetes.io/arch', operator: 'In', values: ['arm64'] }],
      },
    ];
    h.nodeClasses.set('default', nc);
    await expect(h.provider.create(nodeClaim('general-img01'))).rejects.toMatchObject({
      name: 'CreateError',
      reason: 'NoCompatibleImage',
    });
  });

  it('raises InsufficientCapacityError when no option fits the requests', async () => {
    await expect(
      h.provider.create(nodeClaim('general-big01', { requests: { cpu: '64' } })),
    ).rejects.toBeInstanceOf(InsufficientCapacityError);
  });
});

describe('create: the OS disk encryption set (NODE_OSDISK_DISKENCRYPTIONSET_ID)', () => {
  const DES = `/subscriptions/${SUBSCRIPTION}/resourceGroups/security/providers/Microsoft.Compute/diskEncryptionSets/nodes-des`;
  beforeEach(async () => {
    await h.stop();
    h = await startHarness({ diskEncryptionSetID: DES });
    h.arm.putDiskEncryptionSet({ id: DES, location: 'southcentralus' });
  });

  it('encrypts the managed OS disk with the set: ARM creates the disk with the customer key', async () => {
    await h.provider.create(nodeClaim('general-des01', { instanceTypes: ['Standard_D2s_v3'] }));
    const osDisk = (storedVm(h, 'aks-general-des01') as Json)['properties'].storageProfile.osDisk;
    expect(osDisk.diffDiskSettings).toBeUndefined();
    expect(osDisk.managedDisk).toMatchObject({
      storageAccountType: 'Premium_LRS',
      diskEncryptionSet: { id: DES },
    });
    expect(h.arm.state.disks()[0]?.properties['encryption']).toEqual({
      type: 'EncryptionAtRestWithCustomerKey',
      diskEncryptionSetId: DES,
    });
  });

  it('keeps an ephemeral OS disk ephemeral and names the set on it too, as upstream does', async () => {
    h.nodeClasses.set('default', readyNodeClass({ osDiskSizeGB: 50 }));
    await h.provider.create(nodeClaim('general-des02', { instanceTypes: ['Standard_D2s_v3'] }));
    const osDisk = (storedVm(h, 'aks-general-des02') as Json)['properties'].storageProfile.osDisk;
    expect(osDisk).toMatchObject({
      caching: 'ReadOnly',
      diffDiskSettings: { option: 'Local', placement: 'CacheDisk' },
      managedDisk: { diskEncryptionSet: { id: DES } },
    });
    // No storage account type: an ephemeral disk lives on the host, not in Azure Storage.
    expect(osDisk.managedDisk.storageAccountType).toBeUndefined();
    expect(h.arm.state.disks()).toHaveLength(0);
  });

  it('a set that does not exist: CreateError with ARM code and message, no NIC or VM left', async () => {
    h.arm.removeDiskEncryptionSet(DES);
    await expect(h.provider.create(nodeClaim('general-des03'))).rejects.toMatchObject({
      name: 'CreateError',
      reason: 'LaunchFailed',
      message: expect.stringContaining(`BadRequest: DiskEncryptionSet '${DES}' was not found.`),
    });
    expect(h.arm.state.networkInterfaces()).toHaveLength(0);
    expect(h.arm.state.virtualMachines()).toHaveLength(0);
  });
});

describe('create: ARM errors mark the unavailable-offerings cache and fall back to another offering', () => {
  function entries() {
    return h.provider.unavailableOfferings.entries().filter((e) => 'sku' in e.scope);
  }
  function leftovers() {
    return {
      vms: h.arm.state.virtualMachines().length,
      nics: h.arm.state.networkInterfaces().length,
      disks: h.arm.state.disks().length,
    };
  }

  it('ZonalAllocationFailed (late): the zone, both capacity types, 1 h; the retry lands in another zone', async () => {
    h.arm.faults.capacity('ZonalAllocationFailed', { vmSize: 'Standard_D2s_v3', zone: '2' });
    const launched = await h.provider.create(
      nodeClaim('general-zaf01', { instanceTypes: ['Standard_D2s_v3'] }),
    );
    expect(launched.metadata.labels?.['topology.kubernetes.io/zone']).not.toBe('southcentralus-2');
    expect(entries()).toEqual([
      expect.objectContaining({
        scope: { sku: 'Standard_D2s_v3' },
        zone: 'southcentralus-2',
        capacityType: '*',
        reason: 'ZonalAllocationFailure',
        expiresAt: h.clock.ms + UnavailableTTL.allocation * 1000,
      }),
    ]);
    expect(leftovers()).toEqual({ vms: 1, nics: 1, disks: 1 });
    const [it] = await h.provider
      .getInstanceTypes({
        spec: { template: { spec: { nodeClassRef: { name: 'default' } } } },
      } as never)
      .then((t) => t.filter((i) => i.name === 'Standard_D2s_v3'));
    expect(
      it?.offerings
        .filter((o) => !o.available && o.zone === 'southcentralus-2')
        .map((o) => o.capacityType)
        .sort(),
    ).toEqual(['on-demand', 'spot']);
  });

  // D2s_v3 (0.11 USD/h) and D2_v5 (0.115) are in different ARM families, so a family threshold
  // written for D2s_v3 does not hide D2_v5.
  const twoFamilies = { instanceTypes: ['Standard_D2s_v3', 'Standard_D2_v5'], zonal: true };

  it('SkuNotAvailable: the capacity type in every zone of the placement scope, 23 h on-demand; falls back to another size', async () => {
    h.arm.faults.capacity('SkuNotAvailable', { vmSize: 'Standard_D2s_v3' });
    const launched = await h.provider.create(nodeClaim('general-sna01', twoFamilies));
    expect(launched.metadata.labels?.['node.kubernetes.io/instance-type']).toBe('Standard_D2_v5');
    expect(h.arm.state.requestsTo('PUT', '/virtualMachines/')).toHaveLength(2);
    expect(entries()).toEqual([
      expect.objectContaining({
        scope: { sku: 'Standard_D2s_v3' },
        zone: ALL_ZONAL_ZONES,
        capacityType: 'on-demand',
        reason: 'SKUNotAvailable',
        expiresAt: h.clock.ms + 82800_000,
      }),
    ]);
    expect(leftovers()).toEqual({ vms: 1, nics: 1, disks: 1 });
  });

  it('SkuNotAvailable on spot: 1 h', async () => {
    h.arm.faults.capacity('SkuNotAvailable', { vmSize: 'Standard_D2s_v3', priority: 'Spot' });
    await h.provider.create(
      nodeClaim('general-sna02', { ...twoFamilies, capacityTypes: ['spot'] }),
    );
    expect(entries()).toEqual([
      expect.objectContaining({ capacityType: 'spot', expiresAt: h.clock.ms + 3600_000 }),
    ]);
  });

  it('a zonal failure leaves the regional offering of the size available', async () => {
    h.arm.faults.capacity(
      'SkuNotAvailable',
      { vmSize: 'Standard_D2s_v3', zone: '2' },
      { times: 1 },
    );
    const launched = await h.provider.create(
      nodeClaim('general-reg01', { instanceTypes: ['Standard_D2s_v3'] }),
    );
    expect(launched.metadata.labels).toMatchObject({
      'topology.kubernetes.io/zone': '0',
      'karpenter.azure.com/placement-scope': 'regional',
    });
    expect(storedVm(h, 'aks-general-reg01')?.zones).toBeUndefined();
  });

  it('AllocationFailed: every zone of the scope, both capacity types', async () => {
    h.arm.faults.capacity('AllocationFailed', { vmSize: 'Standard_D2s_v3' });
    const launched = await h.provider.create(nodeClaim('general-af001', twoFamilies));
    expect(launched.metadata.labels?.['node.kubernetes.io/instance-type']).toBe('Standard_D2_v5');
    expect(entries()).toEqual([
      expect.objectContaining({
        zone: ALL_ZONAL_ZONES,
        capacityType: '*',
        reason: 'AllocationFailure',
      }),
    ]);
    expect(leftovers()).toEqual({ vms: 1, nics: 1, disks: 1 });
  });

  it('OverconstrainedZonalAllocationRequest: the zone and capacity type only', async () => {
    h.arm.faults.capacity('OverconstrainedZonalAllocationRequest', {
      vmSize: 'Standard_D2s_v3',
      zone: '2',
    });
    await h.provider.create(nodeClaim('general-ozr01', { instanceTypes: ['Standard_D2s_v3'] }));
    expect(entries()).toEqual([
      expect.objectContaining({
        zone: 'southcentralus-2',
        capacityType: 'on-demand',
        reason: 'OverconstrainedZonalAllocationFailure',
      }),
    ]);
  });

  it('OverconstrainedAllocationRequest: the capacity type across the placement scope', async () => {
    h.arm.faults.capacity('OverconstrainedAllocationRequest', { vmSize: 'Standard_D2s_v3' });
    await h.provider.create(nodeClaim('general-oar01', twoFamilies));
    expect(entries()).toEqual([
      expect.objectContaining({
        zone: ALL_ZONAL_ZONES,
        capacityType: 'on-demand',
        reason: 'OverconstrainedAllocationFailure',
      }),
    ]);
  });

  it('family cores quota at limit 0: the size in all zones for 1 h, and the family threshold blocks bigger sizes', async () => {
    h.arm.setQuota({ families: { standardDSv3Family: 0 } });
    const launched = await h.provider.create(
      nodeClaim('general-fq001', {
        instanceTypes: ['Standard_D2s_v3', 'Standard_D4s_v3', 'Standard_F16s_v2'],
      }),
    );
    // D4s_v3 (same family, more vCPUs) is skipped without another ARM call.
    expect(launched.metadata.labels?.['node.kubernetes.io/instance-type']).toBe('Standard_F16s_v2');
    expect(h.arm.state.requestsTo('PUT', '/virtualMachines/')).toHaveLength(2);
    expect(h.provider.unavailableOfferings.entries()).toEqual([
      expect.objectContaining({
        scope: { sku: 'Standard_D2s_v3' },
        zone: ALL_ZONES,
        capacityType: 'on-demand',
        reason: 'SubscriptionQuotaReached',
        expiresAt: h.clock.ms + 3600_000,
      }),
      expect.objectContaining({
        scope: { family: 'standardDSv3Family', minVCPUs: 2 },
        zone: ALL_ZONES,
      }),
    ]);
  });

  it('family cores quota above 0: 10 minutes', async () => {
    h.arm.setQuota({ families: { standardDSv3Family: 1 } });
    await h.provider.create(nodeClaim('general-fq002', twoFamilies));
    expect(entries()[0]).toMatchObject({ expiresAt: h.clock.ms + 600_000 });
  });

  it('spot quota (LowPriorityCores): every spot offering for 1 h; the retry goes on-demand', async () => {
    h.arm.setQuota({ lowPriority: 0 });
    const launched = await h.provider.create(
      nodeClaim('general-spq01', { capacityTypes: ['spot', 'on-demand'] }),
    );
    expect(launched.metadata.labels?.['karpenter.sh/capacity-type']).toBe('on-demand');
    expect(h.provider.unavailableOfferings.entries()).toEqual([
      expect.objectContaining({
        scope: { all: true },
        zone: ALL_ZONES,
        capacityType: 'spot',
        expiresAt: h.clock.ms + 3600_000,
      }),
    ]);
  });

  it('regional cores quota: InsufficientCapacityError at once, nothing cached, nothing left behind', async () => {
    h.arm.setQuota({ totalRegional: 1 });
    const err = await h.provider.create(nodeClaim('general-rq001')).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(InsufficientCapacityError);
    expect((err as Error).message).toContain('regional cores quota');
    expect(h.provider.unavailableOfferings.entries()).toEqual([]);
    expect(leftovers()).toEqual({ vms: 0, nics: 0, disks: 0 });
  });

  it('raises InsufficientCapacityError naming the tried offerings when none is left', async () => {
    h.arm.faults.capacity('ZonalAllocationFailed', { vmSize: 'Standard_D2s_v3' });
    const err = await h.provider
      .create(
        nodeClaim('general-ice01', {
          instanceTypes: ['Standard_D2s_v3'],
          zones: ['southcentralus-1', 'southcentralus-2'],
        }),
      )
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(InsufficientCapacityError);
    expect((err as InsufficientCapacityError).offerings.map((o) => o.zone).sort()).toEqual([
      'southcentralus-1',
      'southcentralus-2',
    ]);
    expect((err as Error).cause).toBeInstanceOf(CreateError);
    expect(leftovers()).toEqual({ vms: 0, nics: 0, disks: 0 });
  });

  it('with one attempt per create (upstream), the next create picks another offering', async () => {
    await h.stop();
    h = await startHarness({ maxLaunchAttempts: 1 });
    h.arm.faults.capacity('SkuNotAvailable', { vmSize: 'Standard_D2s_v3' }, { times: 1 });
    await expect(h.provider.create(nodeClaim('general-one01', twoFamilies))).rejects.toBeInstanceOf(
      InsufficientCapacityError,
    );
    expect(h.arm.state.requestsTo('PUT', '/virtualMachines/')).toHaveLength(1);
    const launched = await h.provider.create(nodeClaim('general-one01', twoFamilies));
    expect(launched.metadata.labels?.['node.kubernetes.io/instance-type']).toBe('Standard_D2_v5');
  });

  it('forgets entries when their TTL passes', async () => {
    h.arm.faults.capacity(
      'ZonalAllocationFailed',
      { vmSize: 'Standard_D2s_v3', zone: '2' },
      { times: 1 },
    );
    await h.provider.create(nodeClaim('general-ttl01', { instanceTypes: ['Standard_D2s_v3'] }));
    expect(entries()).toHaveLength(1);
    h.clock.advance(3600);
    expect(entries()).toHaveLength(0);
  });
});

describe('create: throttling, slow and late-failing operations, clean-up', () => {
  it('retries 429 responses after Retry-After and succeeds', async () => {
    h.arm.faults.throttle(
      { resourceType: 'virtualMachines', method: 'PUT' },
      { retryAfterSeconds: 0, times: 2 },
    );
    h.arm.faults.throttle(
      { resourceType: 'networkInterfaces', method: 'PUT' },
      { retryAfterSeconds: 1, times: 1 },
    );
    const launched = await h.provider.create(nodeClaim('general-thr01'));
    expect(launched.status?.providerID).toContain('aks-general-thr01');
    expect(h.arm.state.requests.filter((r) => r.status === 429)).toHaveLength(3);
  });

  it('gives up with CreateError when throttling outlasts the retries, and deletes the NIC', async () => {
    h.arm.faults.throttle(
      { resourceType: 'virtualMachines', method: 'PUT' },
      { retryAfterSeconds: 0 },
    );
    const err = await h.provider.create(nodeClaim('general-thr02')).catch((e: unknown) => e);
    expect(err).toMatchObject({ name: 'CreateError', reason: 'LaunchFailed' });
    expect((err as Error).message).toContain('TooManyRequests');
    expect(h.arm.state.networkInterfaces()).toHaveLength(0);
  });

  it('waits for slow operations (many InProgress polls)', async () => {
    h.arm.faults.slow({ resourceType: 'virtualMachines', method: 'PUT' }, 6);
    h.arm.faults.slow({ resourceType: 'networkInterfaces', method: 'PUT' }, 3);
    await h.provider.create(nodeClaim('general-slow1'));
    expect(h.arm.state.requestsTo('GET', '/Microsoft.Compute/locations/').length).toBe(7);
    expect(h.arm.state.requestsTo('GET', '/Microsoft.Network/locations/').length).toBe(4);
    expect(storedVm(h, 'aks-general-slow1')?.properties.provisioningState).toBe('Succeeded');
  });

  it('a VM operation that fails late with a non-capacity error: CreateError, VM and NIC deleted', async () => {
    h.arm.faults.failLate(
      { resourceType: 'virtualMachines', method: 'PUT' },
      'InternalExecutionError',
      'An internal execution error occurred.',
    );
    const err = await h.provider.create(nodeClaim('general-late1')).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(CreateError);
    expect(err).toMatchObject({
      reason: 'LaunchFailed',
      message: expect.stringContaining('InternalExecutionError'),
    });
    expect(h.arm.state.virtualMachines()).toHaveLength(0);
    expect(h.arm.state.networkInterfaces()).toHaveLength(0);
    expect(h.arm.state.disks()).toHaveLength(0);
  });

  it('a synchronous validation error: CreateError with ARM code; no NIC left', async () => {
    h.arm.faults.add({
      match: { resourceType: 'virtualMachines', method: 'PUT' },
      effect: {
        kind: 'error',
        status: 400,
        code: 'InvalidParameter',
        message: 'The value of parameter imageReference is invalid.',
      },
    });
    await expect(h.provider.create(nodeClaim('general-inv01'))).rejects.toMatchObject({
      name: 'CreateError',
      reason: 'LaunchFailed',
      message: expect.stringContaining(
        'InvalidParameter: The value of parameter imageReference is invalid.',
      ),
    });
    expect(h.arm.state.networkInterfaces()).toHaveLength(0);
  });

  it('a NIC that fails late is deleted', async () => {
    h.arm.faults.failLate(
      { resourceType: 'networkInterfaces', method: 'PUT' },
      'SubnetIsFull',
      'Subnet nodes has no free addresses.',
    );
    await expect(h.provider.create(nodeClaim('general-nic01'))).rejects.toMatchObject({
      reason: 'LaunchFailed',
    });
    expect(h.arm.state.networkInterfaces()).toHaveLength(0);
    expect(h.arm.state.virtualMachines()).toHaveLength(0);
  });

  it('a NIC whose clean-up fails stays tagged, so garbage collection finds and deletes it', async () => {
    // The VM PUT is refused before the NIC is attached, and deleting the NIC fails: the NIC is
    // left exactly as a crash between NIC and VM creation would leave it.
    h.arm.faults.add({
      match: { resourceType: 'virtualMachines', method: 'PUT' },
      effect: { kind: 'error', status: 400, code: 'InvalidParameter', message: 'bad' },
    });
    h.arm.faults.add({
      match: { resourceType: 'networkInterfaces', method: 'DELETE' },
      effect: { kind: 'error', status: 500, code: 'InternalServerError', message: 'try later' },
      times: 4,
    });
    await expect(h.provider.create(nodeClaim('general-leak1'))).rejects.toBeInstanceOf(CreateError);
    expect(h.warnings.map((w) => w.message)).toContain(
      'cleaning up failed launch: deleting NIC failed; garbage collection will retry',
    );
    expect(h.arm.state.networkInterfaces().map((n) => n.tags?.['karpenter.sh_nodeclaim'])).toEqual([
      'general-leak1',
    ]);
    const garbage = await h.provider.listGarbage(new Set());
    expect(garbage).toEqual({
      virtualMachines: [],
      providerIDs: [],
      networkInterfaces: ['aks-general-leak1'],
    });
    await h.provider.collectGarbage(new Set());
    expect(h.arm.state.networkInterfaces()).toHaveLength(0);
  });
});
