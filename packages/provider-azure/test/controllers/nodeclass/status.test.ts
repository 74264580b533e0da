// The AKSNodeClass status controller with the in-memory KubeClient, provider-azure's real image
// family resolution and NodeImageResolver, an in-memory community gallery behind the resolver's
// `communityGalleryImageVersions.list`, and the real subnet check over the real
// @azure/arm-network SDK against the ARM emulator's subnets.
import type { CommunityGalleryImageVersion } from '@azure/arm-compute';
import type { NodeClaim } from '@karpenter-ts/api';
import { startArmEmulator, type ArmEmulator } from '@karpenter-ts/arm-emulator';
import { NodeClassNotReadyError } from '@karpenter-ts/cloudprovider';
import {
  ManualClock,
  MemoryKubeClient,
  type NodeClassObject,
  type ReconcileResult,
} from '@karpenter-ts/controllers';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import {
  MaintenanceWindowEndKey,
  MaintenanceWindowStartKey,
  NodeImageResolver,
  apiServerVersion,
  cachedKubernetesVersion,
  checkSubnetReadiness,
  maintenanceWindowOpen,
  reconcileAKSNodeClass,
  validateDiskEncryptionSet,
  type AKSNodeClass,
  type AKSNodeClassStatus,
  type AKSNodeClassStatusContext,
  type ArmClients,
  type AzureCloudProvider,
  type NodeImageResolverOptions,
} from '../../../src/index.js';
import { emulatorArmClients, emulatorAzureProvider, launchableNodeClaim } from '../emulator.js';

const DAY = 24 * 3600;
const kind = { group: 'karpenter.azure.com', kind: 'AKSNodeClass' };
const SUBSCRIPTION = '00000000-0000-0000-0000-0000000000cc';
const NODE_RG = 'MC_rg_nodeclass_southcentralus';
const VNET = `/subscriptions/${SUBSCRIPTION}/resourceGroups/net/providers/Microsoft.Network/virtualNetworks/vnet`;
/** `--vnet-subnet-id`: the cluster subnet, on the cluster's own VNet. */
const CLUSTER_SUBNET = `${VNET}/subnets/nodes`;

let arm: ArmEmulator;
let armClients: ArmClients;
beforeAll(async () => {
  arm = await startArmEmulator();
  armClients = emulatorArmClients(arm, SUBSCRIPTION);
});
afterAll(async () => arm?.stop());
/** Subnet GETs the emulator answered so far (its request log spans the file's tests). */
const subnetGets = () => arm.state.requestsTo('GET', '/subnets/').length;
afterEach(() => {
  arm.faults.clear();
  for (const id of arm.state.subnets.ids()) arm.removeSubnet(id);
  for (const id of arm.state.diskEncryptionSets.ids()) arm.removeDiskEncryptionSet(id);
});

/** The controller's subnet check against the emulator, for cluster subnet `clusterSubnetID`. */
function subnetCheck(clusterSubnetID = CLUSTER_SUBNET): AKSNodeClassStatusContext['subnets'] {
  return (spec) =>
    checkSubnetReadiness(
      {
        subnets: (s) => armClients.subnets(s),
        clusterSubnetID,
        nodeResourceGroup: NODE_RG,
      },
      spec,
    );
}

/** A disk encryption set of the cluster, in its own resource group. */
const DES = `/subscriptions/${SUBSCRIPTION}/resourceGroups/security/providers/Microsoft.Compute/diskEncryptionSets/nodes-des`;
/** Disk encryption set GETs the emulator answered so far. */
const desGets = () => arm.state.requestsTo('GET', '/diskEncryptionSets/').length;

/** The controller's disk encryption set check against the emulator, for `NODE_OSDISK_DISKENCRYPTIONSET_ID`. */
function desCheck(
  diskEncryptionSetID: string | undefined,
): AKSNodeClassStatusContext['diskEncryptionSet'] {
  return () =>
    validateDiskEncryptionSet({
      diskEncryptionSets: (s) => armClients.diskEncryptionSets(s),
      diskEncryptionSetID,
    });
}

