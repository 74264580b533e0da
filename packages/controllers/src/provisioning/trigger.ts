/**
 * The provisioning triggers (upstream `provisioning/controller.go`): a pod
 * reconciler that feeds the batcher with each provisionable pod (and re-triggers every 10 s while
 * it stays provisionable), and a node reconciler that triggers for nodes being disrupted, whose
 * pods will need new homes.
 */
import type { Node, Pod } from '@karpenter-ts/api';
import { Taints } from '@karpenter-ts/api';
import { done, requeueAfter, type ReconcileResult } from '../reconciler.js';
import { isProvisionable } from './pod-eligibility.js';
import type { Provisioner } from './provisioner.js';

/** Seconds between triggers for a pod that stays provisionable. */
export const POD_RETRIGGER_SECONDS = 10;

/** Pod trigger: provisionable pods open or extend the batch window. */
export function reconcilePodTrigger(provisioner: Provisioner, pod: Pod): ReconcileResult {
  if (!isProvisionable(pod)) return done;
  provisioner.trigger(pod.metadata?.uid ?? `${pod.metadata?.namespace}/${pod.metadata?.name}`);
  return requeueAfter(POD_RETRIGGER_SECONDS);
}

/** Node trigger: a node carrying `karpenter.sh/disrupted:NoSchedule` triggers provisioning. */
export function reconcileNodeTrigger(provisioner: Provisioner, node: Node): ReconcileResult {
  const disrupted = (node.spec?.taints ?? []).some(
    (t) => t.key === Taints.Disrupted.key && t.effect === Taints.Disrupted.effect,
  );
  if (!disrupted) return done;
  provisioner.trigger(`node/${node.metadata?.uid ?? node.metadata?.name}`);
  return requeueAfter(POD_RETRIGGER_SECONDS);
}
