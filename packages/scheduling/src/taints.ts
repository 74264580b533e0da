/**
 * Taint toleration with kube-scheduler semantics (core/v1 `Toleration.ToleratesTaint`), as
 * Karpenter uses it to decide whether a pod may land on a NodePool's or node's taints.
 */
import type { Taint, Toleration } from '@karpenter-ts/api';

/** The parts of a core/v1 Taint matching reads: `{key, value?, effect}`. */
export type TaintLike = Pick<Taint, 'key' | 'value' | 'effect'>;
/** The parts of a core/v1 Toleration matching reads: `{key?, operator?, value?, effect?}`. */
export type TolerationLike = Pick<Toleration, 'key' | 'operator' | 'value' | 'effect'>;

/**
 * Whether the toleration tolerates the taint, as Kubernetes decides it: an empty effect matches
 * every effect, else effects must be equal; an empty key matches every key (valid only with
 * Exists), else keys must be equal; operator Exists matches any value, Equal (the default when
 * empty) needs equal values (a missing value is ""). Any other operator tolerates nothing
 * (the alpha Gt/Lt toleration operators of Kubernetes 1.35 are not supported).
 * `tolerationSeconds` does not matter for placement.
 */
export function tolerates(toleration: TolerationLike, taint: TaintLike): boolean {
  if (toleration.effect && toleration.effect !== taint.effect) return false;
  if (toleration.key && toleration.key !== taint.key) return false;
  switch (toleration.operator) {
    case 'Exists':
      return true;
    case undefined:
    case '':
    case 'Equal':
      return (toleration.value ?? '') === (taint.value ?? '');
    default:
      return false;
  }
}

/**
 * Whether the tolerations tolerate every taint — all effects count, PreferNoSchedule included,
 * as Karpenter checks NodePool taints (upstream `Taints.ToleratesPod`).
 * @returns undefined when all are tolerated, else `did not tolerate taint <key=value:effect>`
 *   naming the first taint no toleration matches.
 */
export function toleratesAll(
  tolerations: readonly TolerationLike[] | undefined,
  taints: readonly TaintLike[] | undefined,
): string | undefined {
  if (taints === undefined) return undefined;
  for (let i = 0; i < taints.length; i++) {
    const taint = taints[i] as TaintLike;
    let tolerated = false;
    if (tolerations !== undefined) {
      for (let j = 0; j < tolerations.length && !tolerated; j++) {
        tolerated = tolerates(tolerations[j] as TolerationLike, taint);
      }
    }
    if (!tolerated) return `did not tolerate taint ${taintKey(taint)}`;
  }
  return undefined;
}

/**
 * A taint's identity and display form, as kubectl prints it: `key=value:effect`, or `key:effect`
 * when the value is empty. Distinct taints get distinct strings, so it serves as a map key.
 */
export function taintKey(taint: TaintLike): string {
  return taint.value
    ? `${taint.key}=${taint.value}:${taint.effect}`
    : `${taint.key}:${taint.effect}`;
}
