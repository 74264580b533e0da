import { readFileSync } from 'node:fs';
import type { CommunityGalleryImageVersion } from '@azure/arm-compute';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { SeedImageVersions, startArmEmulator, type ArmEmulator } from '../src/index.js';
import { LOCATION, RG, SUBNET_ID, clients, nicBody, vmBody } from './sdk-clients.js';

const UBUNTU = 'AKSUbuntu-38d80f77-467a-481f-a8d4-09b6d4220bd2';
const fast = { updateIntervalInMs: 5 };

let emulator: ArmEmulator;
beforeEach(async () => {
  emulator = await startArmEmulator({ pageSize: 2 });
  emulator.putSubnet({ id: SUBNET_ID });
});
afterEach(async () => emulator.stop());

async function listVersions(gallery: string, image: string) {
  const out: CommunityGalleryImageVersion[] = [];
  const { compute } = clients(emulator);
  for await (const v of compute.communityGalleryImageVersions.list(LOCATION, gallery, image))
    out.push(v);
  return out;
}

async function createVm(name: string, imageId: string) {
  const { compute, network } = clients(emulator);
  const nic = await network.networkInterfaces.beginCreateOrUpdateAndWait(
    RG,
    name,
    nicBody(name),
    fast,
  );
  const body = vmBody(nic.id ?? '');
  body.storageProfile.imageReference.communityGalleryImageId = imageId;
  return compute.virtualMachines.createOrUpdate(RG, name, body, fast);
}

describe('community gallery image versions through the real SDK', () => {
  it('serves the seeded versions of every AKS community-gallery image definition, paged by nextLink', async () => {
    const data = JSON.parse(
      readFileSync(new URL('../data/community-gallery-images.json', import.meta.url), 'utf8'),
    ) as { galleries: Record<string, string[]> };
    const definitions = Object.entries(data.galleries).flatMap(([g, images]) =>
      images.map((i) => [g, i] as const),
    );
    expect(definitions.length).toBe(16);
    for (const [gallery, image] of definitions) {
      const versions = await listVersions(gallery, image);
      expect(versions.map((v) => v.name)).toEqual(SeedImageVersions.map((s) => s.version));
    }
    // Three versions on pages of two: the SDK followed a nextLink.
    expect(
      emulator.state.requestsTo('GET', '/versions?').filter((r) => r.url.includes('skiptoken'))
        .length,
    ).toBeGreaterThan(0);
  });

  it('answers in ARM shape: identifier, publishedDate, excludeFromLatest, storage profile', async () => {
    emulator.publishImageVersion({
      gallery: UBUNTU,
      image: '2404gen2containerd',
      version: '202506.01.0',
      publishedDate: '2025-06-02T00:00:00Z',
      endOfLifeDate: '2026-06-02T00:00:00Z',
      excludeFromLatest: true,
    });
    const versions = await listVersions(UBUNTU, '2404gen2containerd');
    expect(versions.at(-1)).toMatchObject({
      name: '202506.01.0',
      location: LOCATION,
      uniqueId: `/CommunityGalleries/${UBUNTU}/Images/2404gen2containerd/Versions/202506.01.0`,
      publishedDate: new Date('2025-06-02T00:00:00Z'),
      endOfLifeDate: new Date('2026-06-02T00:00:00Z'),
      excludeFromLatest: true,
      storageProfile: { osDiskImage: { diskSizeGB: 30, hostCaching: 'ReadOnly' } },
    });
    const { compute } = clients(emulator);
    const one = await compute.communityGalleryImageVersions.get(
      LOCATION,
      UBUNTU,
      '2404gen2containerd',
      '202501.01.0',
    );
    expect(one.publishedDate).toEqual(new Date(SeedImageVersions[0]?.publishedDate ?? ''));
  });

  it('answers 404 GalleryImageNotFound for an unknown image or version', async () => {
    await expect(listVersions(UBUNTU, 'nosuchimage')).rejects.toMatchObject({
      statusCode: 404,
      code: 'GalleryImageNotFound',
    });
    const { compute } = clients(emulator);
    await expect(
      compute.communityGalleryImageVersions.get(LOCATION, UBUNTU, '2404containerd', '1.0.0'),
    ).rejects.toMatchObject({ statusCode: 404, code: 'GalleryImageNotFound' });
  });

  it('creates a VM only from a community gallery image version that exists', async () => {
    const base = `/CommunityGalleries/${UBUNTU}/Images/2404gen2containerd/Versions`;
    await expect(createVm('aks-unknown', `${base}/209901.01.0`)).rejects.toMatchObject({
      statusCode: 404,
      code: 'GalleryImageNotFound',
      message: expect.stringContaining(`${base}/209901.01.0`),
    });
    await expect(createVm('aks-malformed', '/CommunityGalleries/x/images')).rejects.toMatchObject({
      statusCode: 400,
      code: 'InvalidParameter',
    });
    const vm = await createVm('aks-known', `${base}/202503.05.0`);
    expect(vm.provisioningState).toBe('Succeeded');
    // An image version removed from the gallery stops being usable.
    expect(emulator.removeImageVersion(UBUNTU, '2404gen2containerd', '202503.05.0')).toBe(true);
    await expect(createVm('aks-removed', `${base}/202503.05.0`)).rejects.toMatchObject({
      code: 'GalleryImageNotFound',
    });
    expect((await createVm('aks-latest', `${base}/latest`)).provisioningState).toBe('Succeeded');
    expect(emulator.state.virtualMachines().map((v) => v.name)).toEqual([
      'aks-known',
      'aks-latest',
    ]);
  });

  it('publishes a version over the control API', async () => {
    const plain = await startArmEmulator({ tls: false });
    try {
      const res = await fetch(`${plain.url}/_emulator/community-gallery-versions`, {
        method: 'POST',
        body: JSON.stringify({ gallery: UBUNTU, image: '2404containerd', version: '202507.01.0' }),
      });
      expect(res.status).toBe(204);
      expect(plain.state.communityGalleries.exists(UBUNTU, '2404containerd', '202507.01.0')).toBe(
        true,
      );
      const bad = await fetch(`${plain.url}/_emulator/community-gallery-versions`, {
        method: 'POST',
        body: JSON.stringify({
          gallery: UBUNTU,
          image: '2404containerd',
          version: 'x',
          publishedDate: 'soon',
        }),
      });
      expect(bad.status).toBe(400);
    } finally {
      await plain.stop();
    }
  });
});
