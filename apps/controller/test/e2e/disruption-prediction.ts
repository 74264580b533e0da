/**
 * What the disruption code predicts for a workload when it runs in memory: packages/controllers'
 * ControllerLoop (the same provisioner, NodeClaim controllers, disruption controller and
 * orchestration queue the operator runs) over the sim cloud with the operator's catalog (upstream
 * KWOK's 144 instance types), its ReplicaSet and kube-scheduler stand-ins and a manual clock.
 */
import type { NodePool, Pod } from '@karpenter-ts/api';
import {
  KwokWellKnownLabels,
  kwokInstanceTypes,
  SimCloudProvider,
  SimNodeClassKind,
} from '@karpenter-ts/cloudprovider';
import { ControllerLoop, isTrue, ManualClock, MemoryKubeClient } from '@karpenter-ts/controllers';

/** The sim cloud's instances as this suite compares them: instance types and USD/hour. */
export interface Fleet {
  /** Instance-type names, sorted. */
  readonly instanceTypes: readonly string[];
  /** Σ on-demand/spot price of each instance's offering in its zone, USD/hour. */
  readonly costPerHour: number;
}

/** The price of the KWOK catalog's offering that a NodeClaim's (or Node's) labels name. */
export function priceOf(labels: Record<string, string> | undefined): number {
  const type = labels?.['node.kubernetes.io/instance-type'];
  const zone = labels?.['topology.kubernetes.io/zone'];
  const capacityType = labels?.['karpenter.sh/capacity-type'];
  const it = Catalog.find((t) => t.name === type);
  const offering = it?.offerings.find((o) => o.zone === zone && o.capacityType === capacityType);
  if (offering === undefined)
    throw new Error(`no offering ${type} ${capacityType} in ${zone} in the KWOK catalog`);
  return offering.price;
}

/** The fleet of these NodeClaims. */
export function fleetOf(
  claims: readonly { metadata: { labels?: Record<string, string> } }[],
): Fleet {
  return {
    instanceTypes: claims
      .map((c) => c.metadata.labels?.['node.kubernetes.io/instance-type'] ?? '?')
      .sort(),
    costPerHour: claims.reduce((sum, c) => sum + priceOf(c.metadata.labels), 0),
  };
}

const Catalog = kwokInstanceTypes();

/** The prediction: the fleet once `from` pods ran, and once the workload settled at `to`. */
export interface Prediction {
  readonly before: Fleet;
  readonly after: Fleet;
  /** Clock seconds the loop ran after the scale-down until nothing was left to do. */
  readonly settleSeconds: number;
}

/**
 * Runs `pool` (its spec as the API server stored it, defaults applied) with a ReplicaSet of
 * `from` pods of `podSpec`, waits until every pod is bound and no disruption command is in
 * flight, then scales it to `to` and runs until the cluster is quiet again: every pod bound,
 * no command in flight or waiting for validation, nothing deleting, and no change for 10 passes
 * of the disruption controller (100 s of clock).
 */
export async function predict(
  pool: NodePool,
  podSpec: NonNullable<Pod['spec']>,
  from: number,
  to: number,
): Promise<Prediction> {
  const clock = new ManualClock();
  const client = new MemoryKubeClient({ clock });
  const cloud = new SimCloudProvider({ instanceTypes: kwokInstanceTypes(), clock });
  const nodeClassName = pool.spec.template.spec.nodeClassRef.name;
  await client.create('NodeClass', {
    apiVersion: `${SimNodeClassKind.group}/v1`,
    kind: SimNodeClassKind.kind,
    metadata: { name: nodeClassName },
  });
  await client.create('NodePool', {
    apiVersion: 'karpenter.sh/v1',
    kind: 'NodePool',
    metadata: { name: pool.metadata.name ?? '' },
    spec: structuredClone(pool.spec),
  });
  const loop = new ControllerLoop({
    client,
    cloudProvider: cloud,
    clock,
    // As the operator's sim wiring: the default (wasm) solver and KWOK's well-known labels.
    provisioner: { extraWellKnownLabels: [...KwokWellKnownLabels] },
  });
  // The NodeClass status controller of the operator (src/sim/sim-nodeclass.ts) marks it Ready.
  const nodeClass = await client.get('NodeClass', {
    name: nodeClassName,
    nodeClass: SimNodeClassKind,
  });
  if (nodeClass === undefined) throw new Error('NodeClass not stored');
  nodeClass.status = {
    conditions: [
      {
        type: 'Ready',
        status: 'True',
        reason: 'Ready',
        message: '',
        lastTransitionTime: new Date(clock.now()).toISOString(),
      },
    ],
  };
  await client.updateStatus('NodeClass', nodeClass);
  await loop.start();
  const name = 'predicted';
  loop.replicaSets.add({
    name,
    replicas: from,
    template: { metadata: { labels: { app: name } }, spec: structuredClone(podSpec) },
  });
  const quiet = async (replicas: number) => {
    const pods = await client.list('Pod');
    const claims = await client.list('NodeClaim');
    return (
      pods.length === replicas &&
      pods.every((p) => p.spec?.nodeName) &&
      claims.every((c) => isTrue(c, 'Initialized') && c.metadata.deletionTimestamp === undefined) &&
      loop.disruption.queue.commands().length === 0 &&
      loop.disruption.pendingCommand === undefined
    );
  };
  try {
    if (!(await loop.runUntil(() => quiet(from), 600)))
      throw new Error(`in memory, ${from} pods did not settle within 600 s of clock`);
    const before = fleetOf(await client.list('NodeClaim'));
    loop.replicaSets.scale(name, to);
    const start = clock.now();
    let stableSince = clock.now();
    let last = '';
    const settled = await loop.runUntil(async () => {
      const claims = (await client.list('NodeClaim')).map((c) => c.metadata.name).sort();
      const state = claims.join(',');
      if (state !== last || !(await quiet(to))) {
        last = state;
        stableSince = clock.now();
        return false;
      }
      return clock.now() - stableSince >= 100_000;
    }, 1800);
    if (!settled)
      throw new Error(`in memory, the scale-down to ${to} did not settle within 1800 s of clock`);
    return {
      before,
      after: fleetOf(await client.list('NodeClaim')),
      settleSeconds: (stableSince - start) / 1000,
    };
  } finally {
    loop.stop();
  }
}