/** An in-memory community gallery: definition -> versions. */
class Gallery {
  readonly versions = new Map<string, CommunityGalleryImageVersion[]>();
  failing = false;
  lists = 0;
  publish(definition: string, name: string, publishedDate: string): void {
    const list = this.versions.get(definition) ?? [];
    list.push({ name, publishedDate: new Date(publishedDate) });
    this.versions.set(definition, list);
  }
  readonly compute: NodeImageResolverOptions['compute'] = {
    communityGalleryImageVersions: {
      list: (_location: string, _gallery: string, image: string) => {
        this.lists += 1;
        const versions = this.versions.get(image) ?? [];
        const failing = this.failing;
        return (async function* () {
          if (failing) throw new Error('ARM is down');
          yield* versions;
        })();
      },
    } as unknown as NodeImageResolverOptions['compute']['communityGalleryImageVersions'],
  };
}

let clock: ManualClock;
let client: MemoryKubeClient;
let gallery: Gallery;
let serverVersion: string;
let window: Record<string, string> | undefined;
let ctx: AKSNodeClassStatusContext;

beforeEach(() => {
  clock = new ManualClock(Date.parse('2025-06-01T00:00:00Z'));
  client = new MemoryKubeClient({ clock });
  gallery = new Gallery();
  for (const d of [
    '2204gen2containerd',
    '2204containerd',
    '2404gen2containerd',
    '2404containerd',
    '2404gen2arm64containerd',
  ]) {
    gallery.publish(d, '202504.01.0', '2025-04-02T00:00:00Z');
    gallery.publish(d, '202505.01.0', '2025-05-02T00:00:00Z');
  }
  serverVersion = '1.33.2';
  window = undefined;
  arm.putSubnet({ id: CLUSTER_SUBNET });
  ctx = {
    client,
    clock,
    kubernetesVersion: async () => serverVersion,
    images: new NodeImageResolver({ compute: gallery.compute, location: 'eastus', clock }),
    subnets: subnetCheck(),
    diskEncryptionSet: desCheck(undefined),
    maintenanceWindow: async () => window,
  };
});

async function createNodeClass(spec: AKSNodeClass['spec'] = { imageFamily: 'Ubuntu' }) {
  await client.create('NodeClass', {
    apiVersion: 'karpenter.azure.com/v1beta1',
    kind: 'AKSNodeClass',
    metadata: { name: 'default' },
    spec: spec as Record<string, unknown>,
  });
}

async function stored(): Promise<NodeClassObject & { status?: AKSNodeClassStatus }> {
  const o = await client.get('NodeClass', { name: 'default', nodeClass: kind });
  if (!o) throw new Error('NodeClass missing');
  return o as NodeClassObject & { status?: AKSNodeClassStatus };
}

const reconcile = (): Promise<ReconcileResult> => reconcileAKSNodeClass(ctx, 'default');
const condition = async (type: string) =>
  (await stored()).status?.conditions?.find((c) => c.type === type);
/** `definition@version` of each status image, in order. */
const images = async () =>
  ((await stored()).status?.images ?? []).map((i) => {
    const parts = i.id.split('/');
    return `${parts[4]}@${parts[6]}`;
  });

/** A maintenance window from `start` to `end` (RFC 3339). */
function maintenance(start: string, end: string): void {
  window = { [MaintenanceWindowStartKey]: start, [MaintenanceWindowEndKey]: end };
}

