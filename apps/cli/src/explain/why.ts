/**
 * Why a NodePool can or cannot host a pod: the first failing constraint in the order the
 * scheduler meets them (taints, then requirements, then instance types: labels, offerings,
 * resources), the closest instance types when none is big enough, and the verdict of the real
 * Scheduler run with only that NodePool and that pod (which also covers daemonset overhead,
 * topology and limits).
 */
import type { NodePool, Pod } from '@karpenter-ts/api';
import type { InstanceType } from '@karpenter-ts/cloudprovider';
import {
  addResources,
  fits,
  formatResourceList,
  podRequests,
  Requirements,
  Scheduler,
  toleratesAll,
  type ExistingNodeInput,
  type ResourceList,
} from '@karpenter-ts/scheduling';
import { allowUndefinedLabels, type Cloud } from '../clouds/cloud.js';
import type { Launch } from '../simulation/launch.js';
import { unofferedRequirements } from '../clouds/unoffered-requirements.js';
import { counted } from '../output/plural.js';
import { formatGiB } from '../output/units.js';

/** An instance type that matches a pod's requirements but is too small, and by how much. */
export interface CloseInstanceType {
  readonly instanceType: InstanceType;
  /** Resources whose allocatable is below the pod's request: name → [requested, allocatable]. */
  readonly short: Record<string, [number, number]>;
}

/** The explanation for one NodePool. */
export interface NodePoolVerdict {
  readonly nodePool: NodePool;
  readonly canHost: boolean;
  /** Why not (first failing constraint), or what it would launch. */
  readonly reason: string;
  /** When it can host the pod alone: the node claim the cloud would launch. */
  readonly launch?: Launch;
  /**
   * Instance types of the NodePool (`total`), those matching the requirements, those with an
   * available allowed offering, those the pod fits (`fitting`, without daemonset overhead), and
   * the node claim's options when it can host the pod (`options`: the cheapest that fit with
   * daemonset overhead, at most 600, as upstream keeps).
   */
  readonly instanceTypes: {
    total: number;
    matchingLabels: number;
    withOffering: number;
    fitting: number;
    options?: number;
  };
  /**
   * Up to 3 instance types closest to fitting, when none fits: fewest resources short first,
   * then the smallest worst requested/allocatable ratio.
   */
  readonly closest: readonly CloseInstanceType[];
}

/** The scheduling requirements of a pod as written: nodeSelector plus its first required node-affinity term. */
export function podRequirements(pod: Pod): Requirements {
  const reqs = Requirements.fromLabels(pod.spec?.nodeSelector ?? {});
  const term =
    pod.spec?.affinity?.nodeAffinity?.requiredDuringSchedulingIgnoredDuringExecution
      ?.nodeSelectorTerms?.[0];
  if (term?.matchExpressions)
    reqs.add(...Requirements.fromNodeSelectorRequirements(term.matchExpressions).values());
  return reqs;
}

/** The requirements a NodePool puts on its node claims: its requirements, template labels and `karpenter.sh/nodepool`. */
export function nodePoolRequirements(nodePool: NodePool): Requirements {
  const spec = nodePool.spec.template.spec;
  const reqs = Requirements.fromNodeSelectorRequirements(spec.requirements ?? []);
  reqs.add(
    ...Requirements.fromLabels({
      ...(nodePool.spec.template.metadata?.labels ?? {}),
      'karpenter.sh/nodepool': nodePool.metadata.name ?? '',
    }).values(),
  );
  return reqs;
}

/**
 * Explains whether `nodePool` (with `instanceTypes` from `cloud`) can host `pod`, with
 * `daemonSetPods` as the daemonset overhead the real scheduler adds. `usage` is the capacity of
 * the pool's nodes in the cluster (its NodeClaims), which counts against the pool's limits.
 */
