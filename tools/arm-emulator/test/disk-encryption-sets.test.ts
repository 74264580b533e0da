import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startArmEmulator, type ArmEmulator } from '../src/index.js';
import {
  RG,
  SUBNET_ID,
  SUBSCRIPTION,
  clients,
  control,
  nicBody,
  restError,
  vmBody,
} from './sdk-clients.js';

const fast = { updateIntervalInMs: 5 };
const DES_ID = `/subscriptions/${SUBSCRIPTION}/resourceGroups/security/providers/Microsoft.Compute/diskEncryptionSets/nodes-des`;

let emulator: ArmEmulator;
beforeEach(async () => {
  emulator = await startArmEmulator();
  emulator.putSubnet({ id: SUBNET_ID });
});
afterEach(async () => emulator.stop());

/** A NIC for VM `name`, created through the SDK. */
async function nic(name: string): Promise<string> {
  const { network } = clients(emulator);
  const created = await network.networkInterfaces.beginCreateOrUpdateAndWait(
    RG,
    name,
    nicBody(name),
    fast,
  );
  return created.id ?? '';
}

/** A VM body whose OS disk names `desId` as its disk encryption set. */
function encryptedVm(nicId: string, desId: string, ephemeral = false) {
  const body = vmBody(nicId, ephemeral ? { ephemeral: true, diskSizeGB: 50 } : {});
  return {
    ...body,
    storageProfile: {
      ...body.storageProfile,
      osDisk: { ...body.storageProfile.osDisk, managedDisk: { diskEncryptionSet: { id: desId } } },
    },
  };
}