describe('AKSNodeClass status controller', () => {
  it('writes the Kubernetes version, the newest images and six True conditions at the generation', async () => {
    await createNodeClass();
    const gets = subnetGets();
    expect(await reconcile()).toEqual({ requeueAfter: 180 });
    const nc = await stored();
    expect(nc.status?.kubernetesVersion).toBe('1.33.2');
    expect(await images()).toEqual([
      '2204gen2containerd@202505.01.0',
      '2204containerd@202505.01.0',
    ]);
    expect(nc.status?.images?.[1]?.requirements).toEqual([
      { key: 'kubernetes.io/arch', operator: 'In', values: ['amd64'] },
      { key: 'karpenter.azure.com/sku-hyperv-generation', operator: 'In', values: ['1'] },
    ]);
    for (const type of [
      'KubernetesVersionReady',
      'ImagesReady',
      'SubnetsReady',
      'ValidationSucceeded',
      'LocalDNSReady',
      'Ready',
    ])
      expect(await condition(type)).toMatchObject({
        status: 'True',
        observedGeneration: nc.metadata.generation,
        lastTransitionTime: '2025-06-01T00:00:00.000Z',
      });
    // The cluster subnet was looked up in ARM.
    expect(subnetGets() - gets).toBe(1);
    expect(await condition('ValidationSucceeded')).toMatchObject({
      reason: 'NoDiskEncryptionSet',
      message: expect.stringContaining('nothing to validate'),
    });
    expect(nc.status?.localDNSState).toBe('Disabled');
  });

  it('writes nothing when nothing changed', async () => {
    await createNodeClass();
    await reconcile();
    const version = (await stored()).metadata.resourceVersion;
    clock.advance(180);
    expect(await reconcile()).toEqual({ requeueAfter: 180 });
    expect((await stored()).metadata.resourceVersion).toBe(version);
  });

  it('outside the maintenance window keeps each definition version and only adds new definitions', async () => {
    serverVersion = '1.34.1'; // Ubuntu 24.04: Gen2, Gen1, arm64
    gallery.versions.delete('2404gen2arm64containerd');
    await createNodeClass();
    await reconcile();
    expect(await images()).toEqual([
      '2404gen2containerd@202505.01.0',
      '2404containerd@202505.01.0',
    ]);

    maintenance('2025-07-01T00:00:00Z', '2025-07-01T04:00:00Z');
    for (const d of ['2404gen2containerd', '2404containerd', '2404gen2arm64containerd'])
      gallery.publish(d, '202506.01.0', '2025-06-02T00:00:00Z');
    clock.advance(3 * DAY); // past the resolver's cache
    await reconcile();
    expect(await images()).toEqual([
      '2404gen2containerd@202505.01.0',
      '2404containerd@202505.01.0',
      '2404gen2arm64containerd@202506.01.0',
    ]);

    clock.set(Date.parse('2025-07-01T01:00:00Z')); // inside the window
    await reconcile();
    expect(await images()).toEqual([
      '2404gen2containerd@202506.01.0',
      '2404containerd@202506.01.0',
      '2404gen2arm64containerd@202506.01.0',
    ]);
  });

  it('without a maintenance window ConfigMap (or its keys) moves to the newest versions', async () => {
    await createNodeClass();
    await reconcile();
    gallery.publish('2204gen2containerd', '202506.01.0', '2025-06-02T00:00:00Z');
    clock.advance(3 * DAY);
    window = { unrelated: 'x' };
    await reconcile();
    expect((await images())[0]).toBe('2204gen2containerd@202506.01.0');
  });

  it('refreshes every version when ImagesReady is not True, even with the window closed', async () => {
    maintenance('2030-01-01T00:00:00Z', '2030-01-01T04:00:00Z');
    gallery.versions.clear();
    await createNodeClass();
    await reconcile();
    expect(await condition('ImagesReady')).toMatchObject({
      status: 'False',
      reason: 'ImagesNotFound',
    });
    expect(await condition('Ready')).toMatchObject({ status: 'False', reason: 'ImagesNotFound' });
    expect((await stored()).status?.images).toEqual([]);

    gallery.publish('2204gen2containerd', '202506.01.0', '2025-06-02T00:00:00Z');
    gallery.publish('2204containerd', '202506.01.0', '2025-06-02T00:00:00Z');
    await reconcile(); // nothing was cached for a failure
    expect(await images()).toEqual([
      '2204gen2containerd@202506.01.0',
      '2204containerd@202506.01.0',
    ]);
    expect(await condition('Ready')).toMatchObject({ status: 'True' });
  });

  it('on a Kubernetes upgrade takes fresh images for the new version despite a closed window', async () => {
    maintenance('2030-01-01T00:00:00Z', '2030-01-01T04:00:00Z');
    serverVersion = '1.34.0';
    await createNodeClass();
    await reconcile();
    expect((await images())[0]).toBe('2404gen2containerd@202505.01.0');
    // A patch upgrade keeps the family; the images still move to the newest.
    serverVersion = '1.34.1';
    gallery.publish('2404gen2containerd', '202506.01.0', '2025-06-02T00:00:00Z');
    await reconcile();
    expect((await stored()).status?.kubernetesVersion).toBe('1.34.1');
    expect(await images()).toEqual([
      '2404gen2containerd@202506.01.0',
      '2404containerd@202505.01.0',
      '2404gen2arm64containerd@202505.01.0',
    ]);
    expect(await condition('ImagesReady')).toMatchObject({ status: 'True' });
  });

  it('on an upgrade across Ubuntu versions switches to the new family images', async () => {
    await createNodeClass();
    await reconcile();
    expect(await images()).toEqual([
      '2204gen2containerd@202505.01.0',
      '2204containerd@202505.01.0',
    ]);
    serverVersion = '1.34.0'; // Ubuntu now resolves to 24.04
    await reconcile();
    expect((await images())[0]).toBe('2404gen2containerd@202505.01.0');
  });

  it('never moves the Kubernetes version back', async () => {
    serverVersion = '1.34.2';
    await createNodeClass();
    await reconcile();
    serverVersion = '1.34.1';
    await reconcile();
    expect((await stored()).status?.kubernetesVersion).toBe('1.34.2');
    expect(await condition('KubernetesVersionReady')).toMatchObject({ status: 'True' });
  });

  it('marks ImagesReady False (KubernetesUpgrade) and keeps the images when the upgrade listing fails', async () => {
    await createNodeClass();
    await reconcile();
    const before = await images();
    serverVersion = '1.34.0';
    gallery.failing = true;
    await expect(reconcile()).rejects.toThrow('ARM is down');
    expect((await stored()).status?.kubernetesVersion).toBe('1.34.0');
    expect(await images()).toEqual(before);
    expect(await condition('ImagesReady')).toMatchObject({
      status: 'False',
      reason: 'KubernetesUpgrade',
    });
    expect(await condition('Ready')).toMatchObject({
      status: 'False',
      reason: 'KubernetesUpgrade',
    });
    gallery.failing = false;
    await reconcile();
    expect((await images())[0]).toBe('2404gen2containerd@202505.01.0');
    expect(await condition('Ready')).toMatchObject({ status: 'True' });
  });

  it('raises a failed listing and leaves ready images and conditions as they were', async () => {
    await createNodeClass();
    await reconcile();
    const before = (await stored()).status;
    clock.advance(3 * DAY);
    gallery.failing = true;
    await expect(reconcile()).rejects.toThrow('ARM is down');
    expect((await stored()).status).toEqual(before);
  });

  it('refuses FIPS with SIGRequiredForFIPS and never lists the gallery', async () => {
    await createNodeClass({ imageFamily: 'AzureLinux', fipsMode: 'FIPS' });
    await reconcile();
    expect(await condition('ImagesReady')).toMatchObject({
      status: 'False',
      reason: 'SIGRequiredForFIPS',
      message: expect.stringContaining('shared image gallery'),
    });
    expect(gallery.lists).toBe(0);
  });

  it('follows a spec change: new observedGeneration, images of the new family', async () => {
    await createNodeClass();
    await reconcile();
    const nc = await stored();
    await client.update('NodeClass', {
      ...nc,
      spec: { imageFamily: 'Ubuntu', security: { trustedLaunch: { vtpm: true } } },
    });
    gallery.publish('2204gen2TLcontainerd', '202505.01.0', '2025-05-02T00:00:00Z');
    await reconcile();
    const after = await stored();
    expect(after.metadata.generation).toBe((nc.metadata.generation ?? 0) + 1);
    expect(await images()).toEqual(['2204gen2TLcontainerd@202505.01.0']);
    expect(await condition('Ready')).toMatchObject({
      status: 'True',
      observedGeneration: after.metadata.generation,
    });
  });

  it('leaves a missing or deleting NodeClass alone', async () => {
    expect(await reconcile()).toEqual({});
  });
});

