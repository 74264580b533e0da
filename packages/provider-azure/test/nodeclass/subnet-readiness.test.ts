// The SubnetsReady check over the real @azure/arm-network SDK (ArmClients.subnets) against the ARM
// emulator's subnets.
import { startArmEmulator, type ArmEmulator } from '@karpenter-ts/arm-emulator';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  checkSubnetReadiness,
  createArmClients,
  isAKSManagedSubnet,
  parseSubnetID,
  type SubnetReadinessOptions,
} from '../../src/index.js';
import { NODE_RG, SUBSCRIPTION, staticCredential } from '../launch/harness.js';

const OTHER_SUBSCRIPTION = '00000000-0000-0000-0000-0000000000bb';
const vnet = (sub: string, rg: string, name: string) =>
  `/subscriptions/${sub}/resourceGroups/${rg}/providers/Microsoft.Network/virtualNetworks/${name}`;
/** A cluster on its own VNet `vnet` in resource group `net`. */
const CLUSTER_SUBNET = `${vnet(SUBSCRIPTION, 'net', 'vnet')}/subnets/nodes`;
const CUSTOM_SUBNET = `${vnet(SUBSCRIPTION, 'net', 'vnet')}/subnets/batch`;
/** AKS's own VNet of a cluster without one. */
const MANAGED_SUBNET = `${vnet(SUBSCRIPTION, NODE_RG, 'aks-vnet-12345678')}/subnets/aks-subnet`;

let arm: ArmEmulator;
beforeEach(async () => {
  arm = await startArmEmulator();
  arm.putSubnet({ id: CLUSTER_SUBNET });
  arm.putSubnet({ id: CUSTOM_SUBNET, addressPrefix: '10.225.0.0/16' });
  arm.putSubnet({ id: MANAGED_SUBNET });
});
afterEach(async () => arm.stop());

function options(clusterSubnetID = CLUSTER_SUBNET): SubnetReadinessOptions {
  const clients = createArmClients({
    subscriptionId: SUBSCRIPTION,
    credential: staticCredential,
    endpoint: arm.url,
    ...(arm.ca ? { tlsCA: arm.ca } : {}),
    retry: { maxRetries: 1, retryDelayInMs: 5, maxRetryDelayInMs: 10 },
  });
  return { subnets: (s) => clients.subnets(s), clusterSubnetID, nodeResourceGroup: NODE_RG };
}

const subnetGets = () => arm.state.requestsTo('GET', '/subnets/').length;

