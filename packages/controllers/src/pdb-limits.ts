/**
 * PodDisruptionBudgets as disruption reads them (upstream `pkg/utils/pdb/pdb.go`): which budgets
 * select a pod, and whether evicting it now would be refused. A pod selected by more than one
 * budget cannot be evicted at all (the Eviction API answers 500), so it blocks too. A pod that is
 * not Ready may still go under `unhealthyPodEvictionPolicy: AlwaysAllow`.
 *
 * `disruptionsAllowed` is read from the budget's status, which kube-controller-manager keeps (the
 * in-memory client computes it on read).
 */
import type { Pod, PodDisruptionBudget } from '@karpenter-ts/api';
import { compileLabelSelector, type LabelMatcher } from '@karpenter-ts/scheduling';
import { podKey } from './pods.js';

interface Entry {
  readonly pdb: PodDisruptionBudget;
  readonly selector: LabelMatcher;
}

/** The budgets of a cluster, indexed by namespace. */
export class PdbLimits {
  readonly #byNamespace = new Map<string, Entry[]>();

  constructor(pdbs: readonly PodDisruptionBudget[]) {
    for (const pdb of pdbs) {
      const ns = pdb.metadata?.namespace ?? 'default';
      let list = this.#byNamespace.get(ns);
      if (list === undefined) {
        list = [];
        this.#byNamespace.set(ns, list);
      }
      list.push({ pdb, selector: compileLabelSelector(pdb.spec?.selector) });
    }
  }

  /** Budgets selecting the pod (a budget with an empty selector selects every pod of its namespace). */
  budgetsOf(pod: Pod): PodDisruptionBudget[] {
    const labels = pod.metadata?.labels ?? {};
    return (this.#byNamespace.get(pod.metadata?.namespace ?? 'default') ?? [])
      .filter((e) => e.selector.matches(labels))
      .map((e) => e.pdb);
  }

  /**
   * Why evicting the pods now would be refused, for the first pod that would be (upstream
   * `CanEvictPods`): `pdb default/web prevents pod evictions`, or
   * `pod default/a has more than one PodDisruptionBudget`; undefined when every pod may go.
   */
  blocking(pods: readonly Pod[]): string | undefined {
    for (const pod of pods) {
      const budgets = this.budgetsOf(pod);
      if (budgets.length > 1) {
        return `pod ${podKey(pod)} has more than one PodDisruptionBudget (${budgets
          .map((b) => `${b.metadata?.namespace ?? 'default'}/${b.metadata?.name}`)
          .join(', ')})`;
      }
      const pdb = budgets[0];
      if (pdb === undefined) continue;
      if (!podReady(pod) && pdb.spec?.unhealthyPodEvictionPolicy === 'AlwaysAllow') continue;
      if ((pdb.status?.disruptionsAllowed ?? 0) <= 0) {
        return `pdb ${pdb.metadata?.namespace ?? 'default'}/${pdb.metadata?.name} prevents pod evictions`;
      }
    }
    return undefined;
  }

  /**
   * A budget that can never allow an eviction (`maxUnavailable: 0` or `"0%"`, `minAvailable:
   * "100%"`) selects the pod: such a pod is not rescheduled from a node going away (upstream
   * `IsCurrentlyReschedulable`).
   */
  fullyBlocking(pod: Pod): boolean {
    return this.budgetsOf(pod).some((pdb) => {
      const s = pdb.spec ?? {};
      return (
        s.maxUnavailable === 0 ||
        s.maxUnavailable === '0%' ||
        s.maxUnavailable === '0' ||
        s.minAvailable === '100%'
      );
    });
  }
}

function podReady(pod: Pod): boolean {
  return pod.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True') ?? false;
}
