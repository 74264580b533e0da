/**
 * The topology domain universe: for every label key, the values a node
 * could carry — from every NodePool × instance type, every existing node, and every in-flight
 * node claim's hostname — each remembered with the taints of the nodes that would carry it, so
 * `nodeTaintsPolicy: Honor` can leave out domains only reachable through untolerated taints.
 *
 * Registrations are counted per (key, domain, taint set content), so a universe built once over
 * every node of a disruption pass can be copied and have a few nodes taken out again
 * ({@link TopologyDomains.copy}, {@link TopologyDomains.unregister}): the copy then knows exactly
 * the domains and taint sets a universe registered without those nodes would know.
 */
import type { Taint } from '@karpenter-ts/api';

/** The known domains of every topology key, with the taint sets that reach each. */
export class TopologyDomains {
  private readonly byKey = new Map<string, Map<string, Taint[][]>>();
  /**
   * Per key and domain, the content keys of the taint sets held (sets are kept once by
   * content), with how many registrations hold each.
   */
  private readonly seen = new Map<string, Map<string, Map<string, number>>>();
  private readonly sortedCache = new Map<string, readonly string[]>();

  /**
   * Records that a node carrying `taints` can have `key=domain`. Idempotent per taint set by
   * content (apart from the count {@link unregister} reads): thousands of existing nodes with
   * equal (often empty) taints keep one entry, so registering stays linear in the nodes.
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
      seen.set(domain, new Map([[content, 1]]));
      this.sortedCache.delete(key);
      return;
    }
    const counts = seen.get(domain) as Map<string, number>;
    const n = counts.get(content);
    if (n === undefined) {
      counts.set(content, 1);
      sets.push(taints as Taint[]);
    } else counts.set(content, n + 1);
  }

  /**
   * Takes back one {@link register} of the same key, domain and taint set content: a taint set
   * no registration holds any more is dropped, and a domain without taint sets is no longer
   * known. Taking back what was never registered does nothing.
   */
  unregister(key: string, domain: string, taints: readonly Taint[]): void {
    const counts = this.seen.get(key)?.get(domain);
    if (counts === undefined) return;
    const content = taintSetKey(taints);
    const n = counts.get(content);
    if (n === undefined) return;
    if (n > 1) {
      counts.set(content, n - 1);
      return;
    }
    counts.delete(content);
    const domains = this.byKey.get(key) as Map<string, Taint[][]>;
    if (counts.size === 0) {
      domains.delete(domain);
      (this.seen.get(key) as Map<string, Map<string, number>>).delete(domain);
      this.sortedCache.delete(key);
      return;
    }
    const sets = domains.get(domain) as Taint[][];
    domains.set(
      domain,
      sets.filter((s) => taintSetKey(s) !== content),
    );
  }

  /**
   * An independent universe with the same registrations: later registrations on either side do
   * not show in the other. Linear in the known domains; taint sets are shared (never mutated).
   */
  copy(): TopologyDomains {
    const out = new TopologyDomains();
    for (const [key, domains] of this.byKey) {
      const copied = new Map<string, Taint[][]>();
      for (const [domain, sets] of domains) copied.set(domain, [...sets]);
      out.byKey.set(key, copied);
    }
    for (const [key, seen] of this.seen) {
      const copied = new Map<string, Map<string, number>>();
      for (const [domain, counts] of seen) copied.set(domain, new Map(counts));
      out.seen.set(key, copied);
    }
    for (const [key, sorted] of this.sortedCache) out.sortedCache.set(key, sorted);
    return out;
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
