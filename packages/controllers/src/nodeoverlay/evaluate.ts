/**
 * One evaluation of every NodeOverlay against every NodePool's instance types (upstream
 * `nodeoverlay.Controller.Reconcile`):
 * - overlays in order of weight, highest first (unset counts as 0), equal weights by name
 *   descending, as upstream's sort does;
 * - an overlay failing runtime validation is refused (`RuntimeValidation`) and applies nowhere;
 * - an overlay selects, per NodePool, the instance types whose requirements together with the
 *   pool's name (`karpenter.sh/nodepool`) and template labels are compatible with its
 *   requirements, and of those the offerings compatible with them;
 * - the first (highest-weight) overlay to set an offering's price wins; a later overlay of the
 *   same weight that also prices that offering conflicts. Capacity merges: each resource keeps
 *   the value of the highest-weight overlay that adds it; an overlay of the same weight adding a
 *   resource the previous one added conflicts;
 * - a conflicting overlay applies nowhere (it is checked against every pool before any change
 *   is stored) and is refused (`Conflict`); the overlay it conflicts with keeps applying.
 */
import type { NodeOverlay, NodePool, RuntimeValidationOptions } from '@karpenter-ts/api';
import { Labels, validateNodeOverlayRuntime } from '@karpenter-ts/api';
import { isOfferingCompatible, type InstanceType } from '@karpenter-ts/cloudprovider';
import {
  Requirements,
  resourceListFromQuantities,
  WELL_KNOWN_LABELS_ALLOW_UNDEFINED,
} from '@karpenter-ts/scheduling';
import { priceChange } from './adjusted-price.js';
import {
  NodeOverlayEvaluation,
  offeringKey,
  type InstanceTypeUpdate,
} from './instance-type-store.js';

/** Why an overlay does not apply: upstream's `ValidationSucceeded=False` reasons. */
export type RefusalReason = 'RuntimeValidation' | 'Conflict';

/** An overlay that applies nowhere, and why. */
export interface RefusedOverlay {
  readonly reason: RefusalReason;
  /** One line, e.g. `conflicts with NodeOverlay a (weight 10) on nodepool default, instance type m5.large`. */
  readonly message: string;
}

/** Options of {@link evaluateNodeOverlays}. */
export interface EvaluateOptions {
  /** The provider's label rules for runtime validation. */
  readonly validation?: RuntimeValidationOptions;
  /**
   * Keys an offering may pin that an overlay's requirements leave undefined (default: the
   * well-known labels; a provider whose offerings pin a reservation-id label adds it).
   */
  readonly allowUndefinedLabels?: ReadonlySet<string>;
}

/** What one evaluation found. */
export interface NodeOverlayEvaluationResult {
  readonly evaluation: NodeOverlayEvaluation;
  /** Refused overlays by name; overlays not listed applied (or selected nothing). */
  readonly refused: ReadonlyMap<string, RefusedOverlay>;
  /** Overlay names in the order they were applied (weight, then name descending). */
  readonly order: readonly string[];
}

/** Overlay weight; unset counts as 0. */
export function overlayWeight(overlay: NodeOverlay): number {
  return overlay.spec.weight ?? 0;
}

/** Overlays in evaluation order: weight descending, then name descending (upstream's sort). */
export function orderByWeight(overlays: readonly NodeOverlay[]): NodeOverlay[] {
  return [...overlays].sort((a, b) => {
    const w = overlayWeight(b) - overlayWeight(a);
    if (w !== 0) return w;
    const an = a.metadata.name ?? '';
    const bn = b.metadata.name ?? '';
    return an < bn ? 1 : an > bn ? -1 : 0;
  });
}

/**
 * Evaluates `overlays` against `nodePools`, whose instance types (as the provider lists them,
 * without overlays) are `instanceTypes` by pool name. A pool missing from `instanceTypes` (its
 * listing failed) is not covered by the evaluation, so it stays unevaluated. Never throws.
 */
export function evaluateNodeOverlays(
  overlays: readonly NodeOverlay[],
  nodePools: readonly NodePool[],
  instanceTypes: ReadonlyMap<string, readonly InstanceType[]>,
  options: EvaluateOptions = {},
): NodeOverlayEvaluationResult {
  const evaluation = new NodeOverlayEvaluation();
  const refused = new Map<string, RefusedOverlay>();
  const order: string[] = [];
  const allow = options.allowUndefinedLabels ?? WELL_KNOWN_LABELS_ALLOW_UNDEFINED;
  const pools = nodePools.filter((p) => instanceTypes.has(p.metadata.name ?? ''));
  for (const overlay of orderByWeight(overlays)) {
    const name = overlay.metadata.name ?? '';
    order.push(name);
    const parsed = parseOverlay(overlay, options.validation);
    if (typeof parsed === 'string') {
      refused.set(name, { reason: 'RuntimeValidation', message: parsed });
      continue;
    }
    // Every selection first, then a conflict check across all pools, then the changes: an
    // overlay applies everywhere or nowhere.
    const selections: Selection[] = [];
    for (const pool of pools) {
      const poolName = pool.metadata.name ?? '';
      for (const it of instanceTypes.get(poolName) ?? []) {
        const offerings = selectedOfferings(pool, it, parsed.requirements, allow);
        if (offerings.length > 0) selections.push({ poolName, it, offerings });
      }
    }
    const conflict = selections
      .map((s) => conflictOf(evaluation.find(s.poolName, s.it.name), s, parsed))
      .find((c) => c !== undefined);
    if (conflict !== undefined) {
      refused.set(name, { reason: 'Conflict', message: conflict });
      continue;
    }
    for (const s of selections) store(evaluation.updateOf(s.poolName, s.it.name), s, parsed);
  }
  for (const pool of pools) {
    const poolName = pool.metadata.name ?? '';
    evaluation.evaluatedNodePools.add(poolName);
    evaluation.providerInstanceTypes.set(poolName, instanceTypes.get(poolName) ?? []);
  }
  return { evaluation, refused, order };
}