describe('AKSNodeClass SubnetsReady, ValidationSucceeded, LocalDNSReady', () => {
  it('a subnet that does not exist: SubnetsReady and Ready False SubnetNotFound (images still resolved), Ready once it exists', async () => {
    const missing = `${VNET}/subnets/batch`;
    await createNodeClass({ imageFamily: 'Ubuntu', vnetSubnetID: missing });
    expect(await reconcile()).toEqual({ requeueAfter: 180 });
    const notFound = {
      status: 'False',
      reason: 'SubnetNotFound',
      message: `subnet ${missing} not found`,
    };
    expect(await condition('SubnetsReady')).toMatchObject(notFound);
    expect(await condition('Ready')).toMatchObject(notFound);
    expect(await condition('ImagesReady')).toMatchObject({ status: 'True' });
    expect(await images()).toHaveLength(2);

    arm.putSubnet({ id: missing });
    clock.advance(180);
    await reconcile();
    expect(await condition('SubnetsReady')).toMatchObject({ status: 'True' });
    expect(await condition('Ready')).toMatchObject({
      status: 'True',
      lastTransitionTime: '2025-06-01T00:03:00.000Z',
    });
  });

  it('a custom subnet outside the cluster VNet: Ready False SubnetIDInvalid, without an ARM call', async () => {
    const elsewhere = `/subscriptions/${SUBSCRIPTION}/resourceGroups/net/providers/Microsoft.Network/virtualNetworks/other/subnets/nodes`;
    arm.putSubnet({ id: elsewhere });
    await createNodeClass({ imageFamily: 'Ubuntu', vnetSubnetID: elsewhere });
    const gets = subnetGets();
    await reconcile();
    expect(await condition('Ready')).toMatchObject({
      status: 'False',
      reason: 'SubnetIDInvalid',
      message: expect.stringContaining(`does not match the cluster VNet ${VNET}`),
    });
    expect(subnetGets()).toBe(gets);
  });

  it('a --vnet-subnet-id that is not a subnet ARM ID: Ready False SubnetIDInvalid naming the setting', async () => {
    ctx = { ...ctx, subnets: subnetCheck(`${VNET}/nodes`) };
    await createNodeClass();
    await reconcile();
    expect(await condition('SubnetsReady')).toMatchObject({
      status: 'False',
      reason: 'SubnetIDInvalid',
      message: expect.stringMatching(/^--vnet-subnet-id ".*" is not a subnet ARM ID/),
    });
  });

  it('an ARM failure other than 404: SubnetUnknownError with its message, tried again after 1 minute', async () => {
    const objectId = '11111111-2222-3333-4444-555555555555';
    arm.faults.authorizationFailed(
      { resourceType: 'subnets' },
      {
        action: 'Microsoft.Network/virtualNetworks/subnets/read',
        scope: CLUSTER_SUBNET,
        objectId,
        times: 1,
      },
    );
    await createNodeClass();
    expect(await reconcile()).toEqual({ requeueAfter: 60 });
    expect(await condition('Ready')).toMatchObject({
      status: 'False',
      reason: 'SubnetUnknownError',
      message: `getting subnet ${CLUSTER_SUBNET}: AuthorizationFailed: The client '${objectId}' with object id '${objectId}' does not have authorization to perform action 'Microsoft.Network/virtualNetworks/subnets/read' over scope '${CLUSTER_SUBNET}' or the scope is invalid. If access was recently granted, please refresh your credentials.`,
    });
    clock.advance(60);
    expect(await reconcile()).toEqual({ requeueAfter: 180 });
    expect(await condition('Ready')).toMatchObject({ status: 'True' });
  });

  it('LocalDNS Required is Enabled; Preferred is Disabled with a reason, but stays Enabled once Enabled', async () => {
    await createNodeClass({ imageFamily: 'Ubuntu', localDNS: { mode: 'Preferred' } });
    await reconcile();
    expect((await stored()).status?.localDNSState).toBe('Disabled');
    expect(await condition('LocalDNSReady')).toMatchObject({
      status: 'True',
      reason: 'PreferredResolvedDisabled',
    });
    expect(await condition('Ready')).toMatchObject({ status: 'True' });

    const setMode = async (mode: 'Required' | 'Preferred' | 'Disabled') => {
      const nc = await stored();
      await client.update('NodeClass', {
        ...nc,
        spec: { imageFamily: 'Ubuntu', localDNS: { mode } },
      });
      await reconcile();
      return (await stored()).status?.localDNSState;
    };
    expect(await setMode('Required')).toBe('Enabled');
    expect(await condition('LocalDNSReady')).toMatchObject({
      status: 'True',
      reason: 'LocalDNSReady',
    });
    expect(await setMode('Preferred')).toBe('Enabled');
    expect(await condition('LocalDNSReady')).toMatchObject({ reason: 'PreferredStaysEnabled' });
    expect(await setMode('Disabled')).toBe('Disabled');
  });
});

