/**
 * `karpenter.sh/v1alpha1` NodeOverlay (gate NodeOverlay): adjusts the price or adds extended
 * resource capacity of the instance types/offerings its requirements select.
 */
import type { ObjectMeta } from './core.js';
import type { ResourceQuantities, StatusCondition } from './common.js';
import type { NodeSelectorRequirement } from './core.js';

/** `apiVersion` of NodeOverlay. */
export const KarpenterV1Alpha1 = 'karpenter.sh/v1alpha1';

/** `spec` of a NodeOverlay. `price` and `priceAdjustment` are mutually exclusive. */
export interface NodeOverlaySpec {
  /** Selects instance types/offerings (≤100; `{key, operator, values}`, no minValues). */
  requirements: NodeSelectorRequirement[];
  /** Absolute price in USD/hour as a decimal string (`"0.42"`). */
  price?: string;
  /** Relative change: `+0.1`/`-0.1` (absolute USD/hour) or `+10%`/`-10%` (≤2 integer digits), or `-100%`. */
  priceAdjustment?: string;
  /** Extra extended resources added to capacity; cpu, memory, ephemeral-storage, pods are forbidden. */
  capacity?: ResourceQuantities;
  /** Precedence 1..10000; higher wins. */
  weight?: number;
}

/** `status` of a NodeOverlay (`ValidationSucceeded`, root `Ready`). */
export interface NodeOverlayStatus {
  conditions?: StatusCondition[];
}

/** A `karpenter.sh/v1alpha1` NodeOverlay object. */
export interface NodeOverlay {
  apiVersion: 'karpenter.sh/v1alpha1';
  kind: 'NodeOverlay';
  metadata: ObjectMeta;
  spec: NodeOverlaySpec;
  status?: NodeOverlayStatus;
}

/** NodeOverlay condition types (upstream: `ValidationSucceeded`, and the root `Ready` it decides). */
export const NodeOverlayConditions = {
  Ready: 'Ready',
  ValidationSucceeded: 'ValidationSucceeded',
} as const;
