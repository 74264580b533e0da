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
    const owned = this.#activePodsByReplicaSet();
    for (const set of this.#sets.values()) {
      const namespace = set.namespace ?? 'default';
      const mine = owned.get(`${namespace}/${set.name}`) ?? [];
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

  /**
   * The active pods by `namespace/ReplicaSet name` of their owner references, in store order:
   * one pass over the pods rather than one per workload (a 10,000-pod simulation spent a quarter
   * of its time filtering every pod for each of its workloads, every tick).
   */
  #activePodsByReplicaSet(): Map<string, Pod[]> {
    const owned = new Map<string, Pod[]>();
    for (const p of this.client.view('Pod')) {
      const owners = p.metadata?.ownerReferences;
      if (owners === undefined || owners.length === 0 || !isActive(p)) continue;
      const namespace = p.metadata?.namespace ?? 'default';
      const seen = new Set<string>();
      for (const o of owners) {
        if (o.kind !== 'ReplicaSet' || seen.has(o.name)) continue;
        seen.add(o.name);
        const key = `${namespace}/${o.name}`;
        const list = owned.get(key);
        if (list === undefined) owned.set(key, [p]);
        else list.push(p);
      }
    }
    return owned;
  }
}
