/**
 * The unavailable-offerings cache (upstream `Azure/karpenter-provider-azure`'s): offerings ARM just
 * refused are kept out of instance types and launches for a while, so the next attempt picks
 * another one.
 *
 * Entries, as upstream keys them:
 * - per size: `(capacity type, size, zone)`;
 * - per ARM quota family: `(family, zone, capacity type)` with the lowest vCPU count seen blocked,
 *   which blocks every size of that family with at least that many vCPUs (a size that could not
 *   be allocated says the same about its bigger siblings). Every per-size mark also writes one;
 * - all of spot (subscription spot quota).
 * A zone may be a wildcard for "every zonal zone" or "every zone", and a capacity type may be
 * both, which is how "all zones of the attempted placement scope, both capacity types" is stored.
 *
 * TTLs (seconds): default 180; spot quota 3600; family quota 3600 when the limit is 0 else 600;
 * SkuNotAvailable 3600 (spot) or 82800 (on-demand); allocation failures 3600. Expired entries are
 * swept on read. Every change (mark, expiry, flush) bumps {@link UnavailableOfferingsCache.seqNum},
 * which callers use to invalidate instance types built with older availability.
 */
import { systemClock, type Clock } from '@karpenter-ts/cloudprovider';
import { REGIONAL_ZONE } from '../catalog/zones.js';
import type { AzureCapacityType } from '../instancetype/options.js';
import type { AttemptedOffering, LaunchErrorClass } from './arm-errors.js';

/** Zone wildcards: every zonal zone (placement scope zonal), every zone including regional `0`. */
export const ALL_ZONAL_ZONES = '*zonal';
export const ALL_ZONES = '*';

/** TTLs in seconds (upstream's values). */
export const UnavailableTTL = {
  default: 180,
  spotQuota: 3600,
  familyQuotaLimitZero: 3600,
  familyQuota: 600,
  skuNotAvailableSpot: 3600,
  skuNotAvailableOnDemand: 82800,
  allocation: 3600,
} as const;

/** One cache entry (for inspection and tests). */
export interface UnavailableEntry {
  /** A size name, or a family with the lowest blocked vCPU count, or all sizes (spot quota). */
  readonly scope:
    | { readonly sku: string }
    | { readonly family: string; readonly minVCPUs: number }
    | { readonly all: true };
  /** Zone label, `0`, {@link ALL_ZONAL_ZONES} or {@link ALL_ZONES}. */
  readonly zone: string;
  readonly capacityType: AzureCapacityType | '*';
  /** Clock milliseconds. */
  readonly expiresAt: number;
  /** The CreateError reason that put it there. */
  readonly reason: string;
}

/** What the cache is asked about: a size's offering. */
export interface OfferingQuery {
  readonly sku: string;
  readonly family: string | undefined;
  readonly vCPUs: number;
  readonly zone: string;
  readonly capacityType: AzureCapacityType;
}

function zoneMatches(entryZone: string, zone: string): boolean {
  if (entryZone === ALL_ZONES) return true;
  if (entryZone === ALL_ZONAL_ZONES) return zone !== REGIONAL_ZONE;
  return entryZone === zone;
}

function scopeKey(s: UnavailableEntry['scope']): string {
  if ('sku' in s) return `sku:${s.sku}`;
  if ('family' in s) return `family:${s.family}`;
  return 'all';
}

/** The cache. Not shared between processes; one per provider instance. */
export class UnavailableOfferingsCache {
  readonly #clock: Clock;
  readonly #entries = new Map<string, UnavailableEntry>();
  #seq = 0;

  constructor(options: { clock?: Clock } = {}) {
    this.#clock = options.clock ?? systemClock;
  }

  /** Bumped on every change; compare to know whether cached instance types are stale. */
  get seqNum(): number {
    this.#sweep();
    return this.#seq;
  }

