/**
 * A CloudProvider decorator that times every call into `karpenter_cloudprovider_duration_seconds`
 * and counts failures in `karpenter_cloudprovider_errors_total` (labels controller, method,
 * provider, error = the error's class name), as upstream's metrics decorator does. One instance
 * per controller, so the `controller` label says who called.
 */
import type { NodeClaim, NodePool } from '@karpenter-ts/api';
import type {
  CloudProvider,
  InstanceType,
  NodeClassKind,
  RepairPolicy,
} from '@karpenter-ts/cloudprovider';
import type { OperatorMetrics } from './metrics.js';

/** Wraps `inner`; calls and results are unchanged. */
export function meteredCloudProvider(
  inner: CloudProvider,
  metrics: OperatorMetrics,
  controller: string,
): CloudProvider {
  const provider = inner.name;
  async function timed<T>(method: string, call: () => Promise<T>): Promise<T> {
    const end = metrics.cloudProviderDuration.startTimer({ controller, method, provider });
    try {
      return await call();
    } catch (err) {
      const error = err instanceof Error ? err.name : 'Error';
      metrics.cloudProviderErrors.inc({ controller, method, provider, error });
      throw err;
    } finally {
      end();
    }
  }
  return {
    name: inner.name,
    create: (nc: NodeClaim) => timed('Create', () => inner.create(nc)),
    delete: (nc: NodeClaim) => timed('Delete', () => inner.delete(nc)),
    get: (id: string) => timed('Get', () => inner.get(id)),
    list: () => timed('List', () => inner.list()),
    getInstanceTypes: (pool: NodePool): Promise<InstanceType[]> =>
      timed('GetInstanceTypes', () => inner.getInstanceTypes(pool)),
    isDrifted: (nc: NodeClaim) => timed('IsDrifted', () => inner.isDrifted(nc)),
    repairPolicies: (): readonly RepairPolicy[] => inner.repairPolicies(),
    getSupportedNodeClasses: (): readonly NodeClassKind[] => inner.getSupportedNodeClasses(),
  };
}
