/**
 * Builders for the disruption specifications: a ControllerLoop over the sim cloud with
 * ReplicaSet-owned workloads, run to a settled state.
 */
import type { NodePool } from '@karpenter-ts/api';
import {
  fakeInstanceTypes,
  SimCloudProvider,
  type InstanceType,
} from '@karpenter-ts/cloudprovider';
import {
  ControllerLoop,
  isTrue,
  ManualClock,
  MemoryKubeClient,
  type ControllerLoopOptions,
} from '../../src/index.js';
import { nodeClass, readyNodePool, TestNodeClass } from '../helpers.js';

/** A running in-memory cluster. */
export interface DisruptionEnv {
  readonly clock: ManualClock;
  readonly client: MemoryKubeClient;
  readonly cloud: SimCloudProvider;
  readonly loop: ControllerLoop;
}

/** Starts a loop with one NodePool (default: the test pool) and the fake catalog. */
export async function disruptionEnv(
  o: {
    pools?: NodePool[];
    instanceTypes?: InstanceType[];
    loop?: Partial<Omit<ControllerLoopOptions, 'client' | 'cloudProvider' | 'clock'>>;
  } = {},
): Promise<DisruptionEnv> {
  const clock = new ManualClock();
  const client = new MemoryKubeClient({ clock });
  const cloud = new SimCloudProvider({
    instanceTypes: o.instanceTypes ?? fakeInstanceTypes(20),
    clock,
    nodeClasses: [TestNodeClass],
  });
  await client.create('NodeClass', nodeClass());
  for (const pool of o.pools ?? [readyNodePool()]) await client.create('NodePool', pool);
  const loop = new ControllerLoop({
    client,
    cloudProvider: cloud,
    clock,
    provisioner: { solver: 'ts' },
    ...(o.loop ?? {}),
  });
  await loop.start();
  return { clock, client, cloud, loop };
}

/** Adds a ReplicaSet-owned workload of `replicas` pods with these requests and labels. */
export function addWorkload(
  env: DisruptionEnv,
  name: string,
  replicas: number,
  requests: Record<string, string>,
  o: { labels?: Record<string, string>; annotations?: Record<string, string> } = {},
): void {
  env.loop.replicaSets.add({
    name,
    replicas,
    template: {
      metadata: {
        labels: { app: name, ...(o.labels ?? {}) },
        ...(o.annotations ? { annotations: o.annotations } : {}),
      },
      spec: { containers: [{ name: 'c', image: 'app', resources: { requests } }] },
    },
  });
}

/** Runs until every pod is bound and every NodeClaim initialized, or `maxSeconds`. */
export async function settle(env: DisruptionEnv, maxSeconds = 300): Promise<boolean> {
  return env.loop.runUntil(async () => {
    const pods = await env.client.list('Pod');
    const claims = await env.client.list('NodeClaim');
    return (
      pods.length > 0 &&
      pods.every((p) => p.spec?.nodeName) &&
      claims.every((c) => isTrue(c, 'Initialized') && c.metadata.deletionTimestamp === undefined) &&
      env.loop.disruption.queue.commands().length === 0 &&
      env.loop.disruption.pendingCommand === undefined
    );
  }, maxSeconds);
}

/** USD/hour of the cloud's running instances. */
export async function costPerHour(env: DisruptionEnv): Promise<number> {
  let total = 0;
  for (const nc of await env.client.list('NodeClaim')) {
    const type = nc.metadata.labels?.['node.kubernetes.io/instance-type'];
    const zone = nc.metadata.labels?.['topology.kubernetes.io/zone'];
    const ct = nc.metadata.labels?.['karpenter.sh/capacity-type'];
    const it = (await env.cloud.getInstanceTypes(readyNodePool())).find((t) => t.name === type);
    total += it?.offerings.find((o) => o.zone === zone && o.capacityType === ct)?.price ?? 0;
  }
  return total;
}
