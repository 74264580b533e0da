/**
 * Test builders (upstream `pkg/test` style): small functions that make a pod, a NodePool, an
 * instance type, a DaemonSet pod or an existing node from a few options, with sensible defaults,
 * so tests read as the behavior they check. Exported as `@karpenter-ts/scheduling/testing`.
 */
import type {
  NodePool,
  NodeSelectorRequirement,
  NodeSelectorRequirementWithMinValues,
  Pod,
  PodAffinityTerm,
  Taint,
  Toleration,
  TopologySpreadConstraint,
} from '@karpenter-ts/api';
import { Labels } from '@karpenter-ts/api';
import { Requirement } from '../requirement.js';
import { Requirements } from '../requirements.js';
import { resourceListFromQuantities, subtractResources, type ResourceList } from '../resources.js';
import type {
  ExistingNodeInput,
  SchedulerInstanceType,
  SchedulerOffering,
} from '../scheduler-types.js';

let sequence = 0;
/** A process-unique suffix for generated names and UIDs. */
function next(): number {
  return ++sequence;
}

/** Options of {@link pod}. Quantities are Kubernetes strings (`"500m"`, `"1Gi"`). */
export interface PodOptions {
  name?: string;
  namespace?: string;
  uid?: string;
  labels?: Record<string, string>;
  /** Requests of the single container. */
  requests?: Record<string, string>;
  /** Limits of the single container. */
  limits?: Record<string, string>;
  /** Extra init containers (restartPolicy `Always` makes a sidecar). */
  initContainers?: { requests: Record<string, string>; restartPolicy?: 'Always' }[];
  /** RuntimeClass overhead. */
  overhead?: Record<string, string>;
  nodeSelector?: Record<string, string>;
  /** One required node-affinity term. */
  nodeRequirements?: NodeSelectorRequirement[];
  /** Several required node-affinity OR-terms (instead of `nodeRequirements`). */
  nodeRequirementTerms?: NodeSelectorRequirement[][];
  /** Preferred node-affinity terms. */
  nodePreferences?: { weight: number; matchExpressions: NodeSelectorRequirement[] }[];
  podAffinity?: PodAffinityTerm[];
  podAntiAffinity?: PodAffinityTerm[];
  preferredPodAffinity?: { weight: number; podAffinityTerm: PodAffinityTerm }[];
  preferredPodAntiAffinity?: { weight: number; podAffinityTerm: PodAffinityTerm }[];
  topologySpreadConstraints?: TopologySpreadConstraint[];
  tolerations?: Toleration[];
  /** Host ports of the container (TCP, any IP unless `hostIP` is given). */
  hostPorts?: { port: number; hostIP?: string; protocol?: string }[];
  /** Pod-level resource requests (PodLevelResources). */
  podRequests?: Record<string, string>;
  creationTimestamp?: Date;
  phase?: string;
  /** Owner kind, e.g. `DaemonSet`. */
  ownerKind?: string;
  /** Adds the PodScheduled=False/Unschedulable condition. */
  unschedulable?: boolean;
  /** Dynamic Resource Allocation claim names. */
  resourceClaims?: string[];
}

