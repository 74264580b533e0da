/**
 * Community (public) Azure Compute Galleries: the image versions the emulator knows, served as
 * ARM's `communityGalleryImageVersions` list and get
 * (`GET /subscriptions/{s}/providers/Microsoft.Compute/locations/{loc}/communityGalleries/{gallery}/images/{image}/versions[/{version}]`),
 * and the check a VM PUT makes of its `imageReference.communityGalleryImageId`.
 *
 * Seeded with three versions of every community-gallery image definition of AKS's node images
 * (`data/community-gallery-images.json`, from the provider's `images.json`). Versions are not
 * replicated per region here: every location serves every version.
 */
import { readFileSync } from 'node:fs';
import { ArmError } from './arm-error.js';
import { page, type ArmResponse, type EmulatorContext } from './context.js';

/** A version to publish, as tests give it. */
export interface CommunityGalleryImageVersionSpec {
  /** Public gallery name, e.g. `AKSUbuntu-38d80f77-467a-481f-a8d4-09b6d4220bd2`. */
  readonly gallery: string;
  /** Image definition, e.g. `2404gen2containerd`. */
  readonly image: string;
  /** Version name, e.g. `202506.10.0`. */
  readonly version: string;
  /** RFC 3339; default now. */
  readonly publishedDate?: string;
  /** RFC 3339; none by default. */
  readonly endOfLifeDate?: string;
  /** Left out of `latest` (default false). */
  readonly excludeFromLatest?: boolean;
  /** OS disk image size, GB (default 30). */
  readonly osDiskSizeGB?: number;
}

/** The versions every seeded definition starts with (newest by publishedDate last). */
export const SeedImageVersions: readonly { version: string; publishedDate: string }[] = [
  { version: '202501.01.0', publishedDate: '2025-01-03T00:00:00Z' },
  { version: '202502.10.0', publishedDate: '2025-02-12T00:00:00Z' },
  { version: '202503.05.0', publishedDate: '2025-03-07T00:00:00Z' },
];

interface StoredVersion {
  readonly gallery: string;
  readonly image: string;
  readonly version: string;
  readonly publishedDate: string;
  readonly endOfLifeDate?: string;
  readonly excludeFromLatest: boolean;
  readonly osDiskSizeGB: number;
}

const key = (...parts: string[]): string => parts.join('/').toLowerCase();

/** A `/CommunityGalleries/{gallery}/Images/{image}/Versions/{version}` ID, split (any case). */
export function parseCommunityGalleryImageId(
  id: string,
): { gallery: string; image: string; version: string } | undefined {
  const m = /^\/CommunityGalleries\/([^/]+)\/Images\/([^/]+)\/Versions\/([^/]+)$/i.exec(id);
  return m
    ? { gallery: m[1] as string, image: m[2] as string, version: m[3] as string }
    : undefined;
}

/** The galleries, images and versions the emulator serves. Mutate through the emulator API. */
export class CommunityGalleries {
  /** `gallery/image` (lower case) -> version (lower case) -> version. */
  readonly #images = new Map<string, Map<string, StoredVersion>>();

  /** Seeded with {@link SeedImageVersions} of every definition in the data file (default). */
  constructor(seed = true) {
    if (!seed) return;
    for (const [gallery, images] of Object.entries(seedDefinitions()))
      for (const image of images)
        for (const v of SeedImageVersions) this.publish({ gallery, image, ...v });
  }

  /**
   * Publishes a version (creating its gallery and image when new); publishing an existing version
   * replaces it. Raises ArmError 400 `InvalidParameter` for a bad date or empty name.
   */
  publish(spec: CommunityGalleryImageVersionSpec): void {
    for (const field of ['gallery', 'image', 'version'] as const)
      if (typeof spec[field] !== 'string' || !/^[A-Za-z0-9._-]+$/.test(spec[field]))
        throw new ArmError(400, 'InvalidParameter', `${field}: must be a non-empty name.`);
    for (const field of ['publishedDate', 'endOfLifeDate'] as const) {
      const v = spec[field];
      if (v !== undefined && Number.isNaN(Date.parse(v)))
        throw new ArmError(400, 'InvalidParameter', `${field}: ${v} is not an RFC 3339 time.`);
    }
    const versions = this.#images.get(key(spec.gallery, spec.image)) ?? new Map();
    this.#images.set(key(spec.gallery, spec.image), versions);
    versions.set(spec.version.toLowerCase(), {
      gallery: spec.gallery,
      image: spec.image,
      version: spec.version,
      publishedDate: new Date(spec.publishedDate ?? Date.now()).toISOString(),
      ...(spec.endOfLifeDate !== undefined
        ? { endOfLifeDate: new Date(spec.endOfLifeDate).toISOString() }
        : {}),
      excludeFromLatest: spec.excludeFromLatest ?? false,
      osDiskSizeGB: spec.osDiskSizeGB ?? 30,
    });
  }

