/**
 * Cluster Autoscaler node groups: each launches one instance type, on one capacity type, with
 * the labels and taints of the NodePool it stands in for (the NodePool gives the node template
 * and NodeClass, as an ASG's launch template or an AKS node pool would). Either given in the
 * scenario (`clusterAutoscaler.nodeGroups`: a NodePool and its instance types) or derived:
 * for each NodePool, the family with the lowest price per vCPU among the instance types the
 * NodePool allows (ties: price per GiB, then name), one group per size of that family.
 */
import type { NodePool } from '@karpenter-ts/api';
import type { InstanceType } from '@karpenter-ts/cloudprovider';
import { parseQuantity, quantityToMilli, Requirements } from '@karpenter-ts/scheduling';
import { fieldName } from '../scenario/problems.js';
import { DEFAULT_MAX_GROUP_SIZE } from './defaults.js';

/** A node group of one instance type. */
export interface NodeGroup {
  /** `<nodePool>-<instance type>` (e.g. `general-m6i.xlarge`). */
  readonly name: string;
  readonly nodePool: NodePool;
  readonly instanceType: InstanceType;
  readonly capacityType: 'on-demand' | 'spot';
  readonly minSize: number;
  readonly maxSize: number;
}

/** Node groups of one NodePool as the scenario gives them. */
export interface NodeGroupSpec {
  readonly nodePool: string;
  readonly instanceTypes: readonly string[];
  readonly capacityType?: 'on-demand' | 'spot';
  readonly minSize?: number;
  readonly maxSize?: number;
}

/**
 * A `clusterAutoscaler.nodeGroups` entry this cloud cannot serve: `path` is the scenario field
 * (e.g. `['clusterAutoscaler', 'nodeGroups', 0, 'instanceTypes', 1]`), `reason` what is wrong,
 * and the message both (`clusterAutoscaler.nodeGroups[0].instanceTypes[1]: NodePool ...`).
 */
export class NodeGroupSpecError extends Error {
  override readonly name = 'NodeGroupSpecError';
  constructor(
    readonly path: readonly (string | number)[],
    readonly reason: string,
  ) {
    super(`${fieldName(path)}: ${reason}`);
  }
}

/**
 * The node groups for `pools` (see the module comment). `typesOf` gives the catalog types a
 * NodePool's requirements intersect. Raises {@link NodeGroupSpecError} naming the field when a
 * spec names a NodePool the cloud does not have, or an instance type the NodePool does not allow
 * there (the scenario loader checks this before anything runs; see node-group-check.ts).
 */
export function nodeGroups(
  pools: readonly NodePool[],
  typesOf: (pool: NodePool) => readonly InstanceType[],
  specs: readonly NodeGroupSpec[] | undefined,
): NodeGroup[] {
  const groups: NodeGroup[] = [];
  const byName = new Map(pools.map((p) => [p.metadata.name ?? '', p]));
  if (specs !== undefined) {
    for (const [i, spec] of specs.entries()) {
      const pool = byName.get(spec.nodePool);
      const at = ['clusterAutoscaler', 'nodeGroups', i];
      if (pool === undefined)
        throw new NodeGroupSpecError(
          [...at, 'nodePool'],
          `no NodePool ${spec.nodePool} on this cloud (it has ${[...byName.keys()].join(', ')})`,
        );
      const capacityType = spec.capacityType ?? poolCapacityType(pool);
      const allowed = allowedTypes(pool, typesOf(pool), capacityType);
      for (const [j, name] of spec.instanceTypes.entries()) {
        const type = allowed.find((t) => t.name === name);
        if (type === undefined)
          throw new NodeGroupSpecError(
            [...at, 'instanceTypes', j],
            `NodePool ${spec.nodePool} does not allow ${capacityType} ${name} on this cloud`,
          );
        groups.push(group(pool, type, capacityType, spec.minSize, spec.maxSize));
      }
    }
    return groups;
  }
  for (const pool of pools) {
    const capacityType = poolCapacityType(pool);
    const allowed = allowedTypes(pool, typesOf(pool), capacityType);
    const family = cheapestFamily(allowed, capacityType);
    for (const type of allowed.filter((t) => familyOf(t) === family))
      groups.push(group(pool, type, capacityType, undefined, undefined));
  }
  return groups;
}

/** On-demand when the NodePool allows it (a node group has one capacity type), else spot. */
function poolCapacityType(pool: NodePool): 'on-demand' | 'spot' {
  const r = Requirements.fromNodeSelectorRequirements(pool.spec.template.spec.requirements ?? []);
  const ct = r.get('karpenter.sh/capacity-type');
  return ct.has('on-demand') || !ct.has('spot') ? 'on-demand' : 'spot';
}

/** Types the NodePool's requirements allow that have an offering of `capacityType`, by vCPUs then name. */
function allowedTypes(
  pool: NodePool,
  types: readonly InstanceType[],
  capacityType: string,
): InstanceType[] {
  const r = Requirements.fromNodeSelectorRequirements(pool.spec.template.spec.requirements ?? []);
  return types
    .filter(
      (t) =>
        r.isIntersecting(t.requirements) &&
        t.offerings.some((o) => o.capacityType === capacityType),
    )
    .sort((a, b) => (a.capacity.cpu ?? 0) - (b.capacity.cpu ?? 0) || cmp(a.name, b.name));
}

/** The family of the type: its instance-family (AWS) or SKU series (Azure) label, else its name. */
export function familyOf(type: InstanceType): string {
  for (const key of ['karpenter.k8s.aws/instance-family', 'karpenter.azure.com/sku-series']) {
    const values = type.requirements.get(key);
    if (!values.complement && values.len() === 1) return values.valuesList()[0]!;
  }
  return type.name;
}

function cheapestFamily(types: readonly InstanceType[], capacityType: string): string | undefined {
  let best: { family: string; perCpu: number; perGiB: number } | undefined;
  for (const t of types) {
    const price = Math.min(
      ...t.offerings.filter((o) => o.capacityType === capacityType).map((o) => o.price),
    );
    const cpu = (t.capacity.cpu ?? 0) / 1000;
    const gib = (t.capacity.memory ?? 0) / 2 ** 30;
    if (!(cpu > 0) || !(gib > 0) || !Number.isFinite(price)) continue;
    const c = { family: familyOf(t), perCpu: price / cpu, perGiB: price / gib };
    if (
      best === undefined ||
      c.perCpu < best.perCpu ||
      (c.perCpu === best.perCpu &&
        (c.perGiB < best.perGiB || (c.perGiB === best.perGiB && c.family < best.family)))
    )
      best = c;
  }
  return best?.family;
}

function group(
  pool: NodePool,
  instanceType: InstanceType,
  capacityType: 'on-demand' | 'spot',
  minSize: number | undefined,
  maxSize: number | undefined,
): NodeGroup {
  const cpuLimit = pool.spec.limits?.cpu;
  const cores = (instanceType.capacity.cpu ?? 0) / 1000;
  // The NodePool's cpu limit, as a group size: CA has no limit across groups by default.
  const byLimit =
    cpuLimit !== undefined && cores > 0
      ? Math.floor(quantityToMilli(parseQuantity(String(cpuLimit))) / 1000 / cores)
      : DEFAULT_MAX_GROUP_SIZE;
  return {
    name: `${pool.metadata.name ?? ''}-${instanceType.name}`,
    nodePool: pool,
    instanceType,
    capacityType,
    minSize: minSize ?? 0,
    maxSize: maxSize ?? (Number.isFinite(byLimit) ? byLimit : DEFAULT_MAX_GROUP_SIZE),
  };
}

function cmp(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