/** Builds a pod with one container. Defaults: namespace `default`, a unique name and UID, no requests. */
export function pod(o: PodOptions = {}): Pod {
  const n = next();
  const name = o.name ?? `pod-${n}`;
  const affinity: NonNullable<Pod['spec']>['affinity'] = {};
  const terms = o.nodeRequirementTerms ?? (o.nodeRequirements ? [o.nodeRequirements] : undefined);
  if (terms !== undefined || o.nodePreferences !== undefined) {
    affinity.nodeAffinity = {
      ...(terms
        ? {
            requiredDuringSchedulingIgnoredDuringExecution: {
              nodeSelectorTerms: terms.map((t) => ({ matchExpressions: t })),
            },
          }
        : {}),
      ...(o.nodePreferences
        ? {
            preferredDuringSchedulingIgnoredDuringExecution: o.nodePreferences.map((p) => ({
              weight: p.weight,
              preference: { matchExpressions: p.matchExpressions },
            })),
          }
        : {}),
    };
  }
  if (o.podAffinity || o.preferredPodAffinity) {
    affinity.podAffinity = {
      ...(o.podAffinity ? { requiredDuringSchedulingIgnoredDuringExecution: o.podAffinity } : {}),
      ...(o.preferredPodAffinity
        ? { preferredDuringSchedulingIgnoredDuringExecution: o.preferredPodAffinity }
        : {}),
    };
  }
  if (o.podAntiAffinity || o.preferredPodAntiAffinity) {
    affinity.podAntiAffinity = {
      ...(o.podAntiAffinity
        ? { requiredDuringSchedulingIgnoredDuringExecution: o.podAntiAffinity }
        : {}),
      ...(o.preferredPodAntiAffinity
        ? { preferredDuringSchedulingIgnoredDuringExecution: o.preferredPodAntiAffinity }
        : {}),
    };
  }
  const resources: {
    requests?: Record<string, string>;
    limits?: Record<string, string>;
    claims?: { name: string }[];
  } = {};
  if (o.requests) resources.requests = o.requests;
  if (o.limits) resources.limits = o.limits;
  if (o.resourceClaims) resources.claims = o.resourceClaims.map((c) => ({ name: c }));
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      name,
      namespace: o.namespace ?? 'default',
      uid: o.uid ?? `00000000-0000-0000-0000-${String(n).padStart(12, '0')}`,
      labels: o.labels ?? {},
      ...(o.creationTimestamp ? { creationTimestamp: o.creationTimestamp } : {}),
      ...(o.ownerKind
        ? {
            ownerReferences: [
              {
                apiVersion: 'apps/v1',
                kind: o.ownerKind,
                name: `${name}-owner`,
                uid: `owner-${n}`,
                controller: true,
              },
            ],
          }
        : {}),
    },
    spec: {
      containers: [
        {
          name: 'main',
          image: 'registry.k8s.io/pause:3.10',
          resources,
          ...(o.hostPorts
            ? {
                ports: o.hostPorts.map((p) => ({
                  containerPort: p.port,
                  hostPort: p.port,
                  ...(p.hostIP ? { hostIP: p.hostIP } : {}),
                  protocol: p.protocol ?? 'TCP',
                })),
              }
            : {}),
        },
      ],
      ...(o.initContainers
        ? {
            initContainers: o.initContainers.map((c, i) => ({
              name: `init-${i}`,
              image: 'registry.k8s.io/pause:3.10',
              resources: { requests: c.requests },
              ...(c.restartPolicy ? { restartPolicy: c.restartPolicy } : {}),
            })),
          }
        : {}),
      ...(o.overhead ? { overhead: o.overhead } : {}),
      ...(o.podRequests ? { resources: { requests: o.podRequests } } : {}),
      ...(o.nodeSelector ? { nodeSelector: o.nodeSelector } : {}),
      ...(Object.keys(affinity).length > 0 ? { affinity } : {}),
      ...(o.topologySpreadConstraints
        ? { topologySpreadConstraints: o.topologySpreadConstraints }
        : {}),
      ...(o.tolerations ? { tolerations: o.tolerations } : {}),
      ...(o.resourceClaims ? { resourceClaims: o.resourceClaims.map((c) => ({ name: c })) } : {}),
    },
    status: {
      ...(o.phase ? { phase: o.phase } : { phase: 'Pending' }),
      ...(o.unschedulable
        ? { conditions: [{ type: 'PodScheduled', status: 'False', reason: 'Unschedulable' }] }
        : {}),
    },
  };
}

/** A pending pod the kube-scheduler marked Unschedulable (what the provisioner acts on). */
export function unschedulablePod(o: PodOptions = {}): Pod {
  return pod({ ...o, unschedulable: true });
}