export function explainNodePool(
  pod: Pod,
  nodePool: NodePool,
  instanceTypes: readonly InstanceType[],
  cloud: Cloud,
  daemonSetPods: readonly Pod[],
  solver: 'wasm' | 'ts',
  usage: readonly ResourceList[] = [],
): NodePoolVerdict {
  const counts = { total: instanceTypes.length, matchingLabels: 0, withOffering: 0, fitting: 0 };
  const verdict = (
    canHost: boolean,
    reason: string,
    extra: Partial<NodePoolVerdict> = {},
  ): NodePoolVerdict => ({
    nodePool,
    canHost,
    reason,
    instanceTypes: counts,
    closest: [],
    ...extra,
  });

  const taints = toleratesAll(pod.spec?.tolerations, nodePool.spec.template.spec.taints);
  if (taints) return verdict(false, `the pod ${taints} of the NodePool`);

  const allowUndefined = allowUndefinedLabels(cloud);
  const poolReqs = nodePoolRequirements(nodePool);
  const podReqs = podRequirements(pod);
  const incompatible = poolReqs.compatible(podReqs, allowUndefined);
  if (incompatible) return verdict(false, `requirements do not match the pod's: ${incompatible}`);

  const merged = poolReqs.intersection(podReqs);
  const requests = podRequests(pod);
  const nearMisses: CloseInstanceType[] = [];
  for (const it of instanceTypes) {
    if (!it.requirements.isIntersecting(merged)) continue;
    counts.matchingLabels++;
    if (
      !it.offerings.some((o) => o.available && merged.isCompatible(o.requirements, allowUndefined))
    )
      continue;
    counts.withOffering++;
    const allocatable = it.allocatable();
    if (fits(requests, allocatable)) counts.fitting++;
    else nearMisses.push({ instanceType: it, short: shortfall(requests, allocatable) });
  }
  if (counts.matchingLabels === 0) {
    const unoffered = unofferedRequirements(merged, instanceTypes, cloud.region);
    return verdict(
      false,
      `none of its ${counts.total} instance types has labels matching the NodePool and pod requirements` +
        (unoffered ? `: ${unoffered}` : ''),
    );
  }
  if (counts.withOffering === 0) {
    return verdict(
      false,
      `${counted(counts.matchingLabels, 'instance type')} ${counts.matchingLabels === 1 ? 'matches' : 'match'} the requirements but none has an available offering (zone, capacity type) they allow`,
    );
  }
  if (counts.fitting === 0) {
    const closest = nearMisses
      .sort(
        (a, b) =>
          Object.keys(a.short).length - Object.keys(b.short).length ||
          worstRatio(a, requests) - worstRatio(b, requests),
      )
      .slice(0, 3);
    return verdict(
      false,
      `no instance type is big enough: the pod requests ${describe(requests)}`,
      { closest },
    );
  }

  // The real scheduler decides: daemonset overhead, limits, topology and host ports count too.
  // The pool's nodes count against its limits; tainted so the verdict is about a new node.
  const poolName = nodePool.metadata.name ?? '';
  const existingNodes: ExistingNodeInput[] = usage.map((capacity, i) => ({
    name: `${poolName}-usage-${i}`,
    labels: {},
    taints: [{ key: 'karpenter-ts.io/counts-against-limits', effect: 'NoSchedule' }],
    allocatable: capacity,
    capacity,
    pods: [],
    nodePoolName: poolName,
  }));
  const scheduler = new Scheduler<InstanceType>({
    nodePools: [nodePool],
    instanceTypes: new Map([[poolName, instanceTypes]]),
    existingNodes,
    daemonSetPods,
    solver,
    wellKnownLabels: cloud.wellKnownLabels,
  });
  const result = scheduler.solve([pod]);
  const error = result.podErrors.get(pod);
  if (error !== undefined) return verdict(false, withoutPoolName(error, poolName));
  const claim = result.newNodeClaims[0];
  const launch = claim
    ? cloud.chooseLaunch(claim.instanceTypeOptions, claim.requirements)
    : undefined;
  if (!claim || !launch) return verdict(false, 'no available offering for the node claim');
  const options = claim.instanceTypeOptions.length;
  const fit = `${counted(counts.fitting, 'instance type')} ${counts.fitting === 1 ? 'fits' : 'fit'}`;
  const fitText =
    options === counts.fitting
      ? fit
      : options === 1
        ? `${fit}; the cheapest is the node claim's only option`
        : `${fit}; the ${options} cheapest are the node claim's options`;
  return verdict(
    true,
    `${launch.instanceType.name} (${launch.offering.capacityType}, ${launch.offering.zone}) at $${launch.offering.price.toFixed(4)}/hour; ${fitText}`,
    { launch, instanceTypes: { ...counts, options } },
  );
}

/**
 * The scheduler's reason without the NodePool it names: the explain line already names the
 * NodePool (`incompatible with nodepool "x", ...` and `nodepool "x": ...` would print it twice).
 */
function withoutPoolName(reason: string, poolName: string): string {
  const name = JSON.stringify(poolName);
  for (const prefix of [`incompatible with nodepool ${name}, `, `nodepool ${name}: `]) {
    if (reason.startsWith(prefix)) return reason.slice(prefix.length);
  }
  return reason;
}

function shortfall(
  requests: ResourceList,
  allocatable: ResourceList,
): Record<string, [number, number]> {
  const short: Record<string, [number, number]> = {};
  for (const [name, value] of Object.entries(requests)) {
    const have = allocatable[name] ?? 0;
    if (value > have) short[name] = [value, have];
  }
  return short;
}

/** How far the worst resource is from fitting: max over resources of requested / allocatable. */
function worstRatio(entry: CloseInstanceType, requests: ResourceList): number {
  const allocatable = entry.instanceType.allocatable();
  let worst = 0;
  for (const [name, value] of Object.entries(requests)) {
    const have = allocatable[name] ?? 0;
    worst = Math.max(worst, have === 0 ? Number.POSITIVE_INFINITY : value / have);
  }
  return worst;
}

/** `cpu 250m, memory 512Mi, pods 1`-style text of a resource list (canonical units). */
export function describe(resources: ResourceList): string {
  return Object.entries(addResources(resources))
    .map(([name, value]) => `${name} ${formatAmount(name, value)}`)
    .join(', ');
}

/**
 * A canonical amount for people: the exact Kubernetes quantity when it is short (`3`, `1900m`,
 * `10240Gi`, `64Mi`), else memory and storage of 1Mi or more in GiB with at most 2 decimals, as
 * the simulate and catalog tables print them (`1339.15Gi`, not `1371287.6Mi`).
 */
export function formatAmount(name: string, value: number): string {
  const exact = formatResourceList({ [name]: value })[name] ?? String(value);
  return memoryLike(name) && /^\d+$/.test(exact) && value >= 2 ** 20 ? formatGiB(value) : exact;
}

/**
 * Amounts of one resource to be read side by side (`13.19Gi < 13.48Gi`), in one unit: the exact
 * quantities when they share a suffix (`3 < 4`, `64Mi < 128Mi`), else, for memory and storage,
 * GiB for all of them (never `13.19Gi < 13800Mi`).
 */
export function formatAmounts(name: string, values: readonly number[]): string[] {
  const each = values.map((v) => formatAmount(name, v));
  const suffix = (text: string) => text.replace(/^[\d.]+/, '');
  if (!memoryLike(name) || each.every((t) => suffix(t) === suffix(each[0] ?? ''))) return each;
  return values.map((v) => formatGiB(v));
}

function memoryLike(name: string): boolean {
  return name === 'memory' || name.endsWith('storage') || name.startsWith('hugepages-');
}
