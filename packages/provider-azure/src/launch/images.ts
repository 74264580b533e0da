/**
 * The node image for an instance type: the first `status.images` entry of the AKSNodeClass whose
 * requirements (arch, Hyper-V generation) the instance type satisfies (as upstream
 * `Azure/karpenter-provider-azure`), and the VM `imageReference` it becomes: a community
 * gallery image ID (`/CommunityGalleries/...`, self-hosted) or a shared image gallery version ID
 * (`id`, NAP).
 */
import type { ImageReference } from '@azure/arm-compute';
import { Requirements } from '@karpenter-ts/scheduling';
import type { AzureInstanceType } from '../instancetype/instance-type.js';
import type { AKSNodeClass } from '../nodeclass/types.js';

/** The image ID for the instance type, or undefined when no image fits it. */
export function imageForInstanceType(
  nodeClass: AKSNodeClass,
  instanceType: AzureInstanceType,
): string | undefined {
  for (const image of nodeClass.status?.images ?? []) {
    const reqs = Requirements.fromNodeSelectorRequirements(
      image.requirements.map((r) => ({
        key: r.key,
        operator: r.operator as 'In',
        values: r.values ?? [],
      })),
    );
    if (reqs.isIntersecting(instanceType.requirements)) return image.id;
  }
  return undefined;
}

/** The VM image reference of an image ID. */
export function imageReference(imageID: string): ImageReference {
  return /^\/CommunityGalleries\//i.test(imageID)
    ? { communityGalleryImageId: imageID }
    : { id: imageID };
}
