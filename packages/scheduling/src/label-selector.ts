/**
 * Label selectors (`metav1.LabelSelector`) compiled once into matchers, as the topology groups
 * of the scheduler use them to count pods.
 */
import type { LabelSelector } from '@karpenter-ts/api';

/** A compiled label selector: `matches(labels)` and a canonical `key` for de-duplication. */
export interface LabelMatcher {
  /** True when every `matchLabels` pair and every `matchExpressions` entry holds on `labels`. */
  matches(labels: Readonly<Record<string, string>> | undefined): boolean;
  /** Canonical text of the selector: equal selectors give equal keys. */
  readonly key: string;
  /**
   * Set when the selector is exactly one `matchLabels` pair (the common case): it matches the
   * labels whose `key` is `value`, so callers can index matchers by label instead of trying each.
   */
  readonly equality?: { readonly key: string; readonly value: string };
}

const NOTHING: LabelMatcher = { matches: () => false, key: '<nothing>' };

/**
 * Compiles a label selector following Kubernetes semantics: an absent selector matches no pod
 * (as pod affinity terms and topology spread constraints treat it), `{}` matches every pod,
 * `In`/`NotIn`/`Exists`/`DoesNotExist` as in `metav1.LabelSelectorAsSelector`.
 * Throws Error naming the operator when an expression uses an unknown one.
 */
export function compileLabelSelector(selector: LabelSelector | undefined | null): LabelMatcher {
  if (selector === undefined || selector === null) return NOTHING;
  type Check = (labels: Readonly<Record<string, string>>) => boolean;
  const checks: Check[] = [];
  const parts: string[] = [];
  const matchLabels = selector.matchLabels ?? {};
  for (const key of Object.keys(matchLabels).sort()) {
    const value = matchLabels[key] as string;
    checks.push((labels) => labels[key] === value);
    parts.push(`${key}=${value}`);
  }
  const expressions = [...(selector.matchExpressions ?? [])].sort((a, b) =>
    a.key < b.key ? -1 : a.key > b.key ? 1 : a.operator < b.operator ? -1 : 1,
  );
  for (const expression of expressions) {
    const key = expression.key;
    const values = [...(expression.values ?? [])].sort();
    const set = new Set(values);
    switch (expression.operator) {
      case 'In':
        checks.push((labels) => {
          const v = labels[key];
          return v !== undefined && set.has(v);
        });
        break;
      case 'NotIn':
        checks.push((labels) => {
          const v = labels[key];
          return v === undefined || !set.has(v);
        });
        break;
      case 'Exists':
        checks.push((labels) => labels[key] !== undefined);
        break;
      case 'DoesNotExist':
        checks.push((labels) => labels[key] === undefined);
        break;
      default:
        throw new Error(
          `labelSelector.matchExpressions: operator "${expression.operator}" of key "${key}" is not one of In, NotIn, Exists, DoesNotExist`,
        );
    }
    parts.push(`${key} ${expression.operator} (${values.join(',')})`);
  }
  const empty: Readonly<Record<string, string>> = {};
  const labelKeys = Object.keys(matchLabels);
  const onlyKey = labelKeys[0];
  const equality =
    labelKeys.length === 1 &&
    onlyKey !== undefined &&
    (selector.matchExpressions ?? []).length === 0
      ? { key: onlyKey, value: matchLabels[onlyKey] as string }
      : undefined;
  return {
    key: `{${parts.join(';')}}`,
    ...(equality === undefined ? {} : { equality }),
    matches(labels) {
      const l = labels ?? empty;
      for (const check of checks) if (!check(l)) return false;
      return true;
    },
  };
}
