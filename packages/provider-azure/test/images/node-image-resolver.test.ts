// The node image resolver over the real @azure/arm-compute SDK against the ARM emulator's
// community galleries (seeded: 202501.01.0, 202502.10.0, 202503.05.0 of every definition).
import { startArmEmulator, type ArmEmulator } from '@karpenter-ts/arm-emulator';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  NodeImageResolver,
  createArmClients,
  type NodeImageResolverOptions,
} from '../../src/index.js';
import { FakeClock, REGION, SUBSCRIPTION, staticCredential } from '../launch/harness.js';

const UBUNTU = 'AKSUbuntu-38d80f77-467a-481f-a8d4-09b6d4220bd2';
const LINUX = 'AKSAzureLinux-f7c7cda5-1c9a-4bdc-a222-9614c968580b';
const DAY = 24 * 3600;

let arm: ArmEmulator;
let clock: FakeClock;

beforeEach(async () => {
  arm = await startArmEmulator({ pageSize: 2 });
  clock = new FakeClock(Date.parse('2025-06-01T00:00:00Z'));
});
afterEach(async () => arm.stop());

function resolver(options: Partial<NodeImageResolverOptions> = {}): NodeImageResolver {
  const { compute } = createArmClients({
    subscriptionId: SUBSCRIPTION,
    credential: staticCredential,
    endpoint: arm.url,
    ...(arm.ca ? { tlsCA: arm.ca } : {}),
    retry: { maxRetries: 1, retryDelayInMs: 5, maxRetryDelayInMs: 10 },
  });
  return new NodeImageResolver({ compute, location: REGION, clock, ...options });
}

const listRequests = () => arm.state.requestsTo('GET', '/communityGalleries/').length;
const versionOf = (id: string) => id.split('/').at(-1);

