/**
 * The cloud provider as the controllers see it with the `NodeOverlay` gate on (upstream
 * `cloudprovider/overlay` decorator): `getInstanceTypes` returns the
 * provider's instance types with the current overlay evaluation applied (prices, added
 * capacity), or raises UnevaluatedNodePoolError for a pool the evaluation has not covered yet.
 * Provisioning, the disruption simulations (consolidation's price comparisons included), drift
 * and readiness all read instance types through it, so they all see the same overlaid catalog.
 *
 * `create`:
 * - when an overlay priced any of the claim's instance-type options, launches in the order of
 *   the overlaid prices (as upstream's AWS provider switches CreateFleet to a prioritized
 *   strategy for overlaid claims): the claim is handed to the provider narrowed to one
 *   instance type at a time, cheapest overlaid first, moving to the next only on
 *   InsufficientCapacityError (nothing was launched); the provider still picks the zone and
 *   capacity type among that type's offerings by its own ranking;
 * - hides the resources only an overlay adds from the provider's own fit check (the provider's
 *   catalog does not know them; the scheduler already chose options that fit with them);
 * - records the launched instance type's overlaid capacity on the NodeClaim, as the node will
 *   report it once the device plugin or operator the overlay stands for registers it.
 */
import type { NodeClaim, NodePool } from '@karpenter-ts/api';
import { Labels } from '@karpenter-ts/api';
import {
  isInsufficientCapacityError,
  orderByPrice,
  type CloudProvider,
  type InstanceType,
  type NodeClassKind,
  type RepairPolicy,
} from '@karpenter-ts/cloudprovider';
import { formatResourceList, Requirements } from '@karpenter-ts/scheduling';
import type { InstanceTypeStore } from './instance-type-store.js';

/** See the module comment. */
export class OverlaidCloudProvider implements CloudProvider {
  constructor(
    /** The provider itself (what the overlay controller evaluates against). */
    readonly inner: CloudProvider,
    readonly store: InstanceTypeStore,
  ) {}

  get name(): string {
    return this.inner.name;
  }

  /** Instance types with overlays applied; raises UnevaluatedNodePoolError (see the module comment). */
  async getInstanceTypes(nodePool: NodePool): Promise<InstanceType[]> {
    const types = await this.inner.getInstanceTypes(nodePool);
    return this.store.applyAll(nodePool.metadata.name ?? '', types);
  }

  /** Launches through the provider (see the module comment for overlay-added resources). */
  async create(nodeClaim: NodeClaim): Promise<NodeClaim> {
    const pool = nodeClaim.metadata.labels?.[Labels.NodePool] ?? '';
    const evaluation = this.store.current;
    const options =
      nodeClaim.spec.requirements.find((r) => r.key === Labels.InstanceType && r.operator === 'In')
        ?.values ?? [];
    const added = new Set<string>();
    for (const name of options)
      for (const r of Object.keys(evaluation.find(pool, name)?.capacity?.resources ?? {}))
        added.add(r);
    const requests = nodeClaim.spec.resources?.requests;
    const request =
      added.size === 0 || requests === undefined
        ? nodeClaim
        : {
            ...nodeClaim,
            spec: {
              ...nodeClaim.spec,
              resources: {
                ...nodeClaim.spec.resources,
                requests: Object.fromEntries(
                  Object.entries(requests).filter(([r]) => !added.has(r)),
                ),
              },
            },
          };
    const launched = await this.#launch(request, pool, options);
    const type = launched.metadata.labels?.[Labels.InstanceType] ?? '';
    const capacity = evaluation.find(pool, type)?.capacity?.resources;
    if (capacity === undefined || Object.keys(capacity).length === 0) return launched;
    const quantities = formatResourceList(capacity);
    return {
      ...launched,
      status: {
        ...(launched.status ?? {}),
        capacity: { ...(launched.status?.capacity ?? {}), ...quantities },
        allocatable: { ...(launched.status?.allocatable ?? {}), ...quantities },
      },
    };
  }

  /** The provider's create, in overlaid price order when an overlay priced an option. */
  async #launch(
    nodeClaim: NodeClaim,
    pool: string,
    options: readonly string[],
  ): Promise<NodeClaim> {
    const evaluation = this.store.current;
    if (!evaluation.pricesAny(pool, options)) return this.inner.create(nodeClaim);
    const wanted = new Set(options);
    const candidates = evaluation
      .apply(pool, evaluation.providerInstanceTypes.get(pool) ?? [])
      .filter((it) => wanted.has(it.name));
    const requirements = Requirements.fromNodeSelectorRequirements(nodeClaim.spec.requirements);
    const ordered = orderByPrice(candidates, requirements);
    let lastError: unknown;
    for (const it of ordered) {
      const narrowed: NodeClaim = {
        ...nodeClaim,
        spec: {
          ...nodeClaim.spec,
          requirements: nodeClaim.spec.requirements.map((r) =>
            r.key === Labels.InstanceType && r.operator === 'In' ? { ...r, values: [it.name] } : r,
          ),
        },
      };
      try {
        return await this.inner.create(narrowed);
      } catch (err) {
        if (!isInsufficientCapacityError(err)) throw err;
        lastError = err;
      }
    }
    // No option known to this evaluation (the catalog moved since): the provider decides.
    if (lastError === undefined) return this.inner.create(nodeClaim);
    throw lastError;
  }

  delete(nodeClaim: NodeClaim): Promise<void> {
    return this.inner.delete(nodeClaim);
  }

  get(providerID: string): Promise<NodeClaim> {
    return this.inner.get(providerID);
  }

  list(): Promise<NodeClaim[]> {
    return this.inner.list();
  }

  isDrifted(nodeClaim: NodeClaim): Promise<string> {
    return this.inner.isDrifted(nodeClaim);
  }

  repairPolicies(): readonly RepairPolicy[] {
    return this.inner.repairPolicies();
  }

  getSupportedNodeClasses(): readonly NodeClassKind[] {
    return this.inner.getSupportedNodeClasses();
  }
}
