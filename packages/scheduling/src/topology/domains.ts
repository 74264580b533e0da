/**
 * The topology domain universe: for every label key, the values a node
 * could carry — from every NodePool × instance type, every existing node, and every in-flight
 * node claim's hostname — each remembered with the taints of the nodes that would carry it, so
 * `nodeTaintsPolicy: Honor` can leave out domains only reachable through untolerated taints.
 */
import type { Taint } from '@karpenter-ts/api';

/** The known domains of every topology key, with the taint sets that reach each. */
export class TopologyDomains {
  private readonly byKey = new Map<string, Map<string, Taint[][]>>();
  /** Per key and domain, the content keys of the taint sets held (sets are kept once by content). */
  private readonly seen = new Map<string, Map<string, Set<string>>>();
  private readonly sortedCache = new Map<string, readonly string[]>();

  /**
   * Records that a node carrying `taints` can have `key=domain`. Idempotent per taint set by
   * content: thousands of existing nodes with equal (often empty) taints keep one entry, so
   * registering stays linear in the nodes.
   */
  register(key: string, domain: string, taints: readonly Taint[]): void {
    let domains = this.byKey.get(key);
    let seen = this.seen.get(key);
    if (domains === undefined || seen === undefined) {
      domains = new Map();
      seen = new Map();
      this.byKey.set(key, domains);
      this.seen.set(key, seen);
    }
    const content = taintSetKey(taints);
    const sets = domains.get(domain);
    if (sets === undefined) {
      domains.set(domain, [taints as Taint[]]);
      seen.set(domain, new Set([content]));
      this.sortedCache.delete(key);
      return;
    }
    const keys = seen.get(domain) as Set<string>;
    if (!keys.has(content)) {
      keys.add(content);
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

/** A taint set's content as a string, order-independent. */
function taintSetKey(taints: readonly Taint[]): string {
  if (taints.length === 0) return '';
  if (taints.length === 1) {
    const t = taints[0] as Taint;
    return `${t.key}=${t.value ?? ''}:${t.effect}`;
  }
  return taints
    .map((t) => `${t.key}=${t.value ?? ''}:${t.effect}`)
    .sort()
    .join('\n');
}
