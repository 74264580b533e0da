/**
 * The node images of an AKSNodeClass (`status.images`), as upstream's self-hosted mode finds them
 * (upstream `Azure/karpenter-provider-azure`'s image provider): for each image definition of the
 * resolved family and variant, in priority order, the newest version of the Community Image Gallery
 * image by `publishedDate`, through ARM's `communityGalleryImageVersions.list`. Versions excluded
 * from latest or past their end of life are skipped; a definition without a usable version is left
 * out. Results are cached for 3 days per image set and Kubernetes version, as upstream.
 *
 * Our difference: `pinnedVersion` (the controller's `AKS_NODE_IMAGE_VERSION`) uses that one
 * version for every definition without listing (users ask for pinning, upstream issue #1220).
 */
import type { CommunityGalleryImageVersion, ComputeManagementClient } from '@azure/arm-compute';
import type { Clock } from '@karpenter-ts/cloudprovider';
import { AzureLabels } from '../labels.js';
import { isNotFound } from '../launch/arm-errors.js';
import type { AKSNodeClassSpec, AKSNodeClassStatus } from '../nodeclass/types.js';
import { nodeImageDefinitions, type NodeImageDefinition } from './image-families.js';

/** One `status.images` entry: an image version ID and the instance types it fits. */
export type NodeImage = NonNullable<AKSNodeClassStatus['images']>[number];

/** Why no node image can be offered; `reason` is the `ImagesReady` condition reason. */
export class NodeImagesError extends Error {
  /** `ImagesNotFound` (no version of any definition) or `SIGRequiredForFIPS`. */
  readonly reason: 'ImagesNotFound' | 'SIGRequiredForFIPS';
  constructor(reason: NodeImagesError['reason'], message: string) {
    super(message);
    this.name = 'NodeImagesError';
    this.reason = reason;
  }
}

/** How long a resolved image list is reused: 3 days, upstream's image cache expiry. */
export const NodeImageCacheSeconds = 3 * 24 * 3600;

/** Options of {@link NodeImageResolver}. */
export interface NodeImageResolverOptions {
  /** The ARM compute client (its `communityGalleryImageVersions.list` is called). */
  readonly compute: Pick<ComputeManagementClient, 'communityGalleryImageVersions'>;
  /** ARM region whose gallery replicas are listed, e.g. `eastus`. */
  readonly location: string;
  /** Time for cache expiry and end-of-life checks. */
  readonly clock: Clock;
  /** One version (e.g. `202506.10.0`) for every definition, no listing; unset: the newest. */
  readonly pinnedVersion?: string;
  /** Cache lifetime, seconds; default {@link NodeImageCacheSeconds}. */
  readonly cacheSeconds?: number;
}

/** `/CommunityGalleries/{gallery}/images/{definition}/versions/{version}`. */
export function communityGalleryImageID(definition: NodeImageDefinition, version: string): string {
  return `/CommunityGalleries/${definition.communityGallery}/images/${definition.definition}/versions/${version}`;
}

/** The `status.images` entry of a definition at a version. */
function nodeImage(definition: NodeImageDefinition, version: string): NodeImage {
  return {
    id: communityGalleryImageID(definition, version),
    requirements: [
      { key: 'kubernetes.io/arch', operator: 'In', values: [definition.arch] },
      {
        key: AzureLabels.SKUHyperVGeneration,
        operator: 'In',
        values: [definition.hyperVGeneration],
      },
    ],
  };
}

/**
 * The newest version by `publishedDate` among those not excluded from latest and not past their
 * end of life at `nowMs`; ties go to the greater name. Undefined when none qualifies.
 */
export function newestImageVersion(
  versions: readonly CommunityGalleryImageVersion[],
  nowMs: number,
): CommunityGalleryImageVersion | undefined {
  let best: CommunityGalleryImageVersion | undefined;
  for (const v of versions) {
    if (v.name === undefined || v.excludeFromLatest === true) continue;
    if (v.endOfLifeDate !== undefined && v.endOfLifeDate.getTime() <= nowMs) continue;
    const t = v.publishedDate?.getTime() ?? 0;
    const bestT = best?.publishedDate?.getTime() ?? 0;
    if (!best || t > bestT || (t === bestT && v.name > (best.name ?? ''))) best = v;
  }
  return best;
}

/**
 * The ID of an image without its version (`.../images/{definition}`), lower case: the same image
 * definition at any version.
 */