describe('AKSNodeClass ValidationSucceeded: the disk encryption set (NODE_OSDISK_DISKENCRYPTIONSET_ID)', () => {
  beforeEach(() => {
    arm.putDiskEncryptionSet({ id: DES });
    ctx = { ...ctx, diskEncryptionSet: desCheck(DES) };
  });

  it('True when the controller can read the set (one GET per pass); Ready True', async () => {
    await createNodeClass();
    const gets = desGets();
    expect(await reconcile()).toEqual({ requeueAfter: 180 });
    expect(await condition('ValidationSucceeded')).toMatchObject({
      status: 'True',
      reason: 'ValidationSucceeded',
      message: `disk encryption set ${DES} is readable`,
    });
    expect(await condition('Ready')).toMatchObject({ status: 'True' });
    expect(desGets() - gets).toBe(1);
  });

  it('403 AuthorizationFailed: False DiskEncryptionSetRBACMissing naming the Reader role and the set, Ready False, checked again after 1 minute', async () => {
    arm.faults.authorizationFailed(
      { resourceType: 'diskEncryptionSets', method: 'GET' },
      { action: 'Microsoft.Compute/diskEncryptionSets/read', scope: DES, times: 1 },
    );
    await createNodeClass();
    expect(await reconcile()).toEqual({ requeueAfter: 60 });
    const missing = {
      status: 'False',
      reason: 'DiskEncryptionSetRBACMissing',
      message: expect.stringContaining(
        `the controller's identity has no Reader role on disk encryption set ${DES}`,
      ),
    };
    expect(await condition('ValidationSucceeded')).toMatchObject(missing);
    expect(await condition('Ready')).toMatchObject(missing);
    // The other conditions are still decided.
    expect(await condition('ImagesReady')).toMatchObject({ status: 'True' });
    expect(await condition('SubnetsReady')).toMatchObject({ status: 'True' });

    // Reader granted (the fault was for one request): True at the next pass.
    clock.advance(60);
    expect(await reconcile()).toEqual({ requeueAfter: 180 });
    expect(await condition('ValidationSucceeded')).toMatchObject({ status: 'True' });
    expect(await condition('Ready')).toMatchObject({
      status: 'True',
      lastTransitionTime: '2025-06-01T00:01:00.000Z',
    });
  });

  it('a set that does not exist: False DiskEncryptionSetNotFound naming it', async () => {
    arm.removeDiskEncryptionSet(DES);
    await createNodeClass();
    expect(await reconcile()).toEqual({ requeueAfter: 60 });
    expect(await condition('Ready')).toMatchObject({
      status: 'False',
      reason: 'DiskEncryptionSetNotFound',
      message: `disk encryption set ${DES} (NODE_OSDISK_DISKENCRYPTIONSET_ID) not found`,
    });
  });

  it('any other ARM failure: False DiskEncryptionSetUnknownError with ARM code and message, retried after 1 minute', async () => {
    arm.faults.add({
      match: { resourceType: 'diskEncryptionSets' },
      effect: { kind: 'error', status: 500, code: 'InternalServerError', message: 'try later' },
      times: 2, // the SDK retries once
    });
    await createNodeClass();
    expect(await reconcile()).toEqual({ requeueAfter: 60 });
    expect(await condition('ValidationSucceeded')).toMatchObject({
      status: 'False',
      reason: 'DiskEncryptionSetUnknownError',
      message: `getting disk encryption set ${DES}: InternalServerError: try later`,
    });
    clock.advance(60);
    await reconcile();
    expect(await condition('Ready')).toMatchObject({ status: 'True' });
  });
});

