/**
 * Builders of cluster snapshots as `kubectl get ... -o yaml` prints them (a `v1` List with
 * `kind: List` after its items), for a cluster the controller runs with `--provider sim`: a
 * SimNodeClass, NodePools, and machines (a NodeClaim and its Node, as the lifecycle controllers
 * leave them) of the KWOK catalog, with pods bound to them.
 */
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { stringify } from 'yaml';
import type { NodePool } from '@karpenter-ts/api';
import { nodePoolHash, NodePoolHashVersion } from '@karpenter-ts/api';
import { formatResourceList } from '@karpenter-ts/scheduling';
import { kwokInstanceTypes } from '@karpenter-ts/cloudprovider';

/** The time every test's pass runs at: Tuesday 2026-12-01, 10:00 UTC. */
export const NOW = '2026-12-01T10:00:00Z';
/** An hour before {@link NOW}: when the machines launched and the pods started. */
export const EARLIER = '2026-12-01T09:00:00Z';

type Obj = Record<string, unknown>;

const catalog = kwokInstanceTypes();

const ready = (at = EARLIER) => ({
  type: 'Ready',
  status: 'True',
  reason: 'Ready',
  message: '',
  lastTransitionTime: at,
});

/** The `default` SimNodeClass, Ready. */
export function simNodeClass(): Obj {
  return {
    apiVersion: 'karpenter.sim/v1',
    kind: 'SimNodeClass',
    metadata: { name: 'default', creationTimestamp: EARLIER },
    spec: {},
    status: { conditions: [ready()] },
  };
}

/** Options of {@link nodePool}. */
export interface PoolOptions {
  name?: string;
  consolidationPolicy?: 'WhenEmpty' | 'WhenEmptyOrUnderutilized';
  consolidateAfter?: string;
  budgets?: Obj[];
  requirements?: Obj[];
  labels?: Record<string, string>;
}

/** A NodePool of linux on-demand KWOK types, Ready, budget 100% unless given. */
export function nodePool(o: PoolOptions = {}): NodePool {
  return {
    apiVersion: 'karpenter.sh/v1',
    kind: 'NodePool',
    metadata: { name: o.name ?? 'default', creationTimestamp: new Date(EARLIER) },
    spec: {
      template: {
        ...(o.labels ? { metadata: { labels: o.labels } } : {}),
        spec: {
          nodeClassRef: { group: 'karpenter.sim', kind: 'SimNodeClass', name: 'default' },
          requirements: (o.requirements as never) ?? [
            { key: 'kubernetes.io/os', operator: 'In', values: ['linux'] },
            { key: 'karpenter.sh/capacity-type', operator: 'In', values: ['on-demand'] },
          ],
        },
      },
      disruption: {
        consolidationPolicy: o.consolidationPolicy ?? 'WhenEmptyOrUnderutilized',
        consolidateAfter: o.consolidateAfter ?? '0s',
        budgets: (o.budgets as never) ?? [{ nodes: '100%' }],
      },
    },
    status: {
      conditions: ['ValidationSucceeded', 'NodeClassReady', 'Ready'].map((type) => ({
        ...ready(),
        type,
        reason: type,
      })),
    },
  } as NodePool;
}

/** Options of {@link machine}. */
export interface MachineOptions {
  pool?: string;
  zone?: string;
  /** `status.lastPodEventTime`; default {@link EARLIER}. */
  lastPodEventTime?: string;
  /** Consolidatable=True; default true. */
  consolidatable?: boolean;
  /** The NodePool the NodeClaim was launched from (its hash annotation); default none. */
  launchedFrom?: NodePool;
  nodeAnnotations?: Record<string, string>;
}

/** A launched, registered, initialized NodeClaim of a KWOK type and its Node (same name). */
export function machine(name: string, instanceType: string, o: MachineOptions = {}): Obj[] {
  const it = catalog.find((t) => t.name === instanceType);
  if (it === undefined) throw new Error(`no KWOK instance type ${instanceType}`);
  const zone = o.zone ?? 'test-zone-a';
  const providerID = `kwok://${name}`;
  const typeLabels: Record<string, string> = {};
  for (const r of it.requirements.values()) {
    const values = r.valuesList();
    if (values.length === 1 && !r.complement) typeLabels[r.key] = values[0]!;
  }
  const labels = {
    ...typeLabels,
    'karpenter.sh/nodepool': o.pool ?? 'default',
    'node.kubernetes.io/instance-type': instanceType,
    'topology.kubernetes.io/zone': zone,
    'karpenter.sh/capacity-type': 'on-demand',
  };
  const capacity = formatResourceList(it.capacity);
  const allocatable = formatResourceList(it.allocatable());
  const condition = (type: string, at = EARLIER) => ({ ...ready(at), type, reason: type });
  const hash = o.launchedFrom
    ? {
        'karpenter.sh/nodepool-hash': nodePoolHash(o.launchedFrom),
        'karpenter.sh/nodepool-hash-version': NodePoolHashVersion,
      }
    : {};
  const nodeClaim = {
    apiVersion: 'karpenter.sh/v1',
    kind: 'NodeClaim',
    metadata: {
      name,
      labels,
      annotations: hash,
      creationTimestamp: EARLIER,
      finalizers: ['karpenter.sh/termination'],
    },
    spec: {
      nodeClassRef: { group: 'karpenter.sim', kind: 'SimNodeClass', name: 'default' },
      requirements: [
        { key: 'node.kubernetes.io/instance-type', operator: 'In', values: [instanceType] },
      ],
    },
    status: {
      providerID,
      nodeName: name,
      capacity,
      allocatable,
      lastPodEventTime: o.lastPodEventTime ?? EARLIER,
      conditions: [
        condition('Launched'),
        condition('Registered'),
        condition('Initialized'),
        ...((o.consolidatable ?? true) ? [condition('Consolidatable')] : []),
        condition('Ready'),
      ],
    },
  };
  const node = {
    apiVersion: 'v1',
    kind: 'Node',
    metadata: {
      name,
      labels: {
        ...labels,
        'kubernetes.io/hostname': name,
        'karpenter.sh/registered': 'true',
        'karpenter.sh/initialized': 'true',
      },
      annotations: o.nodeAnnotations ?? {},
      creationTimestamp: EARLIER,
      finalizers: ['karpenter.sh/termination'],
    },
    spec: { providerID },
    status: { capacity, allocatable, conditions: [{ ...ready(), reason: 'KubeletReady' }] },
  };
  return [nodeClaim, node];
}