/** `count` copies of {@link unschedulablePod} with the same options (fresh names and UIDs). */
export function unschedulablePods(count: number, o: PodOptions = {}): Pod[] {
  return Array.from({ length: count }, () => unschedulablePod(o));
}

/** Options of {@link nodePool}. */
export interface NodePoolOptions {
  name?: string;
  weight?: number;
  requirements?: NodeSelectorRequirementWithMinValues[];
  labels?: Record<string, string>;
  taints?: Taint[];
  startupTaints?: Taint[];
  /** Quantities, e.g. `{cpu: '10', nodes: '2'}`. */
  limits?: Record<string, string>;
}

/** Builds a NodePool with a default NodeClass reference. Default name `default`. */
export function nodePool(o: NodePoolOptions = {}): NodePool {
  return {
    apiVersion: 'karpenter.sh/v1',
    kind: 'NodePool',
    metadata: { name: o.name ?? 'default' },
    spec: {
      template: {
        metadata: { labels: o.labels ?? {} },
        spec: {
          requirements: o.requirements ?? [],
          nodeClassRef: { group: 'karpenter.test.sh', kind: 'TestNodeClass', name: 'default' },
          ...(o.taints ? { taints: o.taints } : {}),
          ...(o.startupTaints ? { startupTaints: o.startupTaints } : {}),
        },
      },
      ...(o.weight !== undefined ? { weight: o.weight } : {}),
      ...(o.limits ? { limits: o.limits } : {}),
    },
  };
}

/** One offering of {@link instanceType}. */
export interface OfferingOptions {
  zone: string;
  capacityType: 'on-demand' | 'spot' | 'reserved';
  /** USD/hour. */
  price: number;
  available?: boolean;
}

/** Options of {@link instanceType}. Quantities are strings. */
export interface InstanceTypeOptions {
  name: string;
  cpu?: string;
  memory?: string;
  pods?: string;
  /** Extra capacity, e.g. `{'nvidia.com/gpu': '1'}`. */
  resources?: Record<string, string>;
  arch?: string;
  os?: string[];
  /** Default: spot and on-demand in test-zone-1..3, priced at `price` (on-demand) and 0.7×price (spot). */
  offerings?: OfferingOptions[];
  /** Default 1 USD/hour. */
  price?: number;
  /** Extra labels as requirements; a string array means `In`, `null` means DoesNotExist. */
  labels?: Record<string, string | string[] | null>;
  /** kube-reserved style overhead; allocatable = capacity − overhead. */
  overhead?: Record<string, string>;
}

/** The three test zones. */
export const TEST_ZONES = ['test-zone-1', 'test-zone-2', 'test-zone-3'];

/** A test instance type: a plain object that also satisfies cloudprovider's InstanceType. */
export interface TestInstanceType extends SchedulerInstanceType {
  readonly overhead: {
    kubeReserved: ResourceList;
    systemReserved: ResourceList;
    evictionThreshold: ResourceList;
  };
}

function offering(o: OfferingOptions): SchedulerOffering {
  return {
    requirements: new Requirements(
      Requirement.create(Labels.CapacityType, 'In', [o.capacityType]),
      Requirement.create(Labels.TopologyZone, 'In', [o.zone]),
    ),
    price: o.price,
    available: o.available ?? true,
    zone: o.zone,
    capacityType: o.capacityType,
  };
}