export function imageDefinitionOf(imageID: string): string {
  return imageID.replace(/\/versions\/[^/]+$/i, '').toLowerCase();
}

/**
 * `goal` with each image's version replaced by the one `existing` holds for the same definition:
 * new definitions come in at their goal version, definitions no longer wanted go away. The
 * status controller's answer between maintenance windows (upstream keeps versions then).
 */
export function keepExistingVersions(
  goal: readonly NodeImage[],
  existing: readonly NodeImage[],
): NodeImage[] {
  const held = new Map(existing.map((i) => [imageDefinitionOf(i.id), i.id]));
  return goal.map((i) => {
    const id = held.get(imageDefinitionOf(i.id));
    return id === undefined ? i : { ...i, id };
  });
}

/** Lists node image versions and picks the newest per definition (see the module comment). */
export class NodeImageResolver {
  readonly #o: NodeImageResolverOptions;
  readonly #cache = new Map<string, { images: NodeImage[]; expiresAt: number }>();
  readonly #inFlight = new Map<string, Promise<NodeImage[]>>();

  constructor(options: NodeImageResolverOptions) {
    this.#o = options;
  }

  /**
   * The node images of `spec` at Kubernetes version `kubernetesVersion` (`1.33.2`), in priority
   * order. Raises {@link NodeImagesError} (`SIGRequiredForFIPS` for FIPS, which only the shared
   * image gallery has; `ImagesNotFound` when no definition has a usable version), Error for a
   * malformed Kubernetes version, and the SDK's RestError when listing fails (other than 404,
   * which means the image is not in this region: that definition is left out).
   */
  async list(spec: AKSNodeClassSpec, kubernetesVersion: string): Promise<NodeImage[]> {
    if (spec.fipsMode === 'FIPS')
      throw new NodeImagesError(
        'SIGRequiredForFIPS',
        'fipsMode FIPS needs the AKS shared image gallery, which self-hosted mode does not use',
      );
    const resolved = nodeImageDefinitions(spec, kubernetesVersion);
    const usable = resolved.definitions.filter((d) => !d.sharedGalleryOnly);
    if (usable.length === 0)
      throw new NodeImagesError(
        'ImagesNotFound',
        `image family ${resolved.family} has no ${resolved.variant} images`,
      );
    const pinned = this.#o.pinnedVersion;
    if (pinned !== undefined) return usable.map((d) => nodeImage(d, pinned));

    const key = `${resolved.family}/${resolved.variant}/${usable.map((d) => d.definition).join(',')}@${kubernetesVersion}`;
    const now = this.#o.clock.now();
    const cached = this.#cache.get(key);
    if (cached && cached.expiresAt > now) return structuredClone(cached.images);
    let pending = this.#inFlight.get(key);
    if (!pending) {
      pending = this.#listNewest(usable).finally(() => this.#inFlight.delete(key));
      this.#inFlight.set(key, pending);
    }
    const images = await pending;
    if (images.length === 0)
      throw new NodeImagesError(
        'ImagesNotFound',
        `no usable version of ${usable.map((d) => d.definition).join(', ')} in the community galleries in ${this.#o.location}`,
      );
    this.#cache.set(key, {
      images,
      expiresAt: now + (this.#o.cacheSeconds ?? NodeImageCacheSeconds) * 1000,
    });
    return structuredClone(images);
  }

  async #listNewest(definitions: readonly NodeImageDefinition[]): Promise<NodeImage[]> {
    // Settle every listing before failing, so no request outlives the call.
    const settled = await Promise.allSettled(
      definitions.map(async (d) => {
        const versions: CommunityGalleryImageVersion[] = [];
        try {
          for await (const v of this.#o.compute.communityGalleryImageVersions.list(
            this.#o.location,
            d.communityGallery,
            d.definition,
          ))
            versions.push(v);
        } catch (err) {
          if (isNotFound(err)) return undefined;
          throw err;
        }
        const newest = newestImageVersion(versions, this.#o.clock.now());
        return newest?.name === undefined ? undefined : nodeImage(d, newest.name);
      }),
    );
    const failed = settled.find((r) => r.status === 'rejected');
    if (failed) throw failed.reason;
    return settled.flatMap((r) =>
      r.status === 'fulfilled' && r.value !== undefined ? [r.value] : [],
    );
  }
}