describe('disk encryption sets through the real @azure/arm-compute SDK', () => {
  it('answers a disk encryption set put in place in ARM shape', async () => {
    emulator.putDiskEncryptionSet({
      id: DES_ID,
      keyUrl: 'https://security-kv.vault.azure.net/keys/disk/0123456789abcdef',
    });
    const { compute } = clients(emulator);
    // Names are case-insensitive in ARM.
    const des = await compute.diskEncryptionSets.get('SECURITY', 'Nodes-DES');
    expect(des).toMatchObject({
      id: DES_ID,
      name: 'nodes-des',
      type: 'Microsoft.Compute/diskEncryptionSets',
      location: 'southcentralus',
      identity: { type: 'SystemAssigned' },
      encryptionType: 'EncryptionAtRestWithCustomerKey',
      activeKey: { keyUrl: 'https://security-kv.vault.azure.net/keys/disk/0123456789abcdef' },
      provisioningState: 'Succeeded',
      rotationToLatestKeyVersionEnabled: false,
    });
    expect(des.identity?.principalId).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('a disk encryption set that does not exist is 404 ResourceNotFound naming it', async () => {
    const { compute } = clients(emulator);
    const err = await restError(compute.diskEncryptionSets.get('security', 'nodes-des'));
    expect(err).toMatchObject({ statusCode: 404, code: 'ResourceNotFound' });
    expect(err.message).toContain(
      "The Resource 'Microsoft.Compute/diskEncryptionSets/nodes-des' under resource group 'security' was not found.",
    );
  });

  it('answers 403 AuthorizationFailed with ARM text while an authorization fault lasts', async () => {
    emulator.putDiskEncryptionSet({ id: DES_ID });
    emulator.faults.authorizationFailed(
      { resourceType: 'diskEncryptionSets', method: 'GET' },
      { action: 'Microsoft.Compute/diskEncryptionSets/read', scope: DES_ID, times: 1 },
    );
    const { compute } = clients(emulator);
    const err = await restError(compute.diskEncryptionSets.get('security', 'nodes-des'));
    expect(err).toMatchObject({ statusCode: 403, code: 'AuthorizationFailed' });
    expect(err.message).toMatch(
      /^The client '[0-9a-f-]{36}' with object id '[0-9a-f-]{36}' does not have authorization to perform action 'Microsoft\.Compute\/diskEncryptionSets\/read' over scope '\/subscriptions\/.*\/diskEncryptionSets\/nodes-des' or the scope is invalid\. If access was recently granted, please refresh your credentials\.$/,
    );
    expect((await compute.diskEncryptionSets.get('security', 'nodes-des')).name).toBe('nodes-des');
  });

  it('removeDiskEncryptionSet and the control API put and remove sets; bad specs are refused', async () => {
    const { compute } = clients(emulator);
    expect(await control(emulator, 'PUT', '/_emulator/disk-encryption-sets', { id: DES_ID })).toBe(
      204,
    );
    expect((await compute.diskEncryptionSets.get('security', 'nodes-des')).id).toBe(DES_ID);
    const path = `/_emulator/disk-encryption-sets/${encodeURIComponent(DES_ID)}`;
    expect(await control(emulator, 'DELETE', path)).toBe(204);
    expect(await control(emulator, 'DELETE', path)).toBe(404);
    expect(emulator.state.diskEncryptionSets.ids()).toEqual([]);
    emulator.putDiskEncryptionSet({ id: DES_ID });
    expect(emulator.removeDiskEncryptionSet(DES_ID.toUpperCase())).toBe(true);
    expect(() => emulator.putDiskEncryptionSet({ id: '/diskEncryptionSets/x' })).toThrow(
      /not a disk encryption set ARM ID/,
    );
    expect(() => emulator.putDiskEncryptionSet({ id: DES_ID, keyUrl: 'http://kv/keys/k' })).toThrow(
      /not a Key Vault key URL/,
    );
    expect(await control(emulator, 'PUT', '/_emulator/disk-encryption-sets', { id: 'nope' })).toBe(
      400,
    );
  });
});

describe('a VM PUT naming a disk encryption set', () => {
  it('creates the managed OS disk encrypted with the customer key of an existing set', async () => {
    emulator.putDiskEncryptionSet({ id: DES_ID });
    const { compute } = clients(emulator);
    const vm = await compute.virtualMachines.createOrUpdate(
      RG,
      'aks-des',
      encryptedVm(await nic('aks-des'), DES_ID),
      fast,
    );
    expect(vm.provisioningState).toBe('Succeeded');
    expect(vm.storageProfile?.osDisk?.managedDisk?.diskEncryptionSet?.id).toBe(DES_ID);
    const disk = await compute.disks.get(RG, 'osdisk-x');
    expect(disk.encryption).toEqual({
      type: 'EncryptionAtRestWithCustomerKey',
      diskEncryptionSetId: DES_ID,
    });
  });

  it('without a set, the managed OS disk is encrypted with the platform key', async () => {
    const { compute } = clients(emulator);
    await compute.virtualMachines.createOrUpdate(RG, 'aks-pmk', vmBody(await nic('aks-pmk')), fast);
    expect((await compute.disks.get(RG, 'osdisk-x')).encryption).toEqual({
      type: 'EncryptionAtRestWithPlatformKey',
    });
  });

  it('refuses a set that does not exist (400 BadRequest naming it) and creates nothing', async () => {
    const { compute } = clients(emulator);
    const missing = DES_ID.replace('nodes-des', 'gone');
    const err = await restError(
      compute.virtualMachines.createOrUpdate(
        RG,
        'aks-nodes',
        encryptedVm(await nic('aks-nodes'), missing),
        fast,
      ),
    );
    expect(err).toMatchObject({
      statusCode: 400,
      code: 'BadRequest',
      message: `DiskEncryptionSet '${missing}' was not found.`,
    });
    expect(emulator.state.virtualMachines()).toEqual([]);
    expect(emulator.state.disks()).toEqual([]);
  });

  it('refuses a set ID that is not an ARM ID (400 LinkedInvalidPropertyId)', async () => {
    const { compute } = clients(emulator);
    const err = await restError(
      compute.virtualMachines.createOrUpdate(
        RG,
        'aks-bad',
        encryptedVm(await nic('aks-bad'), 'nodes-des'),
        fast,
      ),
    );
    expect(err).toMatchObject({ statusCode: 400, code: 'LinkedInvalidPropertyId' });
    expect(err.message).toContain(
      "Property id 'nodes-des' at path 'properties.storageProfile.osDisk.managedDisk.diskEncryptionSet.id' is invalid.",
    );
  });

  it('accepts a set on an ephemeral OS disk (kept on the VM; no managed disk is created)', async () => {
    emulator.putDiskEncryptionSet({ id: DES_ID });
    const { compute } = clients(emulator);
    const vm = await compute.virtualMachines.createOrUpdate(
      RG,
      'aks-eph',
      encryptedVm(await nic('aks-eph'), DES_ID, true),
      fast,
    );
    expect(vm.storageProfile?.osDisk?.diffDiskSettings?.option).toBe('Local');
    expect(vm.storageProfile?.osDisk?.managedDisk?.diskEncryptionSet?.id).toBe(DES_ID);
    expect(emulator.state.disks()).toEqual([]);
  });
});
