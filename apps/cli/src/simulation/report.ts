/**
 * The machine-readable form of a simulation (`simulate --output json|yaml`) and its totals.
 */
import { addResources, formatResourceList, type ResourceList } from '@karpenter-ts/scheduling';
import type { NodeSelectorRequirementWithMinValues } from '@karpenter-ts/api';
import { roundUsd } from '../output/units.js';
import { podName, type Simulation } from './simulate.js';

/** One node claim in the report. */
export interface NodeClaimReport {
  /** The NodeClaim's name. */
  name: string;
  nodePool: string;
  /** `spec.requirements` as the provisioner wrote them (minValues kept). */
  requirements: NodeSelectorRequirementWithMinValues[];
  labels: Record<string, string>;
  /** Such as `karpenter.sh/nodeclaim-min-values-relaxed` and the NodePool hash. */
  annotations: Record<string, string>;
  /** The daemonset overhead counted in `requests`, as Kubernetes quantities (`{}` without DaemonSets). */
  daemonSetOverhead: Record<string, string>;
  /** The launched instance type: the cheapest available compatible offering among the options. */
  instanceType: string;
  zone: string;
  capacityType: string;
  /** USD per hour of the launched offering, rounded to 6 decimals. */
  pricePerHour: number;
  /** `namespace/name` of each pod on the node claim. */
  pods: string[];
  /** Pod requests plus daemonset overhead, as Kubernetes quantities. */
  requests: Record<string, string>;
  /** Allocatable of the launched instance type, as Kubernetes quantities. */
  allocatable: Record<string, string>;
  /** How many instance types the node claim could have launched as. */
  instanceTypeOptions: number;
  /** The provisioning round (from 1) that launched it. */
  round: number;
}

/** Sums over the simulation. */
export interface Totals {
  /** New node claims. */
  nodes: number;
  /** Pending pods simulated. */
  pods: number;
  /** Pods placed on new node claims or existing nodes. */
  scheduledPods: number;
  /** USD per hour of the new node claims, rounded to 6 decimals. */
  pricePerHour: number;
}

/** Requested and allocatable cpu (millicores) and memory (bytes) over the new node claims. */
export interface Utilization {
  cpuRequested: number;
  cpuAllocatable: number;
  memoryRequested: number;
  memoryAllocatable: number;
}

/** The JSON document `simulate --output json` prints. */
export interface SimulationReport {
  cloud: string;
  region: string;
  nodePools: {
    name: string;
    origin: string;
    nodeClass: { kind: string; name: string; default: boolean };
  }[];
  notes: string[];
  /** Provisioning rounds run: later rounds schedule what limits held back (see simulate). */
  rounds: number;
  nodeClaims: NodeClaimReport[];
  /** Every Node of the input: the pods the simulation placed there, and how many it had. */
  existingNodes: { name: string; nodePool?: string; pods: string[]; podsBefore: number }[];
  podErrors: { pod: string; reason: string }[];
  totals: Totals;
}

/** Totals of a simulation; the price is rounded to 6 decimals to hide float noise. */
export function totals(simulation: Simulation): Totals {
  const onClaims = simulation.nodeClaims.reduce((n, c) => n + c.pods.length, 0);
  const onExisting = simulation.existingNodes.reduce((n, e) => n + e.pods.length, 0);
  const price = simulation.nodeClaims.reduce((sum, c) => sum + c.launch.offering.price, 0);
  return {
    nodes: simulation.nodeClaims.length,
    pods: simulation.pendingPods,
    scheduledPods: onClaims + onExisting,
    pricePerHour: roundUsd(price),
  };
}

/** Requested vs allocatable cpu and memory over the new node claims. */
export function utilization(simulation: Simulation): Utilization {
  let requested: ResourceList = {};
  let allocatable: ResourceList = {};
  for (const c of simulation.nodeClaims) {
    requested = addResources(requested, c.requests);
    allocatable = addResources(allocatable, c.launch.instanceType.allocatable());
  }
  return {
    cpuRequested: requested.cpu ?? 0,
    cpuAllocatable: allocatable.cpu ?? 0,
    memoryRequested: requested.memory ?? 0,
    memoryAllocatable: allocatable.memory ?? 0,
  };
}

/** Builds the report document of a simulation. */
export function simulationReport(simulation: Simulation): SimulationReport {
  return {
    cloud: simulation.cloud.name,
    region: simulation.cloud.region,
    nodePools: simulation.pools.map((p) => ({
      name: p.nodePool.metadata.name ?? '',
      origin: p.origin,
      nodeClass: {
        kind: String(p.nodeClass.kind),
        name: String(p.nodeClass.metadata?.name ?? ''),
        default: p.defaultNodeClass,
      },
    })),
    notes: [...simulation.notes],
    rounds: simulation.rounds,
    nodeClaims: simulation.nodeClaims.map((c) => ({
      name: c.name,
      nodePool: c.nodePool,
      requirements: c.specRequirements.map((r) => ({ ...r })),
      labels: { ...c.labels },
      annotations: { ...c.annotations },
      daemonSetOverhead: formatResourceList(c.daemonSetOverhead),
      instanceType: c.launch.instanceType.name,
      zone: c.launch.offering.zone,
      capacityType: c.launch.offering.capacityType,
      pricePerHour: roundUsd(c.launch.offering.price),
      pods: c.pods.map(podName),
      requests: formatResourceList(c.requests),
      allocatable: formatResourceList(c.launch.instanceType.allocatable()),
      instanceTypeOptions: c.instanceTypeOptions.length,
      round: c.round,
    })),
    existingNodes: simulation.existingNodes.map((n) => ({
      name: n.name,
      ...(n.nodePool !== undefined ? { nodePool: n.nodePool } : {}),
      pods: n.pods.map(podName),
      podsBefore: n.podsBefore,
    })),
    podErrors: simulation.podErrors.map((e) => ({ pod: podName(e.pod), reason: e.reason })),
    totals: totals(simulation),
  };
}