/** Builds an instance type. Defaults: 4 cpu, 8Gi, 110 pods, amd64, linux, 1 USD/hour. */
export function instanceType(o: InstanceTypeOptions): TestInstanceType {
  const price = o.price ?? 1;
  const offeringOptions =
    o.offerings ??
    TEST_ZONES.flatMap((zone) => [
      { zone, capacityType: 'on-demand' as const, price },
      { zone, capacityType: 'spot' as const, price: Math.round(price * 0.7 * 1e6) / 1e6 },
    ]);
  const offerings = offeringOptions.map(offering);
  const capacity = resourceListFromQuantities({
    cpu: o.cpu ?? '4',
    memory: o.memory ?? '8Gi',
    pods: o.pods ?? '110',
    ...(o.resources ?? {}),
  });
  const overheadList = resourceListFromQuantities(o.overhead ?? {});
  const allocatable = subtractResources(capacity, overheadList);
  const requirements = new Requirements(
    Requirement.create(Labels.InstanceType, 'In', [o.name]),
    Requirement.create(Labels.Arch, 'In', [o.arch ?? 'amd64']),
    Requirement.create(Labels.OS, 'In', o.os ?? ['linux']),
    Requirement.create(Labels.TopologyZone, 'In', [...new Set(offeringOptions.map((x) => x.zone))]),
    Requirement.create(Labels.CapacityType, 'In', [
      ...new Set(offeringOptions.map((x) => x.capacityType)),
    ]),
  );
  for (const [key, value] of Object.entries(o.labels ?? {})) {
    requirements.add(
      value === null
        ? Requirement.create(key, 'DoesNotExist')
        : Requirement.create(key, 'In', Array.isArray(value) ? value : [value]),
    );
  }
  return {
    name: o.name,
    requirements,
    offerings,
    capacity,
    overhead: { kubeReserved: overheadList, systemReserved: {}, evictionThreshold: {} },
    allocatable: () => allocatable,
  };
}

const GI = 1024 ** 3;

/**
 * The reference benchmark's catalog (`fake.InstanceTypes(n)`, /work/shared/bench): type i has
 * i+1 cpu, 2(i+1) GiB, 10(i+1) pods; amd64; linux, windows and darwin; 100m/10Mi overhead;
 * spot in test-zone-1/2 and on-demand in test-zone-1/2/3 at 0.1·cpu + 0.1·GB USD/hour; labels
 * `size` (large when cpu > 4 and memory > 8Gi, else small), `special=optional` on large types
 * (absent otherwise) and `integer` = the cpu count.
 */
export function instanceTypes(n: number): TestInstanceType[] {
  return Array.from({ length: n }, (_, i) => {
    const cpu = i + 1;
    const memoryBytes = 2 * (i + 1) * GI;
    const price = 0.1 * cpu + (0.1 * memoryBytes) / 1e9;
    const large = cpu > 4 && memoryBytes > 8 * GI;
    return instanceType({
      name: `fake-it-${i}`,
      cpu: String(cpu),
      memory: `${2 * (i + 1)}Gi`,
      pods: String(10 * (i + 1)),
      os: ['linux', 'windows', 'darwin'],
      overhead: { cpu: '100m', memory: '10Mi' },
      offerings: [
        { zone: 'test-zone-1', capacityType: 'spot', price },
        { zone: 'test-zone-2', capacityType: 'spot', price },
        { zone: 'test-zone-1', capacityType: 'on-demand', price },
        { zone: 'test-zone-2', capacityType: 'on-demand', price },
        { zone: 'test-zone-3', capacityType: 'on-demand', price },
      ],
      labels: {
        size: large ? 'large' : 'small',
        special: large ? 'optional' : null,
        integer: String(cpu),
      },
    });
  });
}

/** Options of {@link daemonSet}. */
export interface DaemonSetOptions {
  name?: string;
  requests?: Record<string, string>;
  limits?: Record<string, string>;
  tolerations?: Toleration[];
  nodeSelector?: Record<string, string>;
  nodeRequirements?: NodeSelectorRequirement[];
  hostPorts?: { port: number; hostIP?: string; protocol?: string }[];
}

/** A pod standing for a DaemonSet (owned by a DaemonSet), as the scheduler's `daemonSetPods` take it. */
export function daemonSet(o: DaemonSetOptions = {}): Pod {
  return pod({
    name: o.name ?? `daemon-${next()}`,
    namespace: 'kube-system',
    ownerKind: 'DaemonSet',
    ...(o.requests ? { requests: o.requests } : {}),
    ...(o.limits ? { limits: o.limits } : {}),
    ...(o.tolerations ? { tolerations: o.tolerations } : {}),
    ...(o.nodeSelector ? { nodeSelector: o.nodeSelector } : {}),
    ...(o.nodeRequirements ? { nodeRequirements: o.nodeRequirements } : {}),
    ...(o.hostPorts ? { hostPorts: o.hostPorts } : {}),
  });
}

