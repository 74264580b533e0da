/**
 * The autoscalers a run can be under, by name: Karpenter (the real controllers) and the Cluster
 * Autoscaler baseline (a comparator model, src/cluster-autoscaler).
 */
import { clusterAutoscaler } from '../cluster-autoscaler/cluster-autoscaler.js';
import type { AutoscalerName, Scenario } from '../scenario/types.js';
import type { AutoscalerFactory } from './autoscaler.js';
import { karpenter } from './karpenter.js';

/** The factory of the autoscaler `name`, with the scenario's settings for it. */
export function autoscalerFactory(name: AutoscalerName, scenario: Scenario): AutoscalerFactory {
  return name === 'karpenter' ? karpenter : clusterAutoscaler(scenario.clusterAutoscaler);
}
