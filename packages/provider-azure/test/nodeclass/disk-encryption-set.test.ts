// The ValidationSucceeded check of the operator's disk encryption set over the real
// @azure/arm-compute SDK (ArmClients.diskEncryptionSets) against the ARM emulator.
import { startArmEmulator, type ArmEmulator } from '@karpenter-ts/arm-emulator';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  createArmClients,
  parseDiskEncryptionSetID,
  validateDiskEncryptionSet,
  type ArmClients,
} from '../../src/index.js';
import { SUBSCRIPTION, staticCredential } from '../launch/harness.js';

const OTHER_SUBSCRIPTION = '00000000-0000-0000-0000-0000000000bb';
const desID = (sub: string, name = 'nodes-des') =>
  `/subscriptions/${sub}/resourceGroups/security/providers/Microsoft.Compute/diskEncryptionSets/${name}`;
const DES = desID(SUBSCRIPTION);

let arm: ArmEmulator;
let clients: ArmClients;
beforeEach(async () => {
  arm = await startArmEmulator();
  arm.putDiskEncryptionSet({ id: DES });
  clients = createArmClients({
    subscriptionId: SUBSCRIPTION,
    credential: staticCredential,
    endpoint: arm.url,
    ...(arm.ca ? { tlsCA: arm.ca } : {}),
    retry: { maxRetries: 1, retryDelayInMs: 5, maxRetryDelayInMs: 10 },
  });
});
afterEach(async () => arm.stop());

const validate = (diskEncryptionSetID: string | undefined) =>
  validateDiskEncryptionSet({
    diskEncryptionSets: (s) => clients.diskEncryptionSets(s),
    diskEncryptionSetID,
  });
const desGets = () => arm.state.requestsTo('GET', '/diskEncryptionSets/').length;

describe('ValidationSucceeded: the disk encryption set against the emulator through the real SDK', () => {
  it('without a disk encryption set there is nothing to validate, and no ARM call', async () => {
    expect(await validate(undefined)).toEqual({
      valid: true,
      reason: 'NoDiskEncryptionSet',
      message: expect.stringContaining('NODE_OSDISK_DISKENCRYPTIONSET_ID is not set'),
    });
    expect(desGets()).toBe(0);
  });

  it('succeeds when the controller can read the set (one GET of it)', async () => {
    expect(await validate(DES)).toEqual({
      valid: true,
      message: `disk encryption set ${DES} is readable`,
    });
    expect(desGets()).toBe(1);
  });

  it('403 AuthorizationFailed: DiskEncryptionSetRBACMissing naming the missing Reader role, the set and ARM message', async () => {
    arm.faults.authorizationFailed(
      { resourceType: 'diskEncryptionSets' },
      { action: 'Microsoft.Compute/diskEncryptionSets/read', scope: DES, objectId: 'abc' },
    );
    const result = await validate(DES);
    expect(result).toMatchObject({ valid: false, reason: 'DiskEncryptionSetRBACMissing' });
    const message = result.valid ? '' : result.message;
    expect(message).toMatch(
      new RegExp(
        `^the controller's identity has no Reader role on disk encryption set ${DES.replaceAll('/', '\\/')} \\(NODE_OSDISK_DISKENCRYPTIONSET_ID\\)`,
      ),
    );
    expect(message).toContain(
      "AuthorizationFailed: The client 'abc' with object id 'abc' does not have authorization to perform action 'Microsoft.Compute/diskEncryptionSets/read'",
    );
    expect(message).toContain(`az role assignment create --role Reader --scope ${DES}`);
  });

  it('404: DiskEncryptionSetNotFound naming the set and the setting', async () => {
    const missing = desID(SUBSCRIPTION, 'gone');
    expect(await validate(missing)).toEqual({
      valid: false,
      reason: 'DiskEncryptionSetNotFound',
      message: `disk encryption set ${missing} (NODE_OSDISK_DISKENCRYPTIONSET_ID) not found`,
    });
  });

  it('any other ARM failure: DiskEncryptionSetUnknownError with ARM code and message', async () => {
    arm.faults.add({
      match: { resourceType: 'diskEncryptionSets' },
      effect: { kind: 'error', status: 500, code: 'InternalServerError', message: 'try later' },
    });
    expect(await validate(DES)).toEqual({
      valid: false,
      reason: 'DiskEncryptionSetUnknownError',
      message: `getting disk encryption set ${DES}: InternalServerError: try later`,
    });
  });

  it('reads a set in another subscription through a client of that subscription', async () => {
    const other = desID(OTHER_SUBSCRIPTION);
    arm.putDiskEncryptionSet({ id: other });
    expect(await validate(other)).toMatchObject({ valid: true });
    expect(arm.state.requestsTo('GET', `/subscriptions/${OTHER_SUBSCRIPTION}/`)).toHaveLength(1);
    expect(clients.diskEncryptionSets(OTHER_SUBSCRIPTION.toUpperCase())).toBe(
      clients.diskEncryptionSets(OTHER_SUBSCRIPTION),
    );
  });

  it('an ID that is not a disk encryption set ARM ID: DiskEncryptionSetIDInvalid, no ARM call', async () => {
    const subnet = `/subscriptions/${SUBSCRIPTION}/resourceGroups/net/providers/Microsoft.Network/virtualNetworks/v/subnets/s`;
    expect(await validate(subnet)).toMatchObject({
      valid: false,
      reason: 'DiskEncryptionSetIDInvalid',
      message: expect.stringContaining('is not a disk encryption set ARM ID'),
    });
    expect(desGets()).toBe(0);
  });
});

describe('parseDiskEncryptionSetID', () => {
  it('reads subscription, resource group and name, segment names in any case', () => {
    expect(parseDiskEncryptionSetID(DES)).toEqual({
      subscriptionID: SUBSCRIPTION,
      resourceGroup: 'security',
      name: 'nodes-des',
    });
    expect(parseDiskEncryptionSetID(DES.toLowerCase())?.name).toBe('nodes-des');
  });

  it('refuses other resource types, missing segments and trailing paths', () => {
    for (const id of [
      '',
      'nodes-des',
      DES.replace('Microsoft.Compute/diskEncryptionSets', 'Microsoft.Compute/disks'),
      DES.replace('/resourceGroups/security', ''),
      `${DES}/extra`,
      `${DES}/`,
    ])
      expect(parseDiskEncryptionSetID(id), id).toBeUndefined();
  });
});
