import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startArmEmulator, type ArmEmulator } from '../src/index.js';
import { RG, SUBNET_ID, clients, nicBody, vmBody } from './sdk-clients.js';

const fast = { updateIntervalInMs: 5 };

let emulator: ArmEmulator;
beforeEach(async () => {
  emulator = await startArmEmulator();
  emulator.putSubnet({ id: SUBNET_ID });
});
afterEach(async () => emulator.stop());

describe('test controls of the emulator state', () => {
  it("backdateVirtualMachine moves a VM's timeCreated (as GET returns it) into the past", async () => {
    const { compute, network } = clients(emulator);
    const nic = await network.networkInterfaces.beginCreateOrUpdateAndWait(
      RG,
      'aks-t',
      nicBody('aks-t'),
      fast,
    );
    await compute.virtualMachines.createOrUpdate(RG, 'aks-t', vmBody(nic.id ?? ''), fast);
    const before = (await compute.virtualMachines.get(RG, 'aks-t')).timeCreated?.getTime() ?? 0;
    // Resource group names are case-insensitive in ARM.
    emulator.state.backdateVirtualMachine(RG.toUpperCase(), 'aks-t', 360);
    const after = (await compute.virtualMachines.get(RG, 'aks-t')).timeCreated?.getTime() ?? 0;
    expect(before - after).toBe(360_000);
  });

  it('backdateVirtualMachine names a VM it does not hold and refuses a negative age', async () => {
    const { compute, network } = clients(emulator);
    const nic = await network.networkInterfaces.beginCreateOrUpdateAndWait(
      RG,
      'aks-u',
      nicBody('aks-u'),
      fast,
    );
    await compute.virtualMachines.createOrUpdate(RG, 'aks-u', vmBody(nic.id ?? ''), fast);
    expect(() => emulator.state.backdateVirtualMachine(RG, 'aks-none', 60)).toThrow(
      /no VM aks-none in/,
    );
    expect(() => emulator.state.backdateVirtualMachine(RG, 'aks-u', -1)).toThrow(
      /seconds must be >= 0/,
    );
  });
});
