/**
 * What single-node and multi-node consolidation share (upstream `disruption/consolidation.go`):
 * the candidate filter and `computeConsolidation`.
 *
 * Filter: not a static pool; the instance type is in the pool's catalog; the node has zone and
 * capacity-type labels; `consolidateAfter` is not `Never`; the node is not empty (empty nodes are
 * emptiness's); the policy is not `WhenEmpty` (nor `Balanced`, whose scoring is not built yet:
 * it acts as `WhenEmpty` here, a deliberate and safe difference); `Consolidatable=True`.
 *
 * `computeConsolidation(candidates)`: simulate without them. Every pod that must move has to
 * schedule. No new node claim: delete. More than one: nothing ("can't remove without creating N
 * nodes"). Exactly one: its options are sorted by price and, unless all candidates are spot and
 * the replacement may be spot (the spot-to-spot path, behind `SpotToSpotConsolidation`), kept
 * only when their worst-case launch price is below the candidates' total price and minValues
 * still hold; a replacement that may be spot or on-demand is restricted to spot, since the price
 * filter assumed spot. Spot to spot keeps options whose worst-case spot price is below the
 * candidates' (as upstream) and, for a single candidate, needs at least 15 of them and takes the
 * 15 cheapest (or as many as minValues need).
 */
import type { Pod } from '@karpenter-ts/api';
import { Labels } from '@karpenter-ts/api';
import {
  availableCompatibleOfferings,
  cheapestOffering,
  orderByPrice,
  worstCaseLaunchPrice,
  type InstanceType,
} from '@karpenter-ts/cloudprovider';
import { checkMinValues, Requirement, type NewNodeClaim } from '@karpenter-ts/scheduling';
import { notConsolidatableReason } from '../../nodeclaim/disruption/consolidatable.js';
import { NodeClaimConditions } from '@karpenter-ts/api';
import { isTrue } from '../../conditions.js';
import type { Candidate } from '../candidate.js';
import type { Command, MethodName } from '../command.js';
import { consolidateAfterSeconds, type MethodContext } from '../method.js';
import { describeFailures, simulateScheduling } from '../simulation.js';

/** Upstream `MinInstanceTypesForSpotToSpotConsolidation`. */
export const MinInstanceTypesForSpotToSpot = 15;

/**
 * Why consolidation may not touch the candidate at `nowMs`, or undefined (see the module
 * comment).
 */
export function consolidationFilter(c: Candidate, nowMs: number): string | undefined {
  const pool = c.nodePool;
  if (pool.spec.replicas !== undefined) return 'nodepool is static';
  if (c.instanceType === undefined) {
    return `instance type ${c.node.metadata?.labels?.[Labels.InstanceType] ?? '(none)'} is not in the catalog of nodepool ${c.nodePoolName}`;
  }
  if (c.zone === undefined || c.capacityType === undefined) {
    return 'node has no zone or capacity-type label';
  }
  const after = consolidateAfterSeconds(pool);
  if (after === null) return 'consolidateAfter is Never';
  if (c.reschedulablePods.length === 0) return 'empty (emptiness removes it)';
  const policy = pool.spec.disruption?.consolidationPolicy ?? 'WhenEmptyOrUnderutilized';
  if (policy !== 'WhenEmptyOrUnderutilized') return `${policy} and not empty`;
  if (!isTrue(c.nodeClaim, NodeClaimConditions.Consolidatable)) {
    // A time already past means the condition is about to be set; say so rather than a past time.
    return notConsolidatableReason(c.nodeClaim, after, nowMs);
  }
  return undefined;
}

/** A consolidation's outcome: a command, or why there is none. */
export type ConsolidationOutcome =
  | { readonly command: Command; readonly reason?: undefined }
  | { readonly command?: undefined; readonly reason: string };

