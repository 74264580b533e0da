/**
 * What to tell an operator about a cache whose list or watch failed: a 404 for a resource outside
 * the core group (`nodepools.karpenter.sh`, `aksnodeclasses.karpenter.azure.com`) means its CRD is
 * not installed. Upstream's controllers stop at start naming the missing kind; ours keep
 * retrying (the CRDs may be applied right after the controller), so the hint goes with every
 * warning until the cache lists.
 */
import { isNotFound } from '@karpenter-ts/controllers';

/**
 * The hint for a failed list or watch of `resource` (`plural.group`, `pods.core` for the core
 * group), or undefined when the error says nothing an operator can act on.
 */
export function informerFailureHint(err: unknown, resource: string): string | undefined {
  if (!isNotFound(err) || resource.endsWith('.core')) return undefined;
  return `the ${resource} CRD is not installed: apply the chart's CRDs (kubectl apply --server-side -f deploy/charts/karpenter-ts/crds)`;
}
