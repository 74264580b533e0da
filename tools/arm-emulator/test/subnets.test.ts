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
} from './sdk-clients.js';

let emulator: ArmEmulator;
beforeEach(async () => {
  emulator = await startArmEmulator();
});
afterEach(async () => emulator.stop());

describe('subnets through the real @azure/arm-network SDK', () => {
  it('answers a subnet put in place in ARM shape, listing the IP configurations of its NICs', async () => {
    emulator.putSubnet({ id: SUBNET_ID });
    const { network } = clients(emulator);
    const before = await network.subnets.get('rg', 'vnet', 'nodes');
    expect(before).toMatchObject({
      id: SUBNET_ID,
      name: 'nodes',
      type: 'Microsoft.Network/virtualNetworks/subnets',
      addressPrefix: '10.224.0.0/16',
      provisioningState: 'Succeeded',
      privateEndpointNetworkPolicies: 'Disabled',
    });
    expect(before.etag).toMatch(/^W\/"/);
    expect(before.ipConfigurations).toBeUndefined();
    const nic = await network.networkInterfaces.beginCreateOrUpdateAndWait(
      RG,
      'aks-s',
      nicBody('aks-s'),
      { updateIntervalInMs: 5 },
    );
    // Names are case-insensitive in ARM.
    const after = await network.subnets.get('RG', 'VNET', 'Nodes');
    expect(after.ipConfigurations?.map((c) => c.id)).toEqual([nic.ipConfigurations?.[0]?.id]);
  });

  it('a missing subnet of an existing network is 404 NotFound naming the subnet ID', async () => {
    emulator.putSubnet({ id: SUBNET_ID, addressPrefix: '10.1.0.0/24' });
    const { network } = clients(emulator);
    const err = await restError(network.subnets.get('rg', 'vnet', 'other'));
    expect(err.statusCode).toBe(404);
    expect(err.code).toBe('NotFound');
    expect(err.message).toBe(
      `Resource /subscriptions/${SUBSCRIPTION}/resourceGroups/rg/providers/Microsoft.Network/virtualNetworks/vnet/subnets/other not found.`,
    );
  });

  it('a subnet of a network that does not exist is 404 ResourceNotFound naming the network', async () => {
    emulator.putSubnet({ id: SUBNET_ID });
    const { network } = clients(emulator);
    const err = await restError(network.subnets.get('rg', 'elsewhere', 'nodes'));
    expect(err.statusCode).toBe(404);
    expect(err.code).toBe('ResourceNotFound');
    expect(err.message).toContain("'Microsoft.Network/virtualNetworks/elsewhere'");
  });

  it('answers a scripted error fault (e.g. 403 AuthorizationFailed) with ARM code and message', async () => {
    emulator.putSubnet({ id: SUBNET_ID });
    emulator.faults.add({
      match: { resourceType: 'subnets', method: 'GET' },
      effect: {
        kind: 'error',
        status: 403,
        code: 'AuthorizationFailed',
        message: 'The client does not have authorization to perform action.',
      },
      times: 1,
    });
    const { network } = clients(emulator);
    const err = await restError(network.subnets.get('rg', 'vnet', 'nodes'));
    expect(err).toMatchObject({ statusCode: 403, code: 'AuthorizationFailed' });
    expect((await network.subnets.get('rg', 'vnet', 'nodes')).name).toBe('nodes');
  });

  it('removeSubnet and the control API put and remove subnets; bad specs are refused', async () => {
    const { network } = clients(emulator);
    expect(await control(emulator, 'PUT', '/_emulator/subnets', { id: SUBNET_ID })).toBe(204);
    expect((await network.subnets.get('rg', 'vnet', 'nodes')).id).toBe(SUBNET_ID);
    expect(
      await control(emulator, 'DELETE', `/_emulator/subnets/${encodeURIComponent(SUBNET_ID)}`),
    ).toBe(204);
    expect(
      await control(emulator, 'DELETE', `/_emulator/subnets/${encodeURIComponent(SUBNET_ID)}`),
    ).toBe(404);
    expect((await restError(network.subnets.get('rg', 'vnet', 'nodes'))).statusCode).toBe(404);
    emulator.putSubnet({ id: SUBNET_ID });
    expect(emulator.removeSubnet(SUBNET_ID.toUpperCase())).toBe(true);
    expect(emulator.state.subnets.ids()).toEqual([]);
    expect(() => emulator.putSubnet({ id: '/subnets/x' })).toThrow(/not a subnet ARM ID/);
    expect(() => emulator.putSubnet({ id: SUBNET_ID, addressPrefix: '10.0.0.0/33' })).toThrow(
      /not an IPv4 CIDR/,
    );
    expect(await control(emulator, 'PUT', '/_emulator/subnets', { id: 'nope' })).toBe(400);
  });
});

describe('a NIC PUT naming a subnet', () => {
  it('refuses a subnet that does not exist with ARM 400 InvalidResourceReference, creating nothing', async () => {
    emulator.putSubnet({ id: SUBNET_ID.replace('/nodes', '/other') });
    const { network } = clients(emulator);
    const err = await restError(
      network.networkInterfaces.beginCreateOrUpdateAndWait(RG, 'aks-n', nicBody('aks-n'), {
        updateIntervalInMs: 5,
      }),
    );
    expect(err).toMatchObject({ statusCode: 400, code: 'InvalidResourceReference' });
    expect(err.message).toBe(
      `Resource ${SUBNET_ID} referenced by resource /subscriptions/${SUBSCRIPTION}/resourceGroups/${RG}/providers/Microsoft.Network/networkInterfaces/aks-n was not found. Please make sure that the referenced resource exists, and that both resources are in the same region.`,
    );
    expect(emulator.state.networkInterfaces()).toEqual([]);
  });

  it('names the virtual network when the subnet is in a network that does not exist', async () => {
    const { network } = clients(emulator);
    const err = await restError(
      network.networkInterfaces.beginCreateOrUpdateAndWait(RG, 'aks-v', nicBody('aks-v'), {
        updateIntervalInMs: 5,
      }),
    );
    expect(err).toMatchObject({ statusCode: 400, code: 'InvalidResourceReference' });
    expect(err.message).toMatch(
      /^Resource \/subscriptions\/.*\/virtualNetworks\/vnet referenced by resource .*\/networkInterfaces\/aks-v was not found\./,
    );
  });

  it('accepts an existing subnet named in another case', async () => {
    emulator.putSubnet({ id: SUBNET_ID.toLowerCase() });
    const { network } = clients(emulator);
    const nic = await network.networkInterfaces.beginCreateOrUpdateAndWait(
      RG,
      'aks-c',
      nicBody('aks-c'),
      { updateIntervalInMs: 5 },
    );
    expect(nic.provisioningState).toBe('Succeeded');
  });
});