/** A Node no NodeClaim owns (a system node pool, say). */
export function unmanagedNode(name: string, cpu = '4', memory = '16Gi'): Obj {
  return {
    apiVersion: 'v1',
    kind: 'Node',
    metadata: { name, labels: { 'kubernetes.io/hostname': name, 'kubernetes.io/os': 'linux' } },
    spec: { providerID: `kind://${name}` },
    status: {
      capacity: { cpu, memory, pods: '110' },
      allocatable: { cpu, memory, pods: '110' },
      conditions: [{ ...ready(), reason: 'KubeletReady' }],
    },
  };
}

/** Options of {@link pods}. */
export interface PodOptions {
  namespace?: string;
  /** The owning ReplicaSet (or `StatefulSet:name`); default `<app>-5d8f7c9b4`. */
  owner?: string;
  cpu?: string;
  memory?: string;
  annotations?: Record<string, string>;
  /** Names; default `<app>-5d8f7c9b4-<i>`. */
  names?: string[];
}

/** `count` Running, Ready pods of app `app`, bound to `nodeName`. */
export function pods(
  app: string,
  nodeName: string | undefined,
  count: number,
  o: PodOptions = {},
): Obj[] {
  const [ownerKind, ownerName] = o.owner?.includes(':')
    ? (o.owner.split(':') as [string, string])
    : ['ReplicaSet', o.owner ?? `${app}-5d8f7c9b4`];
  return Array.from({ length: count }, (_, i) => ({
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      name: o.names?.[i] ?? `${ownerName}-${nodeName ?? 'pending'}-${i}`,
      namespace: o.namespace ?? 'default',
      labels: {
        app,
        ...(ownerKind === 'ReplicaSet' ? { 'pod-template-hash': ownerName.split('-').pop()! } : {}),
      },
      ...(o.annotations ? { annotations: o.annotations } : {}),
      creationTimestamp: EARLIER,
      ownerReferences: [
        {
          apiVersion: 'apps/v1',
          kind: ownerKind,
          name: ownerName,
          uid: `uid-${ownerName}`,
          controller: true,
        },
      ],
    },
    spec: {
      ...(nodeName ? { nodeName } : {}),
      containers: [
        {
          name: 'app',
          image: 'app:1',
          resources: { requests: { cpu: o.cpu ?? '500m', memory: o.memory ?? '256Mi' } },
        },
      ],
    },
    status: nodeName
      ? {
          phase: 'Running',
          startTime: EARLIER,
          conditions: [
            { type: 'Ready', status: 'True' },
            { type: 'PodScheduled', status: 'True' },
          ],
        }
      : {
          phase: 'Pending',
          conditions: [{ type: 'PodScheduled', status: 'False', reason: 'Unschedulable' }],
        },
  }));
}

/** A PodDisruptionBudget selecting `app`. */
export function pdb(name: string, app: string, maxUnavailable: number): Obj {
  return {
    apiVersion: 'policy/v1',
    kind: 'PodDisruptionBudget',
    metadata: { name, namespace: 'default' },
    spec: { maxUnavailable, selector: { matchLabels: { app } } },
  };
}

/** A `kubectl get -o yaml` List of the objects. */
export function list(...objects: (object | object[])[]): string {
  return stringify(
    { apiVersion: 'v1', items: objects.flat(), kind: 'List', metadata: { resourceVersion: '' } },
    { lineWidth: 0 },
  );
}

/** Writes `text` to `<name>` in a new temporary folder; returns its path. */
export async function writeSnapshot(text: string, name = 'cluster.yaml'): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'karpenter-ts-snapshot-'));
  const file = join(dir, name);
  await writeFile(file, text);
  return file;
}