describe('create follows Ready', () => {
  /** Images from the emulator's gallery, so the VM create accepts them. */
  beforeEach(() => {
    ctx = {
      ...ctx,
      images: new NodeImageResolver({
        compute: armClients.compute,
        location: 'southcentralus',
        clock,
      }),
    };
  });

  /** The provider over the emulator, with the operator's disk encryption set when given. */
  function provider(diskEncryptionSetID?: string): AzureCloudProvider {
    return emulatorAzureProvider({
      clients: armClients,
      subscriptionId: SUBSCRIPTION,
      nodeResourceGroup: NODE_RG,
      clusterName: 'nodeclass-cluster',
      vnetSubnetID: CLUSTER_SUBNET,
      ...(diskEncryptionSetID !== undefined ? { diskEncryptionSetID } : {}),
      getNodeClass: async (name) =>
        (await client.get('NodeClass', { name, nodeClass: kind })) as AKSNodeClass | undefined,
    });
  }

  const puts = () => arm.state.requests.filter((r) => r.method === 'PUT').length;

  /** The error `create` rejects with, after checking it sent no PUT. */
  async function refused(p: AzureCloudProvider, c: NodeClaim): Promise<unknown> {
    const before = puts();
    const err = await p.create(c).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(puts()).toBe(before);
    return err;
  }

  it('refuses (NodeClassNotReady) a NodeClass whose subnet is missing, launching nothing; launches once SubnetsReady', async () => {
    const missing = `${VNET}/subnets/batch`;
    await createNodeClass({ imageFamily: 'Ubuntu', vnetSubnetID: missing });
    await reconcile();
    expect(await condition('Ready')).toMatchObject({ status: 'False', reason: 'SubnetNotFound' });

    const p = provider();
    const err = await refused(p, launchableNodeClaim('general-sub01'));
    expect(err).toBeInstanceOf(NodeClassNotReadyError);
    expect((err as Error).message).toContain(`subnet ${missing} not found`);

    arm.putSubnet({ id: missing });
    await reconcile();
    expect(await condition('Ready')).toMatchObject({ status: 'True' });
    const launched = await p.create(launchableNodeClaim('general-sub01'));
    expect(launched.status?.providerID).toContain('/virtualMachines/aks-general-sub01');
    const nic = arm.state.networkInterfaces(NODE_RG)[0];
    expect(JSON.stringify(nic?.properties['ipConfigurations'])).toContain(missing);
  });

  it('refuses while ValidationSucceeded is False (no Reader on the disk encryption set); once granted, launches with the set on the OS disk', async () => {
    arm.putDiskEncryptionSet({ id: DES });
    ctx = { ...ctx, diskEncryptionSet: desCheck(DES) };
    arm.faults.authorizationFailed(
      { resourceType: 'diskEncryptionSets', method: 'GET' },
      { action: 'Microsoft.Compute/diskEncryptionSets/read', scope: DES, times: 1 },
    );
    await createNodeClass();
    await reconcile();
    expect(await condition('Ready')).toMatchObject({
      status: 'False',
      reason: 'DiskEncryptionSetRBACMissing',
    });

    const p = provider(DES);
    const err = await refused(p, launchableNodeClaim('general-des01'));
    expect(err).toBeInstanceOf(NodeClassNotReadyError);
    expect((err as Error).message).toContain(`no Reader role on disk encryption set ${DES}`);

    clock.advance(60);
    await reconcile();
    expect(await condition('Ready')).toMatchObject({ status: 'True' });
    await p.create(launchableNodeClaim('general-des01'));
    const vm = arm.state.virtualMachines(NODE_RG).find((v) => v.name === 'aks-general-des01');
    expect(JSON.stringify(vm?.properties['storageProfile'])).toContain(
      `"diskEncryptionSet":{"id":"${DES}"}`,
    );
    const disk = arm.state.disks(NODE_RG).find((d) => d.name === 'aks-general-des01');
    expect(disk?.properties['encryption']).toEqual({
      type: 'EncryptionAtRestWithCustomerKey',
      diskEncryptionSetId: DES,
    });
  });
});