/** See the module comment. */
export function computeConsolidation(
  ctx: MethodContext,
  method: MethodName,
  candidates: readonly Candidate[],
): ConsolidationOutcome {
  const { results, failures } = simulateScheduling(ctx.sim, candidates);
  if (failures.size > 0) return { reason: describeFailures(failures) };
  const candidatePrice = candidates.reduce((s, c) => s + c.price, 0);
  const base = {
    method,
    reason: 'Underutilized' as const,
    disruptionClass: 'graceful' as const,
    destinations: results.existingNodes.map((e) => e.name),
  };
  if (results.newNodeClaims.length === 0) {
    return { command: { ...base, candidates, replacements: [], savings: candidatePrice } };
  }
  if (results.newNodeClaims.length > 1) {
    return {
      reason: `can't remove without creating ${results.newNodeClaims.length} nodes`,
    };
  }
  const claim = results.newNodeClaims[0] as NewNodeClaim<InstanceType>;
  const reqs = claim.requirements;
  const options = orderByPrice(claim.instanceTypeOptions, reqs);
  const allSpot = candidates.every((c) => c.capacityType === 'spot');
  const capacity = reqs.get(Labels.CapacityType);
  if (allSpot && capacity.has('spot')) {
    return spotToSpot(ctx, base, candidates, claim, options, candidatePrice);
  }
  const cheaper = options.filter(
    (it) =>
      worstCaseLaunchPrice(availableCompatibleOfferings(it.offerings, reqs), reqs) < candidatePrice,
  );
  const kept = keepMinValues(claim, cheaper);
  if (kept === undefined || kept.length === 0) {
    return { reason: "can't replace with a cheaper node" };
  }
  let narrowed = narrowTo(claim, kept);
  if (capacity.has('spot') && capacity.has('on-demand')) {
    narrowed = {
      ...narrowed,
      requirements: narrowed.requirements
        .copy()
        .add(Requirement.create(Labels.CapacityType, 'In', ['spot'])),
    };
  }
  return {
    command: {
      ...base,
      candidates,
      replacements: [narrowed],
      savings: candidatePrice - cheapestPrice(narrowed),
    },
  };
}

function spotToSpot(
  ctx: MethodContext,
  base: Pick<Command, 'method' | 'reason' | 'disruptionClass' | 'destinations'>,
  candidates: readonly Candidate[],
  claim: NewNodeClaim<InstanceType>,
  options: InstanceType[],
  candidatePrice: number,
): ConsolidationOutcome {
  if (!ctx.spotToSpotConsolidation) {
    return {
      reason: "SpotToSpotConsolidation is disabled, can't replace a spot node with a spot node",
    };
  }
  const spotReqs = claim.requirements
    .copy()
    .add(Requirement.create(Labels.CapacityType, 'In', ['spot']));
  // Upstream filters spot options by their worst-case launch price too
  // (RemoveInstanceTypeOptionsByPriceAndMinValues): a spot launch may land in any zone.
  let cheaper = options.filter(
    (it) =>
      worstCaseLaunchPrice(availableCompatibleOfferings(it.offerings, spotReqs), spotReqs) <
      candidatePrice,
  );
  if (candidates.length === 1) {
    if (cheaper.length < MinInstanceTypesForSpotToSpot) {
      return {
        reason: `SpotToSpotConsolidation requires ${MinInstanceTypesForSpotToSpot} cheaper instance type options than the current candidate to consolidate, got ${cheaper.length}`,
      };
    }
    const needed = spotReqs.hasMinValues() ? checkMinValues(spotReqs, cheaper).needed : 0;
    cheaper = cheaper.slice(0, Math.max(MinInstanceTypesForSpotToSpot, needed));
  }
  const kept = keepMinValues({ ...claim, requirements: spotReqs }, cheaper);
  if (kept === undefined || kept.length === 0) {
    return { reason: "can't replace with a cheaper node" };
  }
  const narrowed = narrowTo({ ...claim, requirements: spotReqs }, kept);
  return {
    command: {
      ...base,
      candidates,
      replacements: [narrowed],
      savings: candidatePrice - cheapestPrice(narrowed),
    },
  };
}

/** The options when they still meet the claim's minValues, else undefined. */
function keepMinValues(
  claim: NewNodeClaim<InstanceType>,
  options: InstanceType[],
): InstanceType[] | undefined {
  if (!claim.requirements.hasMinValues()) return options;
  return checkMinValues(claim.requirements, options).satisfied ? options : undefined;
}

/** The claim with only `options` left, its instance-type requirement narrowed to them. */
export function narrowTo(
  claim: NewNodeClaim<InstanceType>,
  options: readonly InstanceType[],
): NewNodeClaim<InstanceType> {
  const it = claim.requirements.get(Labels.InstanceType);
  return {
    ...claim,
    instanceTypeOptions: options,
    requirements: claim.requirements.copy().add(
      Requirement.create(
        Labels.InstanceType,
        'In',
        options.map((o) => o.name),
        it.minValues,
      ),
    ),
  };
}

/** USD/hour of the cheapest available compatible offering of the claim's cheapest option. */
export function cheapestPrice(claim: NewNodeClaim<InstanceType>): number {
  let best = Number.POSITIVE_INFINITY;
  for (const it of claim.instanceTypeOptions) {
    const o = cheapestOffering(it.offerings, claim.requirements);
    if (o !== undefined && o.price < best) best = o.price;
  }
  return best === Number.POSITIVE_INFINITY ? 0 : best;
}

/** Pods of the candidates, for messages. */
export function podsOf(candidates: readonly Candidate[]): Pod[] {
  return candidates.flatMap((c) => c.reschedulablePods);
}
