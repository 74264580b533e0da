/**
 * Test builders and environment (upstream `pkg/test` style): a fake clock, the in-memory client
 * with cluster state informers, the sim cloud, and the controllers wired together.
 */
import type { Node, NodeClaim, NodePool, Pod, PodDisruptionBudget } from '@karpenter-ts/api';
import {
  fakeInstanceTypes,
  SimCloudProvider,
  type InstanceType,
} from '@karpenter-ts/cloudprovider';
import {
  nodePool as schedulingNodePool,
  type NodePoolOptions,
} from '@karpenter-ts/scheduling/testing';
import {
  Cluster,
  GarbageCollection,
  ManualClock,
  MemoryKubeClient,
  NodeClaimLifecycle,
  NodeTermination,
  Provisioner,
  SimKubelet,
  startClusterInformers,
  type NodeClassObject,
} from '../src/index.js';

/** The NodeClass kind the scheduling test builders reference. */
export const TestNodeClass = { group: 'karpenter.test.sh', kind: 'TestNodeClass' };

/** A TestNodeClass named `default`, with `Ready` in the given state (none when undefined). */
export function nodeClass(ready: 'True' | 'False' | undefined = 'True'): NodeClassObject {
  return {
    apiVersion: `${TestNodeClass.group}/v1`,
    kind: TestNodeClass.kind,
    metadata: { name: 'default' },
    ...(ready
      ? {
          status: {
            conditions: [
              {
                type: 'Ready',
                status: ready,
                lastTransitionTime: '2025-01-01T00:00:00Z',
                reason: ready === 'True' ? 'Ready' : 'SubnetsNotFound',
                message: ready === 'True' ? '' : 'no subnets',
              },
            ],
          },
        }
      : {}),
  };
}

/** A NodePool with `Ready=True` (as the readiness controller would set). */
export function readyNodePool(
  o: NodePoolOptions & { terminationGracePeriod?: string } = {},
): NodePool {
  const pool = schedulingNodePool(o);
  if (o.terminationGracePeriod !== undefined) {
    pool.spec.template.spec.terminationGracePeriod = o.terminationGracePeriod;
  }
  pool.status = {
    conditions: [
      {
        type: 'Ready',
        status: 'True',
        lastTransitionTime: '2025-01-01T00:00:00Z',
        reason: 'Ready',
      },
    ],
  };
  return pool;
}

/** Everything a controller test needs. */
export interface TestEnv {
  clock: ManualClock;
  client: MemoryKubeClient;
  cloud: SimCloudProvider;
  cluster: Cluster;
  provisioner: Provisioner;
  lifecycle: NodeClaimLifecycle;
  termination: NodeTermination;
  gc: GarbageCollection;
  kubelet: SimKubelet;
}

/** Builds the environment; default catalog: upstream's fake `InstanceTypes(20)`. */
export async function testEnv(o: { instanceTypes?: InstanceType[] } = {}): Promise<TestEnv> {
  const clock = new ManualClock();
  const client = new MemoryKubeClient({ clock });
  const cloud = new SimCloudProvider({
    instanceTypes: o.instanceTypes ?? fakeInstanceTypes(20),
    clock,
    nodeClasses: [TestNodeClass],
  });
  const cluster = new Cluster(clock);
  await startClusterInformers(client, cluster);
  const ctx = { client, cloudProvider: cloud, clock };
  return {
    clock,
    client,
    cloud,
    cluster,
    provisioner: new Provisioner({ ...ctx, cluster, solver: 'ts' }),
    lifecycle: new NodeClaimLifecycle(ctx),
    termination: new NodeTermination(ctx),
    gc: new GarbageCollection(ctx),
    kubelet: new SimKubelet({ client, clock }),
  };
}

/** Creates objects through the client. */
export async function apply(
  env: TestEnv,
  ...objects: (NodePool | Pod | PodDisruptionBudget)[]
): Promise<void> {
  for (const o of objects) {
    if (o.kind === 'NodePool') await env.client.create('NodePool', o as NodePool);
    else if (o.kind === 'PodDisruptionBudget')
      await env.client.create('PodDisruptionBudget', o as PodDisruptionBudget);
    else await env.client.create('Pod', o as Pod);
  }
}

/** Triggers and closes the batch window, then provisions. */
export async function provision(env: TestEnv): Promise<NodeClaim[]> {
  for (const pod of await env.client.list('Pod')) {
    if (pod.metadata?.uid) env.provisioner.trigger(pod.metadata.uid);
  }
  env.clock.advance(env.provisioner.batcher.idleSeconds);
  await env.provisioner.reconcile();
  return env.client.list('NodeClaim');
}

/** Reconciles every NodeClaim's lifecycle once. */
export async function reconcileNodeClaims(env: TestEnv): Promise<void> {
  for (const nc of await env.client.list('NodeClaim')) {
    await env.lifecycle.reconcile(nc.metadata.name ?? '');
  }
}

/** Provisions, launches, registers (kubelet stand-in) and initializes: returns the Nodes. */
export async function provisionNodes(env: TestEnv): Promise<Node[]> {
  await provision(env);
  await reconcileNodeClaims(env); // finalizer + launch
  await env.kubelet.reconcile(); // node registers
  await reconcileNodeClaims(env); // registration + initialization
  return env.client.list('Node');
}

/** The NodeClaim (fresh from the client) named `name`. */
export async function nodeClaim(env: TestEnv, name: string): Promise<NodeClaim | undefined> {
  return env.client.get('NodeClaim', { name });
}

/** A bound, running pod on `nodeName`. */
export function runningPod(pod: Pod, nodeName: string): Pod {
  return {
    ...pod,
    spec: { ...(pod.spec ?? { containers: [] }), nodeName },
    status: { phase: 'Running', conditions: [{ type: 'Ready', status: 'True' }] },
  };
}

/** A policy/v1 PodDisruptionBudget selecting `labels`. */
export function pdb(
  name: string,
  labels: Record<string, string>,
  o: { maxUnavailable?: number | string; minAvailable?: number | string; expectedPods?: number },
): PodDisruptionBudget {
  const { expectedPods, ...spec } = o;
  return {
    apiVersion: 'policy/v1',
    kind: 'PodDisruptionBudget',
    metadata: { name, namespace: 'default' },
    spec: { selector: { matchLabels: labels }, ...spec },
    ...(expectedPods !== undefined
      ? {
          status: {
            expectedPods,
            currentHealthy: 0,
            desiredHealthy: 0,
            disruptionsAllowed: 0,
          },
        }
      : {}),
  };
}
