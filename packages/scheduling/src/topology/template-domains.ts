/**
 * The topology domains one NodePool template offers: every (key, value) its requirements, its
 * instance types' requirements and its available offerings can put on a node (upstream builds
 * the same universe from every NodePool × instance type when it creates a scheduler).
 *
 * A provisioning pass builds a new scheduler over the same NodePools and instance types as the
 * pass before; with hundreds of NodePools this walk was most of a pass. The pairs are kept per
 * template content: the requirements' canonical text and the identity of each instance type
 * with the availability of its offerings (providers hand out new instance type objects when
 * anything else changes, and the catalog keys types by identity as well).
 */
import { requirementSignature } from '../catalog.js';
import type { Requirements } from '../requirements.js';
import type { SchedulerInstanceType } from '../scheduler-types.js';

/** Label key → the values a template's nodes may carry for it. */
export type DomainPairs = ReadonlyMap<string, ReadonlySet<string>>;

/** Templates remembered, least recently used dropped first. */
const CACHE_SIZE = 4096;
const cache = new Map<string, DomainPairs>();
const typeIds = new WeakMap<SchedulerInstanceType, number>();
let nextTypeId = 0;

/**
 * The (key, value) pairs of a template with `requirements` over `instanceTypes` (those compatible
 * with the requirements): the values of its own non-complement requirements, of each instance
 * type's requirements intersected with them, and of each available offering compatible with
 * both, as far as both allow them. Cached (see the module comment); the result is shared and
 * must not be changed.
 */
export function templateDomainPairs(
  requirements: Requirements,
  instanceTypes: readonly SchedulerInstanceType[],
): DomainPairs {
  const key = cacheKey(requirements, instanceTypes);
  const hit = cache.get(key);
  if (hit !== undefined) {
    cache.delete(key);
    cache.set(key, hit);
    return hit;
  }
  const pairs = collectPairs(requirements, instanceTypes);
  cache.set(key, pairs);
  if (cache.size > CACHE_SIZE) cache.delete(cache.keys().next().value as string);
  return pairs;
}

function cacheKey(
  requirements: Requirements,
  instanceTypes: readonly SchedulerInstanceType[],
): string {
  let key = '';
  for (const r of requirements) key += requirementSignature(r);
  key += '|';
  for (const it of instanceTypes) {
    let id = typeIds.get(it);
    if (id === undefined) typeIds.set(it, (id = nextTypeId++));
    key += `${id}:`;
    for (const o of it.offerings) key += o.available ? '1' : '0';
    key += ',';
  }
  return key;
}

function collectPairs(
  requirements: Requirements,
  instanceTypes: readonly SchedulerInstanceType[],
): DomainPairs {
  const pairs = new Map<string, Set<string>>();
  const add = (key: string, value: string) => {
    let values = pairs.get(key);
    if (values === undefined) pairs.set(key, (values = new Set()));
    values.add(value);
  };
  for (const r of requirements) {
    if (!r.complement) for (const v of r.valuesList()) add(r.key, v);
  }
  for (const it of instanceTypes) {
    const reqs = requirements.intersection(it.requirements);
    for (const r of reqs) {
      if (!r.complement) for (const v of r.valuesList()) add(r.key, v);
    }
    for (const o of it.offerings) {
      if (!o.available || !reqs.isIntersecting(o.requirements)) continue;
      for (const r of o.requirements) {
        if (r.complement) continue;
        const allowed = reqs.get(r.key);
        for (const v of r.valuesList()) if (allowed.has(v)) add(r.key, v);
      }
    }
  }
  return pairs;
}
