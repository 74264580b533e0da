/**
 * What every provider's `create` reads from the NodeClaim before it picks an offering: the
 * claim's name (its idempotency key) and its resource requests, with the same errors everywhere.
 */
import type { NodeClaim } from '@karpenter-ts/api';
import { resourceListFromQuantities, type ResourceList } from '@karpenter-ts/scheduling';
import { CreateError } from './errors.js';

/**
 * The NodeClaim's `metadata.name`. Raises CreateError `InvalidNodeClaim` when it is missing or
 * empty (a launch must be findable again by name, as upstream's providers tag it).
 */
export function launchNodeClaimName(nodeClaim: NodeClaim): string {
  const name = nodeClaim.metadata.name ?? '';
  if (name === '') throw new CreateError('InvalidNodeClaim', 'node claim has no metadata.name');
  return name;
}

/**
 * The NodeClaim's `spec.resources.requests` as a canonical ResourceList (cpu in millicores,
 * others in base units); `{}` when unset. Raises CreateError `InvalidNodeClaim` naming the claim
 * (`name`) and the field when a quantity cannot be parsed.
 */
export function launchRequests(nodeClaim: NodeClaim, name: string): ResourceList {
  try {
    return resourceListFromQuantities(nodeClaim.spec.resources?.requests ?? {});
  } catch (cause) {
    throw new CreateError(
      'InvalidNodeClaim',
      `node claim ${name}: spec.resources.requests: ${(cause as Error).message}`,
      { cause },
    );
  }
}