describe('SubnetsReady against the emulator through the real SDK', () => {
  it('is ready for the cluster subnet when the NodeClass names none, after a GET of it', async () => {
    expect(await checkSubnetReadiness(options(), {})).toEqual({
      ready: true,
      subnetID: CLUSTER_SUBNET,
    });
    expect(arm.state.requestsTo('GET', '/virtualNetworks/vnet/subnets/nodes')).toHaveLength(1);
  });

  it('is ready for a custom subnet that exists in the cluster VNet', async () => {
    expect(await checkSubnetReadiness(options(), { vnetSubnetID: CUSTOM_SUBNET })).toEqual({
      ready: true,
      subnetID: CUSTOM_SUBNET,
    });
  });

  it('SubnetNotFound for a subnet of the cluster VNet that does not exist (ARM 404 NotFound)', async () => {
    const missing = `${vnet(SUBSCRIPTION, 'net', 'vnet')}/subnets/missing`;
    expect(await checkSubnetReadiness(options(), { vnetSubnetID: missing })).toEqual({
      ready: false,
      reason: 'SubnetNotFound',
      message: `subnet ${missing} not found`,
    });
  });

  it('SubnetNotFound when the cluster subnet itself is gone, VNet included (ARM 404 ResourceNotFound)', async () => {
    const gone = `${vnet(SUBSCRIPTION, 'net', 'gone')}/subnets/nodes`;
    expect(await checkSubnetReadiness(options(gone), {})).toMatchObject({
      ready: false,
      reason: 'SubnetNotFound',
    });
  });

  it('SubnetUnknownError with ARM code and message for another failure, and ready again once it passes', async () => {
    arm.faults.add({
      match: { resourceType: 'subnets' },
      effect: {
        kind: 'error',
        status: 403,
        code: 'AuthorizationFailed',
        message: 'The client does not have authorization to perform action read over scope.',
      },
      times: 1,
    });
    expect(await checkSubnetReadiness(options(), {})).toEqual({
      ready: false,
      reason: 'SubnetUnknownError',
      message: `getting subnet ${CLUSTER_SUBNET}: AuthorizationFailed: The client does not have authorization to perform action read over scope.`,
    });
    expect(await checkSubnetReadiness(options(), {})).toMatchObject({ ready: true });
  });

  it('SubnetIDInvalid for an ID that is not a subnet ARM ID, without calling ARM', async () => {
    const result = await checkSubnetReadiness(options(), {
      vnetSubnetID:
        '/subscriptions/x/resourceGroups/net/providers/Microsoft.Network/virtualNetworks/vnet',
    });
    expect(result).toMatchObject({ ready: false, reason: 'SubnetIDInvalid' });
    expect(result.ready || result.message).toMatch(
      /^spec\.vnetSubnetID ".*" is not a subnet ARM ID/,
    );
    const fromSetting = await checkSubnetReadiness(options('not-an-id'), {});
    expect(fromSetting.ready || fromSetting.message).toMatch(/^--vnet-subnet-id "not-an-id"/);
    expect(subnetGets()).toBe(0);
  });

  it.each([
    ['another subscription', vnet(OTHER_SUBSCRIPTION, 'net', 'vnet')],
    ['another resource group', vnet(SUBSCRIPTION, 'other', 'vnet')],
    ['another VNet', vnet(SUBSCRIPTION, 'net', 'vnet2')],
  ])('SubnetIDInvalid for a custom subnet in %s than the cluster subnet', async (_, other) => {
    arm.putSubnet({ id: `${other}/subnets/batch` });
    const result = await checkSubnetReadiness(options(), {
      vnetSubnetID: `${other}/subnets/batch`,
    });
    expect(result).toMatchObject({ ready: false, reason: 'SubnetIDInvalid' });
    expect(result.ready || result.message).toContain(
      `does not match the cluster VNet ${vnet(SUBSCRIPTION, 'net', 'vnet')}`,
    );
    expect(subnetGets()).toBe(0);
  });

  it('compares VNets case-insensitively, as ARM names are', async () => {
    const upper = CUSTOM_SUBNET.replace('/net/', '/NET/').replace('/vnet/', '/VNet/');
    expect(await checkSubnetReadiness(options(), { vnetSubnetID: upper })).toMatchObject({
      ready: true,
    });
  });

  it('SubnetIDInvalid for any custom subnet when the cluster subnet is in the AKS-managed VNet', async () => {
    const custom = `${vnet(SUBSCRIPTION, NODE_RG, 'aks-vnet-12345678')}/subnets/extra`;
    arm.putSubnet({ id: custom });
    const result = await checkSubnetReadiness(options(MANAGED_SUBNET), { vnetSubnetID: custom });
    expect(result).toMatchObject({ ready: false, reason: 'SubnetIDInvalid' });
    expect(result.ready || result.message).toContain('AKS-managed VNet aks-vnet-12345678');
    // Naming the managed cluster subnet itself is not a custom subnet.
    expect(
      await checkSubnetReadiness(options(MANAGED_SUBNET), { vnetSubnetID: MANAGED_SUBNET }),
    ).toMatchObject({ ready: true });
  });

  it('gets a subnet of another subscription through a client of that subscription', async () => {
    const elsewhere = `${vnet(OTHER_SUBSCRIPTION, 'net', 'vnet')}/subnets/nodes`;
    arm.putSubnet({ id: elsewhere });
    expect(await checkSubnetReadiness(options(elsewhere), {})).toMatchObject({ ready: true });
    expect(arm.state.requestsTo('GET', `/subscriptions/${OTHER_SUBSCRIPTION}/`)).toHaveLength(1);
  });
});

describe('subnet IDs', () => {
  it('parses the four names, segment names case-insensitive', () => {
    expect(parseSubnetID(CLUSTER_SUBNET.toLowerCase())).toEqual({
      subscriptionID: SUBSCRIPTION,
      resourceGroup: 'net',
      virtualNetwork: 'vnet',
      subnet: 'nodes',
    });
    expect(parseSubnetID(`${CLUSTER_SUBNET}/extra`)).toBeUndefined();
  });

  it('recognises the AKS-managed VNet only in the node resource group with subnet aks-subnet', () => {
    const at = (id: string) => parseSubnetID(id)!;
    expect(isAKSManagedSubnet(at(MANAGED_SUBNET), NODE_RG.toUpperCase())).toBe(true);
    expect(isAKSManagedSubnet(at(MANAGED_SUBNET), 'other-rg')).toBe(false);
    expect(isAKSManagedSubnet(at(MANAGED_SUBNET.replace('aks-subnet', 'nodes')), NODE_RG)).toBe(
      false,
    );
    expect(isAKSManagedSubnet(at(MANAGED_SUBNET.replace('12345678', '1234')), NODE_RG)).toBe(false);
  });
});
