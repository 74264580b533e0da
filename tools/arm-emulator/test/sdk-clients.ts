// How the emulator's tests talk to it: real Azure SDK clients (a static bearer token and the
// emulator's certificate as the only trusted CA; the SDKs refuse bearer tokens over plain HTTP),
// the RestError they reject with, and raw requests to the control API (`/_emulator/...`).
import { request } from 'node:https';
import { ComputeManagementClient } from '@azure/arm-compute';
import { NetworkManagementClient } from '@azure/arm-network';
import type { AccessToken, TokenCredential } from '@azure/core-auth';
import { expect } from 'vitest';
import type { ArmEmulator } from '../src/index.js';

export const SUBSCRIPTION = '00000000-0000-0000-0000-000000000001';
export const RG = 'mc_rg_cluster_southcentralus';
export const LOCATION = 'southcentralus';
export const SUBNET_ID = `/subscriptions/${SUBSCRIPTION}/resourceGroups/rg/providers/Microsoft.Network/virtualNetworks/vnet/subnets/nodes`;

/** A credential that always returns the same token (tests only). */
export const staticCredential: TokenCredential = {
  getToken: async (): Promise<AccessToken> => ({
    token: 'emulator-token',
    expiresOnTimestamp: Date.now() + 3600_000,
  }),
};

export function clients(emulator: ArmEmulator) {
  const common = {
    endpoint: emulator.url,
    tlsOptions: { ca: emulator.ca ?? '' },
    retryOptions: { maxRetries: 3, retryDelayInMs: 10, maxRetryDelayInMs: 50 },
  };
  return {
    compute: new ComputeManagementClient(staticCredential, SUBSCRIPTION, {
      ...common,
      credentials: { scopes: ['https://management.azure.com/.default'] },
    }),
    network: new NetworkManagementClient(staticCredential, SUBSCRIPTION, {
      ...common,
      $host: emulator.url,
      credentialScopes: ['https://management.azure.com/.default'],
    }),
  };
}

/** What the SDK's RestError carries. */
export interface RestErrorLike {
  name: string;
  statusCode?: number;
  code?: string;
  message: string;
}

/** The RestError a promise rejects with (the test fails when it resolves or rejects otherwise). */
export async function restError(p: Promise<unknown>): Promise<RestErrorLike> {
  const err = await p.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect((err as RestErrorLike | undefined)?.name).toBe('RestError');
  return err as RestErrorLike;
}

/**
 * Sends `method path` with JSON `body` (none when undefined) to the emulator's control API;
 * resolves with the HTTP status.
 */
export function control(
  emulator: ArmEmulator,
  method: string,
  path: string,
  body?: unknown,
): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = request(
      `${emulator.url}${path}`,
      { method, ca: emulator.ca, headers: { 'content-type': 'application/json' } },
      (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode ?? 0));
      },
    );
    req.on('error', reject);
    req.end(body === undefined ? undefined : JSON.stringify(body));
  });
}

export function nicBody(name: string) {
  return {
    location: LOCATION,
    tags: { 'karpenter.azure.com_cluster': 'test' },
    ipConfigurations: [
      {
        name,
        primary: true,
        subnet: { id: SUBNET_ID },
        privateIPAllocationMethod: 'Dynamic' as const,
      },
    ],
  };
}

export function vmBody(
  nicId: string,
  overrides: {
    vmSize?: string;
    zone?: string;
    spot?: boolean;
    ephemeral?: boolean;
    diskSizeGB?: number;
  } = {},
) {
  return {
    location: LOCATION,
    tags: { 'karpenter.azure.com_cluster': 'test' },
    ...(overrides.zone ? { zones: [overrides.zone] } : {}),
    hardwareProfile: { vmSize: overrides.vmSize ?? 'Standard_D2s_v3' },
    storageProfile: {
      imageReference: {
        communityGalleryImageId:
          '/CommunityGalleries/AKSUbuntu-38d80f77-467a-481f-a8d4-09b6d4220bd2/images/2204gen2containerd/versions/202501.01.0',
      },
      osDisk: {
        name: 'osdisk-x',
        createOption: 'FromImage' as const,
        deleteOption: 'Delete' as const,
        diskSizeGB: overrides.diskSizeGB ?? 128,
        ...(overrides.ephemeral
          ? {
              caching: 'ReadOnly' as const,
              diffDiskSettings: { option: 'Local' as const, placement: 'CacheDisk' as const },
            }
          : {}),
      },
    },
    osProfile: {
      computerName: 'vm',
      adminUsername: 'azureuser',
      customData: Buffer.from('#!/bin/bash\necho hi').toString('base64'),
      linuxConfiguration: { disablePasswordAuthentication: true },
    },
    networkProfile: {
      networkInterfaces: [{ id: nicId, primary: true, deleteOption: 'Delete' as const }],
    },
    ...(overrides.spot
      ? {
          priority: 'Spot' as const,
          evictionPolicy: 'Delete' as const,
          billingProfile: { maxPrice: -1 },
        }
      : {}),
  };
}
