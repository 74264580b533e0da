/**
 * A stand-in for the ReplicaSet controller, for tests and the simulator: keeps `replicas` active
 * pods of each registered workload, creating pending pods from its template when pods are
 * missing (an eviction by a drain, a scale-up) and deleting the surplus on a scale-down (pending
 * pods first, then the newest, as the ReplicaSet controller prefers). Without it an evicted pod
 * would simply be gone in memory.
 */
import type { Pod } from '@karpenter-ts/api';
import type { MemoryKubeClient } from '../kube/memory-client.js';
import { isActive } from '../pods.js';
import { timeMs } from '../clock.js';

/** One workload: pods named `<name>-<suffix>` from `template`, owned by a ReplicaSet `name`. */
export interface SimReplicaSet {
  readonly name: string;
  readonly namespace?: string;
  /** The pod template (metadata.labels and spec are used). */
  readonly template: Pick<Pod, 'metadata' | 'spec'>;
  replicas: number;
}

/** See the module comment. */
export class SimReplicaSets {
  readonly #sets = new Map<string, SimReplicaSet>();

  constructor(private readonly client: MemoryKubeClient) {}

  /** Registers (or replaces) a workload. */
  add(set: SimReplicaSet): void {
    this.#sets.set(`${set.namespace ?? 'default'}/${set.name}`, { ...set });
  }

  /** Sets the replicas of a registered workload. Raises Error for an unknown one. */
  scale(name: string, replicas: number, namespace = 'default'): void {
    const set = this.#sets.get(`${namespace}/${name}`);
    if (set === undefined) throw new Error(`no workload ${namespace}/${name}`);
    set.replicas = replicas;
  }

  /** Creates missing pods and deletes surplus ones; returns how many of each. */
  async reconcile(): Promise<{ created: number; deleted: number }> {
    let created = 0;
    let deleted = 0;
    const pods = this.client.view('Pod');
    for (const set of this.#sets.values()) {
      const namespace = set.namespace ?? 'default';
      const mine = pods.filter(
        (p) =>
          isActive(p) &&
          (p.metadata?.namespace ?? 'default') === namespace &&
          (p.metadata?.ownerReferences ?? []).some(
            (o) => o.kind === 'ReplicaSet' && o.name === set.name,
          ),
      );
      for (let i = mine.length; i < set.replicas; i++) {
        await this.client.create('Pod', {
          apiVersion: 'v1',
          kind: 'Pod',
          metadata: {
            ...(set.template.metadata ?? {}),
            generateName: `${set.name}-`,
            namespace,
            ownerReferences: [
              {
                apiVersion: 'apps/v1',
                kind: 'ReplicaSet',
                name: set.name,
                uid: `rs-${set.name}`,
                controller: true,
              },
            ],
          },
          spec: structuredClone(set.template.spec ?? { containers: [] }),
        });
        created++;
      }
      if (mine.length > set.replicas) {
        const surplus = [...mine]
          .sort((a, b) => {
            const ua = a.spec?.nodeName ? 1 : 0;
            const ub = b.spec?.nodeName ? 1 : 0;
            if (ua !== ub) return ua - ub;
            return (
              (timeMs(b.metadata?.creationTimestamp) ?? 0) -
              (timeMs(a.metadata?.creationTimestamp) ?? 0)
            );
          })
          .slice(0, mine.length - set.replicas);
        for (const p of surplus) {
          await this.client.delete('Pod', {
            name: p.metadata?.name ?? '',
            namespace,
          });
          deleted++;
        }
      }
    }
    return { created, deleted };
  }
}
