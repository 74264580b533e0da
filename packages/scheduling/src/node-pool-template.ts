/**
 * A NodePool as the scheduler launches from it (upstream
 * `nodeclaimtemplate.go`): requirements = pool requirements ∩ template labels ∩
 * `karpenter.sh/nodepool` ∩ the NodeClass label; taints; limits; and its instance types
 * pre-filtered against those requirements.
 */
import type { NodePool, Taint } from '@karpenter-ts/api';
import { Labels, nodeClassLabelKey } from '@karpenter-ts/api';
import { Requirements } from './requirements.js';
import { parseQuantity } from './quantity.js';
import { resourceListFromQuantities, type ResourceList } from './resources.js';
import type { SchedulerInstanceType } from './scheduler-types.js';
import { typeCompatible } from './catalog.js';

/** One NodePool ready for scheduling. */
export interface NodePoolTemplate<IT extends SchedulerInstanceType = SchedulerInstanceType> {
  readonly nodePool: NodePool;
  readonly name: string;
  readonly requirements: Requirements;
  readonly taints: readonly Taint[];
  /** `spec.limits` in canonical units, or undefined when the pool is unlimited. */
  readonly limits: ResourceList | undefined;
  /** Instance types compatible with the template requirements (with an available offering). */
  readonly instanceTypes: readonly IT[];
}

/**
 * Orders pools as upstream `OrderByWeight`: weight descending (unset = 0), equal weights by name
 * descending.
 */
export function orderByWeight(pools: readonly NodePool[]): NodePool[] {
  return [...pools].sort((a, b) => {
    const w = (b.spec.weight ?? 0) - (a.spec.weight ?? 0);
    if (w !== 0) return w;
    const an = a.metadata.name ?? '';
    const bn = b.metadata.name ?? '';
    return an < bn ? 1 : an > bn ? -1 : 0;
  });
}

/**
 * Builds the template of a pool. Throws RequirementError / ResourceListError naming the field
 * when the pool's requirements or limits are malformed.
 */
export function nodePoolTemplate<IT extends SchedulerInstanceType>(
  nodePool: NodePool,
  instanceTypes: readonly IT[],
): NodePoolTemplate<IT> {
  const name = nodePool.metadata.name ?? '';
  const spec = nodePool.spec.template.spec;
  const labels: Record<string, string> = { ...(nodePool.spec.template.metadata?.labels ?? {}) };
  labels[Labels.NodePool] = name;
  if (spec.nodeClassRef !== undefined)
    labels[nodeClassLabelKey(spec.nodeClassRef)] = spec.nodeClassRef.name;
  const requirements = Requirements.fromNodeSelectorRequirements(spec.requirements ?? []);
  requirements.add(...Requirements.fromLabels(labels).values());
  const limits = nodePool.spec.limits === undefined ? undefined : parseLimits(nodePool.spec.limits);
  return {
    nodePool,
    name,
    requirements,
    taints: spec.taints ?? [],
    limits,
    instanceTypes: instanceTypes.filter((it) => typeCompatible(it, requirements)),
  };
}

/**
 * Parses `spec.limits`. A limit too large for an exact JS integer in its canonical unit (e.g.
 * `memory: 10000000Gi`, which upstream's benchmark uses to mean "unlimited") is clamped to
 * Number.MAX_SAFE_INTEGER: no instance type can reach it, so the clamp never changes a decision.
 * Throws ResourceListError / QuantityError for a malformed quantity.
 */
export function parseLimits(limits: Record<string, string | number>): ResourceList {
  const out: ResourceList = {};
  for (const [name, quantity] of Object.entries(limits)) {
    try {
      Object.assign(out, resourceListFromQuantities({ [name]: quantity }));
    } catch (e) {
      const q = parseQuantity(quantity);
      if (q.nanos <= 0n) throw e;
      out[name] = Number.MAX_SAFE_INTEGER;
    }
  }
  return out;
}