describe('maintenance window', () => {
  const now = Date.parse('2025-06-01T02:00:00Z');
  it('is open without a ConfigMap or without a start or end key', () => {
    expect(maintenanceWindowOpen(undefined, now)).toBe(true);
    expect(maintenanceWindowOpen({}, now)).toBe(true);
    expect(
      maintenanceWindowOpen({ [MaintenanceWindowStartKey]: '2030-01-01T00:00:00Z' }, now),
    ).toBe(true);
  });

  it('is open from start (inclusive) to end (exclusive)', () => {
    const w = (start: string, end: string) => ({
      [MaintenanceWindowStartKey]: start,
      [MaintenanceWindowEndKey]: end,
    });
    expect(maintenanceWindowOpen(w('2025-06-01T01:00:00Z', '2025-06-01T03:00:00Z'), now)).toBe(
      true,
    );
    expect(maintenanceWindowOpen(w('2025-06-01T02:00:00Z', '2025-06-01T03:00:00Z'), now)).toBe(
      true,
    );
    expect(maintenanceWindowOpen(w('2025-06-01T00:00:00Z', '2025-06-01T02:00:00Z'), now)).toBe(
      false,
    );
    expect(maintenanceWindowOpen(w('2025-06-02T00:00:00+02:00', '2025-06-02T04:00:00Z'), now)).toBe(
      false,
    );
  });

  it('names the key of a value that is not an RFC 3339 time', () => {
    expect(() =>
      maintenanceWindowOpen(
        {
          [MaintenanceWindowStartKey]: 'tomorrow',
          [MaintenanceWindowEndKey]: '2030-01-01T00:00:00Z',
        },
        now,
      ),
    ).toThrow(/aksManagedNodeOSUpgradeSchedule-start must be an RFC 3339 time, got "tomorrow"/);
  });
});