interface ParsedOverlay {
  readonly name: string;
  readonly weight: number;
  readonly requirements: Requirements;
  readonly price: string | undefined;
  readonly capacity: Record<string, number> | undefined;
}

interface Selection {
  readonly poolName: string;
  readonly it: InstanceType;
  /** Offering keys the overlay selects. */
  readonly offerings: readonly string[];
}

/** The overlay ready to apply, or the runtime validation failure as one line. */
function parseOverlay(
  overlay: NodeOverlay,
  validation: RuntimeValidationOptions | undefined,
): ParsedOverlay | string {
  const violations = validateNodeOverlayRuntime(overlay, validation);
  if (violations.length > 0) return violations.map((v) => `${v.path}: ${v.message}`).join('; ');
  let capacity: Record<string, number> | undefined;
  try {
    capacity =
      overlay.spec.capacity === undefined
        ? undefined
        : resourceListFromQuantities(overlay.spec.capacity);
  } catch (err) {
    return `spec.capacity: ${(err as Error).message}`;
  }
  let requirements: Requirements;
  try {
    requirements = Requirements.fromNodeSelectorRequirements(overlay.spec.requirements ?? []);
  } catch (err) {
    return `spec.requirements: ${(err as Error).message}`;
  }
  return {
    name: overlay.metadata.name ?? '',
    weight: overlayWeight(overlay),
    requirements,
    price: priceChange(overlay.spec),
    capacity,
  };
}

/**
 * Keys of the offerings of `it` the overlay selects in `pool` (none when the instance type, with
 * the pool's name and template labels, is not compatible with the overlay's requirements).
 */
function selectedOfferings(
  pool: NodePool,
  it: InstanceType,
  requirements: Requirements,
  allowUndefined: ReadonlySet<string>,
): string[] {
  const typeRequirements = Requirements.fromLabels({
    ...(pool.spec.template.metadata?.labels ?? {}),
    [Labels.NodePool]: pool.metadata.name ?? '',
  }).add(...it.requirements.values());
  if (!typeRequirements.isCompatible(requirements)) return [];
  return it.offerings
    .filter((o) => isOfferingCompatible(o, requirements, allowUndefined))
    .map(offeringKey);
}

/** Why applying `overlay` to this selection conflicts with what an equal-weight overlay set, or undefined. */
function conflictOf(
  update: InstanceTypeUpdate | undefined,
  s: Selection,
  overlay: ParsedOverlay,
): string | undefined {
  if (update === undefined) return undefined;
  const where = `on nodepool ${s.poolName}, instance type ${s.it.name}`;
  if (overlay.price !== undefined) {
    for (const key of s.offerings) {
      const set = update.price.get(key);
      if (set !== undefined && set.lowestWeight === overlay.weight) {
        return `price conflicts with NodeOverlay ${set.lowestWeightOverlay} (same weight ${overlay.weight}) ${where}`;
      }
    }
  }
  const capacity = update.capacity;
  if (overlay.capacity !== undefined && capacity !== undefined) {
    if (capacity.lowestWeight === overlay.weight) {
      const shared = Object.keys(overlay.capacity).filter((r) =>
        capacity.lowestWeightResources.has(r),
      );
      if (shared.length > 0) {
        return `capacity ${shared.join(', ')} conflicts with NodeOverlay ${capacity.lowestWeightOverlay} (same weight ${overlay.weight}) ${where}`;
      }
    }
  }
  return undefined;
}

/** Records the overlay's changes on one selection (no conflict checks: done before). */
function store(update: InstanceTypeUpdate, s: Selection, overlay: ParsedOverlay): void {
  if (overlay.price !== undefined) {
    for (const key of s.offerings) {
      const set = update.price.get(key);
      if (set !== undefined) {
        // A higher-weight overlay priced it: it keeps the price; this one is the lowest so far.
        set.lowestWeight = overlay.weight;
        set.lowestWeightOverlay = overlay.name;
        continue;
      }
      update.price.set(key, {
        change: overlay.price,
        overlay: overlay.name,
        lowestWeight: overlay.weight,
        lowestWeightOverlay: overlay.name,
      });
    }
  }
  if (overlay.capacity !== undefined) {
    const names = new Set(Object.keys(overlay.capacity));
    if (update.capacity === undefined) {
      update.capacity = {
        resources: { ...overlay.capacity },
        overlays: [overlay.name],
        lowestWeight: overlay.weight,
        lowestWeightOverlay: overlay.name,
        lowestWeightResources: names,
      };
    } else {
      const c = update.capacity;
      for (const [r, v] of Object.entries(overlay.capacity))
        if (!(r in c.resources)) c.resources[r] = v;
      c.overlays.push(overlay.name);
      c.lowestWeight = overlay.weight;
      c.lowestWeightOverlay = overlay.name;
      c.lowestWeightResources = names;
    }
  }
}
