/**
 * A NodePool's share of the catalog: the instance types whose requirements intersect the
 * pool's own. The scheduler keeps only such types for a pool anyway (it then narrows them with
 * the pool's labels and the types' available offerings), so handing it the rest costs time on
 * every provisioning and consolidation pass (1,000 to 1,350 types per region) and changes no
 * decision. Offerings are left as they are: availability changes during a run.
 */
import type { NodePool } from '@karpenter-ts/api';
import type { InstanceType } from '@karpenter-ts/cloudprovider';
import { Requirements } from '@karpenter-ts/scheduling';

/** Caches the filtered list per catalog and pool requirements. */
export class PoolInstanceTypes {
  readonly #cache = new WeakMap<readonly InstanceType[], Map<string, readonly InstanceType[]>>();

  /** The types of `catalog` the pool's requirements intersect (the whole catalog without a pool). */
  get(catalog: readonly InstanceType[], pool: NodePool | undefined): readonly InstanceType[] {
    if (pool === undefined) return catalog;
    const requirements = pool.spec.template.spec.requirements ?? [];
    const key = JSON.stringify(requirements);
    let byKey = this.#cache.get(catalog);
    if (byKey === undefined) this.#cache.set(catalog, (byKey = new Map()));
    let types = byKey.get(key);
    if (types === undefined) {
      const r = Requirements.fromNodeSelectorRequirements(requirements);
      types = catalog.filter((it) => r.isIntersecting(it.requirements));
      byKey.set(key, types);
    }
    return types;
  }
}