describe('cachedKubernetesVersion', () => {
  it('asks the API server again only after 15 minutes', async () => {
    const c = new ManualClock();
    let asked = 0;
    const version = cachedKubernetesVersion(async () => `1.34.${asked++}`, c);
    expect(await version()).toBe('1.34.0');
    c.advance(899);
    expect(await version()).toBe('1.34.0');
    c.advance(1);
    expect(await version()).toBe('1.34.1');
  });
});

describe('apiServerVersion', () => {
  it("reads GET /version's gitVersion as major.minor.patch, without the v and any suffix", async () => {
    const paths: string[] = [];
    const get = async (_method: 'GET', path: string) => {
      paths.push(path);
      return { gitVersion: 'v1.36.3+k3s1', major: '1', minor: '36' };
    };
    expect(await apiServerVersion(get)).toBe('1.36.3');
    expect(paths).toEqual(['/version']);
  });

  it('raises naming an unreadable gitVersion, and what the API request raised', async () => {
    await expect(apiServerVersion(async () => ({ gitVersion: 'latest' }))).rejects.toThrow(
      'API server /version gitVersion "latest" is unreadable',
    );
    await expect(apiServerVersion(async () => ({}))).rejects.toThrow(
      'API server /version gitVersion undefined is unreadable',
    );
    await expect(
      apiServerVersion(() => Promise.reject(new Error('connect ECONNREFUSED'))),
    ).rejects.toThrow('ECONNREFUSED');
  });
});