/** Options of {@link existingNode}. */
export interface ExistingNodeOptions {
  name?: string;
  labels?: Record<string, string>;
  taints?: Taint[];
  /** Quantities; default 4 cpu, 8Gi, 110 pods. */
  allocatable?: Record<string, string>;
  capacity?: Record<string, string>;
  pods?: Pod[];
  nodePoolName?: string;
  initialized?: boolean;
  /** CSI attach limits per driver. */
  volumeLimits?: Record<string, number>;
}

/** An existing node in test-zone-1 (override with `labels`). */
export function existingNode(o: ExistingNodeOptions = {}): ExistingNodeInput {
  const name = o.name ?? `node-${next()}`;
  return {
    name,
    labels: {
      [Labels.Hostname]: name,
      [Labels.TopologyZone]: 'test-zone-1',
      [Labels.Arch]: 'amd64',
      [Labels.OS]: 'linux',
      [Labels.CapacityType]: 'on-demand',
      ...(o.nodePoolName ? { [Labels.NodePool]: o.nodePoolName } : {}),
      ...(o.labels ?? {}),
    },
    taints: o.taints ?? [],
    allocatable: resourceListFromQuantities(
      o.allocatable ?? { cpu: '4', memory: '8Gi', pods: '110' },
    ),
    ...(o.capacity ? { capacity: resourceListFromQuantities(o.capacity) } : {}),
    pods: o.pods ?? [],
    ...(o.nodePoolName ? { nodePoolName: o.nodePoolName } : {}),
    ...(o.initialized !== undefined ? { initialized: o.initialized } : {}),
    ...(o.volumeLimits !== undefined ? { volumeLimits: o.volumeLimits } : {}),
  };
}

/** A label selector term helper: `{matchLabels}` over `topologyKey`. */
export function affinityTerm(
  topologyKey: string,
  matchLabels: Record<string, string>,
): PodAffinityTerm {
  return { topologyKey, labelSelector: { matchLabels } };
}

/** A DoNotSchedule spread constraint over `topologyKey` selecting `matchLabels`. */
export function spread(
  topologyKey: string,
  matchLabels: Record<string, string>,
  extra: Partial<TopologySpreadConstraint> = {},
): TopologySpreadConstraint {
  return {
    topologyKey,
    maxSkew: 1,
    whenUnsatisfiable: 'DoNotSchedule',
    labelSelector: { matchLabels },
    ...extra,
  };
}

/**
 * A small catalog for scenario tests, cheapest first: `small` (2 cpu, 4Gi, 0.1 USD/h), `medium`
 * (4 cpu, 8Gi, 0.2), `large` (8 cpu, 16Gi, 0.4), `arm-medium` (arm64, 4 cpu, 8Gi, 0.15) and `gpu`
 * (8 cpu, 32Gi, one nvidia.com/gpu, 2.0); spot (0.7×) and on-demand in test-zone-1..3.
 */
export function standardInstanceTypes(): TestInstanceType[] {
  return [
    instanceType({ name: 'small', cpu: '2', memory: '4Gi', price: 0.1 }),
    instanceType({ name: 'medium', cpu: '4', memory: '8Gi', price: 0.2 }),
    instanceType({ name: 'large', cpu: '8', memory: '16Gi', price: 0.4 }),
    instanceType({ name: 'arm-medium', cpu: '4', memory: '8Gi', price: 0.15, arch: 'arm64' }),
    instanceType({
      name: 'gpu',
      cpu: '8',
      memory: '32Gi',
      price: 2,
      resources: { 'nvidia.com/gpu': '1' },
    }),
  ];
}
