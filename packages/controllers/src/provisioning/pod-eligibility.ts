/**
 * Which pending pods the provisioner acts on (upstream
 * `pkg/utils/pod/scheduling.go` and `provisioner.Validate`).
 *
 * Provisionable: kube-scheduler marked it `PodScheduled=False/Unschedulable`, it is unbound,
 * not preempting (no nominatedNodeName), not a DaemonSet or mirror pod. Of those, a pod is
 * ignored when it requires `karpenter.sh/nodepool DoesNotExist` (silently) or when its node
 * selector or required node affinity cannot be provisioned for (restricted label, bad operator
 * or value, `matchFields`), which is reported as a FailedScheduling event.
 *
 * The PersistentVolumeClaim checks of the same list are VolumeTopology.validate's
 * (volume-topology.ts), which reads the storage objects of cluster state.
 */
import type { NodeSelectorRequirement, Pod } from '@karpenter-ts/api';
import {
  isRestrictedLabel,
  labelValueProblem,
  Labels,
  NodeSelectorOperators,
  normalizeLabelKey,
  qualifiedNameProblem,
} from '@karpenter-ts/api';
import { isDaemonSetPod, isMirrorPod } from '../pods.js';

const OPERATORS: ReadonlySet<string> = new Set<string>(NodeSelectorOperators);

/**
 * True when the pod is a candidate for provisioning: condition PodScheduled with reason
 * `Unschedulable`, no `spec.nodeName`, no `status.nominatedNodeName`, not owned by a DaemonSet,
 * not a mirror pod.
 */
export function isProvisionable(pod: Pod): boolean {
  const scheduled = pod.status?.conditions?.find((c) => c.type === 'PodScheduled');
  return (
    scheduled?.status === 'False' &&
    scheduled.reason === 'Unschedulable' &&
    !pod.spec?.nodeName &&
    !pod.status?.nominatedNodeName &&
    pod.metadata?.deletionTimestamp === undefined &&
    !isDaemonSetPod(pod) &&
    !isMirrorPod(pod)
  );
}

/** Why a provisionable pod is ignored; `silent` ones get no event. */
export interface PodRejection {
  readonly message: string;
  readonly silent: boolean;
}

/** Options of {@link validatePod}. */
export interface PodValidationOptions {
  /** Provider labels that are well known (never restricted), e.g. `karpenter.azure.com/sku-family`. */
  readonly extraWellKnownLabels?: Iterable<string>;
  /** Provider label domains that are restricted, e.g. `karpenter.azure.com`. */
  readonly extraRestrictedDomains?: Iterable<string>;
}

/**
 * Checks a provisionable pod's scheduling constraints. Returns undefined when Karpenter can
 * provision for it, else the rejection (message names the field and the rule).
 */
export function validatePod(
  pod: Pod,
  options: PodValidationOptions = {},
): PodRejection | undefined {
  const terms =
    pod.spec?.affinity?.nodeAffinity?.requiredDuringSchedulingIgnoredDuringExecution
      ?.nodeSelectorTerms ?? [];
  if (
    terms.length > 0 &&
    terms.every((t) =>
      (t.matchExpressions ?? []).some(
        (r) => r.key === Labels.NodePool && r.operator === 'DoesNotExist',
      ),
    )
  ) {
    return { message: `pod requires ${Labels.NodePool} DoesNotExist`, silent: true };
  }
  const problems: string[] = [];
  for (const [key, value] of Object.entries(pod.spec?.nodeSelector ?? {})) {
    const p = requirementProblem({ key, operator: 'In', values: [value] }, options);
    if (p !== undefined) problems.push(`spec.nodeSelector: ${p}`);
  }
  terms.forEach((term, i) => {
    const field = `spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms[${i}]`;
    if (term.matchFields !== undefined && term.matchFields.length > 0) {
      problems.push(`${field}.matchFields: node selector terms with matchFields are not supported`);
    }
    (term.matchExpressions ?? []).forEach((r, j) => {
      const p = requirementProblem(r, options);
      if (p !== undefined) problems.push(`${field}.matchExpressions[${j}]: ${p}`);
    });
  });
  return problems.length === 0 ? undefined : { message: problems.join('; '), silent: false };
}

/** Why a node selector requirement cannot be provisioned for, or undefined. */
function requirementProblem(
  r: NodeSelectorRequirement,
  options: PodValidationOptions,
): string | undefined {
  const key = normalizeLabelKey(r.key);
  const keyProblem = qualifiedNameProblem(key);
  if (keyProblem !== undefined) return `key ${JSON.stringify(r.key)}: ${keyProblem}`;
  if (
    isRestrictedLabel(key, {
      ...(options.extraWellKnownLabels ? { extraWellKnown: options.extraWellKnownLabels } : {}),
      ...(options.extraRestrictedDomains ? { extraDomains: options.extraRestrictedDomains } : {}),
    })
  ) {
    return `label ${JSON.stringify(key)} is restricted`;
  }
  if (!OPERATORS.has(r.operator)) {
    return `key ${JSON.stringify(key)} has unsupported operator ${JSON.stringify(r.operator)}`;
  }
  const values = r.values ?? [];
  if (r.operator === 'In' && values.length === 0) {
    return `key ${JSON.stringify(key)} with operator In must have a value`;
  }
  if (['Gt', 'Lt', 'Gte', 'Lte'].includes(r.operator)) {
    if (values.length !== 1 || !/^\d+$/.test(values[0] ?? '')) {
      return `key ${JSON.stringify(key)} with operator ${r.operator} must have a single non-negative integer value`;
    }
  }
  for (const v of values) {
    const p = labelValueProblem(v);
    if (p !== undefined) return `key ${JSON.stringify(key)} value ${JSON.stringify(v)}: ${p}`;
  }
  return undefined;
}