describe('NodeImageResolver against the emulator through the real SDK', () => {
  it('gives each definition of the family its newest version by publishedDate, in priority order', async () => {
    // Published last but named lowest: order by name would miss it.
    arm.publishImageVersion({
      gallery: UBUNTU,
      image: '2404containerd',
      version: '202412.01.1',
      publishedDate: '2025-05-20T00:00:00Z',
    });
    const images = await resolver().list({ imageFamily: 'Ubuntu' }, '1.34.2');
    expect(images).toEqual([
      {
        id: `/CommunityGalleries/${UBUNTU}/images/2404gen2containerd/versions/202503.05.0`,
        requirements: [
          { key: 'kubernetes.io/arch', operator: 'In', values: ['amd64'] },
          { key: 'karpenter.azure.com/sku-hyperv-generation', operator: 'In', values: ['2'] },
        ],
      },
      {
        id: `/CommunityGalleries/${UBUNTU}/images/2404containerd/versions/202412.01.1`,
        requirements: [
          { key: 'kubernetes.io/arch', operator: 'In', values: ['amd64'] },
          { key: 'karpenter.azure.com/sku-hyperv-generation', operator: 'In', values: ['1'] },
        ],
      },
      {
        id: `/CommunityGalleries/${UBUNTU}/images/2404gen2arm64containerd/versions/202503.05.0`,
        requirements: [
          { key: 'kubernetes.io/arch', operator: 'In', values: ['arm64'] },
          { key: 'karpenter.azure.com/sku-hyperv-generation', operator: 'In', values: ['2'] },
        ],
      },
    ]);
  });

  it('resolves the family by Kubernetes version: Azure Linux 2 before 1.32, 3 from 1.32', async () => {
    const r = resolver();
    const v2 = await r.list({ imageFamily: 'AzureLinux' }, '1.31.5');
    const v3 = await r.list({ imageFamily: 'AzureLinux' }, '1.32.0');
    expect(v2.map((i) => i.id.split('/')[4])).toEqual(['V2gen2', 'V2', 'V2gen2arm64']);
    expect(v3.map((i) => i.id.split('/')[4])).toEqual(['V3gen2', 'V3', 'V3gen2arm64']);
    expect(v3[0]?.id).toBe(`/CommunityGalleries/${LINUX}/images/V3gen2/versions/202503.05.0`);
    const ubuntu = await r.list({}, '1.33.1');
    expect(ubuntu[0]?.id).toContain('/images/2204gen2containerd/');
  });

  it('skips versions excluded from latest and versions past their end of life', async () => {
    const image = '2204gen2containerd';
    arm.publishImageVersion({
      gallery: UBUNTU,
      image,
      version: '202505.01.0',
      publishedDate: '2025-05-01T00:00:00Z',
      excludeFromLatest: true,
    });
    arm.publishImageVersion({
      gallery: UBUNTU,
      image,
      version: '202504.01.0',
      publishedDate: '2025-04-01T00:00:00Z',
      endOfLifeDate: '2025-05-31T23:59:59Z',
    });
    arm.publishImageVersion({
      gallery: UBUNTU,
      image,
      version: '202503.20.0',
      publishedDate: '2025-03-20T00:00:00Z',
      endOfLifeDate: '2025-12-31T00:00:00Z', // still supported on 2025-06-01
    });
    const images = await resolver().list({ imageFamily: 'Ubuntu2204' }, '1.33.0');
    expect(versionOf(images[0]?.id ?? '')).toBe('202503.20.0');
  });

  it('leaves out a definition with no versions and fails with ImagesNotFound when none has one', async () => {
    for (const v of ['202501.01.0', '202502.10.0', '202503.05.0'])
      arm.removeImageVersion(UBUNTU, '2404gen2arm64containerd', v);
    const images = await resolver().list({}, '1.35.0');
    expect(images.map((i) => i.id.split('/')[4])).toEqual(['2404gen2containerd', '2404containerd']);

    for (const image of ['V3gen2TL'])
      for (const v of ['202501.01.0', '202502.10.0', '202503.05.0'])
        arm.removeImageVersion(LINUX, image, v);
    await expect(
      resolver().list(
        { imageFamily: 'AzureLinux', security: { trustedLaunch: { vtpm: true } } },
        '1.33.0',
      ),
    ).rejects.toMatchObject({ name: 'NodeImagesError', reason: 'ImagesNotFound' });
  });

  it('uses a pinned version for every definition without listing the gallery', async () => {
    const images = await resolver({ pinnedVersion: '202502.10.0' }).list({}, '1.36.0');
    expect(images.map((i) => versionOf(i.id))).toEqual([
      '202502.10.0',
      '202502.10.0',
      '202502.10.0',
    ]);
    expect(listRequests()).toBe(0);
  });

  it('refuses FIPS (shared image gallery only) without listing', async () => {
    await expect(resolver().list({ fipsMode: 'FIPS' }, '1.33.0')).rejects.toMatchObject({
      reason: 'SIGRequiredForFIPS',
    });
    expect(listRequests()).toBe(0);
  });

  it('reuses a listing for 3 days per image set and Kubernetes version, then lists again', async () => {
    const r = resolver();
    const first = await r.list({}, '1.34.0');
    const listed = listRequests();
    expect(listed).toBeGreaterThanOrEqual(3);
    arm.publishImageVersion({
      gallery: UBUNTU,
      image: '2404gen2containerd',
      version: '202506.01.0',
      publishedDate: '2025-06-01T00:00:00Z',
    });
    clock.advance(3 * DAY - 1);
    expect(await r.list({ imageFamily: 'Ubuntu' }, '1.34.0')).toEqual(first);
    expect(listRequests()).toBe(listed);
    // Another Kubernetes version is another cache entry.
    const patched = await r.list({}, '1.34.1');
    expect(versionOf(patched[0]?.id ?? '')).toBe('202506.01.0');
    expect(listRequests()).toBeGreaterThan(listed);
    clock.advance(1);
    const fresh = await r.list({}, '1.34.0');
    expect(versionOf(fresh[0]?.id ?? '')).toBe('202506.01.0');
  });

  it('raises a listing failure instead of caching it as no images', async () => {
    arm.faults.throttle(
      { resourceType: 'communityGalleryImageVersions' },
      { retryAfterSeconds: 0, times: 6 },
    );
    const r = resolver();
    await expect(r.list({}, '1.34.0')).rejects.toMatchObject({ statusCode: 429 });
    expect(await r.list({}, '1.34.0')).toHaveLength(3);
  });
});