  /** Removes a version (the image stays, possibly empty); false when there was none. */
  remove(gallery: string, image: string, version: string): boolean {
    return this.#images.get(key(gallery, image))?.delete(version.toLowerCase()) ?? false;
  }

  /** The versions of an image in publication order, or undefined when the image is unknown. */
  versions(gallery: string, image: string): readonly StoredVersion[] | undefined {
    const versions = this.#images.get(key(gallery, image));
    return versions ? [...versions.values()] : undefined;
  }

  /**
   * Whether a VM can be created from the version: it exists, or it is `latest` and the image has
   * a version not excluded from latest.
   */
  exists(gallery: string, image: string, version: string): boolean {
    const versions = this.versions(gallery, image) ?? [];
    if (version.toLowerCase() === 'latest') return versions.some((v) => !v.excludeFromLatest);
    return versions.some((v) => v.version.toLowerCase() === version.toLowerCase());
  }
}

let seeded: Record<string, string[]> | undefined;
function seedDefinitions(): Record<string, string[]> {
  seeded ??= (
    JSON.parse(
      readFileSync(new URL('../data/community-gallery-images.json', import.meta.url), 'utf8'),
    ) as { galleries: Record<string, string[]> }
  ).galleries;
  return seeded;
}

/** ARM's body of one version. */
function versionBody(v: StoredVersion, location: string): Record<string, unknown> {
  return {
    name: v.version,
    location,
    type: 'Microsoft.Compute/locations/communityGalleries/images/versions',
    identifier: {
      uniqueId: `/CommunityGalleries/${v.gallery}/Images/${v.image}/Versions/${v.version}`,
    },
    properties: {
      publishedDate: v.publishedDate,
      ...(v.endOfLifeDate !== undefined ? { endOfLifeDate: v.endOfLifeDate } : {}),
      excludeFromLatest: v.excludeFromLatest,
      storageProfile: { osDiskImage: { diskSizeGB: v.osDiskSizeGB, hostCaching: 'ReadOnly' } },
    },
  };
}

/** 404 `GalleryImageNotFound` for an image or version this location does not serve. */
export function galleryImageNotFound(id: string, location: string): ArmError {
  return new ArmError(
    404,
    'GalleryImageNotFound',
    `The gallery image ${id} is not available in ${location} region; it does not exist or is not replicated there.`,
  );
}

/** GET .../communityGalleries/{gallery}/images/{image}/versions: ARM's paged `{value, nextLink}`. */
export function listCommunityGalleryImageVersions(
  ctx: EmulatorContext,
  location: string,
  gallery: string,
  image: string,
  url: URL,
): ArmResponse {
  const versions = ctx.state.communityGalleries.versions(gallery, image);
  if (!versions)
    throw galleryImageNotFound(`/CommunityGalleries/${gallery}/Images/${image}`, location);
  const loc = location.toLowerCase();
  return {
    status: 200,
    body: page(
      ctx,
      versions.map((v) => versionBody(v, loc)),
      url,
    ),
  };
}

/** GET .../communityGalleries/{gallery}/images/{image}/versions/{version}. */
export function getCommunityGalleryImageVersion(
  ctx: EmulatorContext,
  location: string,
  gallery: string,
  image: string,
  version: string,
): ArmResponse {
  const found = (ctx.state.communityGalleries.versions(gallery, image) ?? []).find(
    (v) => v.version.toLowerCase() === version.toLowerCase(),
  );
  if (!found)
    throw galleryImageNotFound(
      `/CommunityGalleries/${gallery}/Images/${image}/Versions/${version}`,
      location,
    );
  return { status: 200, body: versionBody(found, location.toLowerCase()) };
}