  /** Live entries. */
  entries(): UnavailableEntry[] {
    this.#sweep();
    return [...this.#entries.values()];
  }

  /** Whether an offering is currently marked unavailable. */
  isUnavailable(q: OfferingQuery): boolean {
    this.#sweep();
    for (const e of this.#entries.values()) {
      if (e.capacityType !== '*' && e.capacityType !== q.capacityType) continue;
      if (!zoneMatches(e.zone, q.zone)) continue;
      const s = e.scope;
      if ('all' in s) return true;
      if ('sku' in s && s.sku === q.sku) return true;
      if ('family' in s && q.family !== undefined && s.family === q.family && q.vCPUs >= s.minVCPUs)
        return true;
    }
    return false;
  }

  /**
   * Marks what a launch error says is unavailable (upstream's table). Returns
   * true when something was marked (false for errors the cache does not track, e.g. regional quota).
   */
  markForError(attempt: AttemptedOffering, cls: LaunchErrorClass): boolean {
    const scope = attempt.zone === REGIONAL_ZONE ? REGIONAL_ZONE : ALL_ZONAL_ZONES;
    const ct = attempt.capacityType;
    switch (cls.kind) {
      case 'spotQuota':
        this.#put({ all: true }, ALL_ZONES, 'spot', UnavailableTTL.spotQuota, cls.reason);
        return true;
      case 'familyQuota':
        this.#markSku(
          attempt,
          ALL_ZONES,
          ct,
          cls.limitZero ? UnavailableTTL.familyQuotaLimitZero : UnavailableTTL.familyQuota,
          cls.reason,
        );
        return true;
      case 'skuNotAvailable':
        this.#markSku(
          attempt,
          scope,
          ct,
          ct === 'spot'
            ? UnavailableTTL.skuNotAvailableSpot
            : UnavailableTTL.skuNotAvailableOnDemand,
          cls.reason,
        );
        return true;
      case 'zonalAllocationFailed':
        this.#markSku(attempt, attempt.zone, '*', UnavailableTTL.allocation, cls.reason);
        return true;
      case 'allocationFailed':
        this.#markSku(attempt, scope, '*', UnavailableTTL.allocation, cls.reason);
        return true;
      case 'overconstrainedZonal':
        this.#markSku(attempt, attempt.zone, ct, UnavailableTTL.allocation, cls.reason);
        return true;
      case 'overconstrained':
        this.#markSku(attempt, scope, ct, UnavailableTTL.allocation, cls.reason);
        return true;
      case 'regionalQuota':
      case 'other':
        return false;
    }
  }

  /** Marks one offering for `ttlSeconds` (default 180 s), with its family threshold. */
  markUnavailable(
    attempt: AttemptedOffering,
    reason: string,
    ttlSeconds: number = UnavailableTTL.default,
  ): void {
    this.#markSku(attempt, attempt.zone, attempt.capacityType, ttlSeconds, reason);
  }

  /** Drops every entry. */
  flush(): void {
    if (this.#entries.size === 0) return;
    this.#entries.clear();
    this.#seq++;
  }

  #markSku(
    attempt: AttemptedOffering,
    zone: string,
    ct: AzureCapacityType | '*',
    ttl: number,
    reason: string,
  ): void {
    this.#put({ sku: attempt.sku }, zone, ct, ttl, reason);
    if (attempt.family !== undefined)
      this.#put({ family: attempt.family, minVCPUs: attempt.vCPUs }, zone, ct, ttl, reason);
  }

  #put(
    scope: UnavailableEntry['scope'],
    zone: string,
    ct: AzureCapacityType | '*',
    ttlSeconds: number,
    reason: string,
  ): void {
    const key = `${scopeKey(scope)}|${zone}|${ct}`;
    const expiresAt = this.#clock.now() + ttlSeconds * 1000;
    const old = this.#entries.get(key);
    let merged = scope;
    if (old && 'family' in old.scope && 'family' in scope)
      merged = { family: scope.family, minVCPUs: Math.min(old.scope.minVCPUs, scope.minVCPUs) };
    this.#entries.set(key, {
      scope: merged,
      zone,
      capacityType: ct,
      expiresAt: Math.max(expiresAt, old?.expiresAt ?? 0),
      reason,
    });
    this.#seq++;
  }

  #sweep(): void {
    const now = this.#clock.now();
    let removed = false;
    for (const [k, e] of this.#entries) {
      if (e.expiresAt <= now) {
        this.#entries.delete(k);
        removed = true;
      }
    }
    if (removed) this.#seq++;
  }
}
