/**
 * The topology domain universe (karpenter-core.md 2.10): for every label key, the values a node
 * could carry — from every NodePool × instance type, every existing node, and every in-flight
 * node claim's hostname — each remembered with the taints of the nodes that would carry it, so
 * `nodeTaintsPolicy: Honor` can leave out domains only reachable through untolerated taints.
 */
import type { Taint } from '@karpenter-ts/api';

/** The known domains of every topology key, with the taint sets that reach each. */
export class TopologyDomains {
  private readonly byKey = new Map<string, Map<string, Taint[][]>>();
  private readonly sortedCache = new Map<string, readonly string[]>();

  /** Records that a node carrying `taints` can have `key=domain`. Idempotent per taints array. */
  register(key: string, domain: string, taints: readonly Taint[]): void {
    let domains = this.byKey.get(key);
    if (domains === undefined) {
      domains = new Map();
      this.byKey.set(key, domains);
    }
    const sets = domains.get(domain);
    if (sets === undefined) {
      domains.set(domain, [taints as Taint[]]);
      this.sortedCache.delete(key);
    } else if (!sets.includes(taints as Taint[])) {
      sets.push(taints as Taint[]);
    }
  }

  /** Whether `domain` is known for `key`. */
  has(key: string, domain: string): boolean {
    return this.byKey.get(key)?.has(domain) ?? false;
  }

  /** The known domains of `key`, sorted (a shared read-only array). */
  domains(key: string): readonly string[] {
    let sorted = this.sortedCache.get(key);
    if (sorted === undefined) {
      sorted = Object.freeze([...(this.byKey.get(key)?.keys() ?? [])].sort());
      this.sortedCache.set(key, sorted);
    }
    return sorted;
  }

  /** The taint sets of the nodes that can carry `key=domain` (empty when unknown). */
  taintSets(key: string, domain: string): readonly (readonly Taint[])[] {
    return this.byKey.get(key)?.get(domain) ?? [];
  }
}
