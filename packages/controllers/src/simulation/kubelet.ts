/**
 * A stand-in for the kubelets of launched machines, for tests and the simulator: it registers a
 * Node for every launched NodeClaim (as a real kubelet does when the instance boots), with the
 * `karpenter.sh/unregistered` taint, the NodeClaim's taints and startup taints, capacity and
 * allocatable, and `Ready=True`; later it removes startup taints (as the CNI or a daemon would).
 */
import type { Node, NodeClaim } from '@karpenter-ts/api';
import { Labels, Taints } from '@karpenter-ts/api';
import { timeMs, type Clock } from '../clock.js';
import type { KubeClient } from '../kube/client.js';
import { sameTaint } from '../state/state-node.js';

/** Options of {@link SimKubelet}. */
export interface SimKubeletOptions {
  readonly client: KubeClient;
  readonly clock: Clock;
  /** Seconds from launch (NodeClaim `Launched=True`) to Node registration; default 0. */
  readonly registrationDelaySeconds?: number;
  /** Seconds from registration to startup-taint removal; default 0. */
  readonly startupTaintRemovalSeconds?: number;
}

/** See the module comment. */
export class SimKubelet {
  constructor(private readonly o: SimKubeletOptions) {}

  /** One pass: registers due Nodes and removes due startup taints. Returns the new Node names. */
  async reconcile(): Promise<string[]> {
    const { client, clock } = this.o;
    const now = clock.now();
    const registered: string[] = [];
    // Read without copies where the client can (every tick reads every Node and NodeClaim).
    const read = <K extends 'Node' | 'NodeClaim'>(kind: K) =>
      client.view?.(kind) ?? client.list(kind);
    const nodes = await read('Node');
    const byProviderID = new Map(nodes.map((n) => [n.spec?.providerID ?? '', n]));
    for (const nc of await read('NodeClaim')) {
      const providerID = nc.status?.providerID;
      if (!providerID || nc.metadata.deletionTimestamp !== undefined) continue;
      const node = byProviderID.get(providerID);
      if (node === undefined) {
        const launched = timeMs(
          nc.status?.conditions?.find((c) => c.type === 'Launched')?.lastTransitionTime,
        );
        if (launched === undefined) continue;
        if (now < launched + (this.o.registrationDelaySeconds ?? 0) * 1000) continue;
        const created = await client.create('Node', nodeFor(nc));
        registered.push(created.metadata?.name ?? '');
      } else {
        await this.#removeStartupTaints(node, nc, now);
      }
    }
    return registered;
  }

  async #removeStartupTaints(node: Node, nc: NodeClaim, now: number): Promise<void> {
    const startup = nc.spec.startupTaints ?? [];
    const taints = node.spec?.taints ?? [];
    if (node.metadata?.labels?.[Labels.Registered] !== 'true') return;
    if (!taints.some((t) => startup.some((s) => sameTaint(s, t)))) return;
    const created = timeMs(node.metadata?.creationTimestamp) ?? now;
    if (now < created + (this.o.startupTaintRemovalSeconds ?? 0) * 1000) return;
    const next = structuredClone(node);
    next.spec = {
      ...(next.spec ?? {}),
      taints: taints.filter((t) => !startup.some((s) => sameTaint(s, t))),
    };
    await this.o.client.update('Node', next);
  }
}

/** The Node a kubelet registers for a launched NodeClaim (named after the NodeClaim). */
export function nodeFor(nc: NodeClaim): Node {
  const name = nc.metadata.name ?? '';
  return {
    apiVersion: 'v1',
    kind: 'Node',
    metadata: {
      name,
      labels: { ...(nc.metadata.labels ?? {}), [Labels.Hostname]: name },
    },
    spec: {
      providerID: nc.status?.providerID ?? '',
      taints: [
        { ...Taints.Unregistered },
        ...(nc.spec.taints ?? []),
        ...(nc.spec.startupTaints ?? []),
      ],
    },
    status: {
      capacity: { ...(nc.status?.capacity ?? {}) } as Record<string, string>,
      allocatable: { ...(nc.status?.allocatable ?? {}) } as Record<string, string>,
      conditions: [{ type: 'Ready', status: 'True' }],
    },
  };
}
