/**
 * A stand-in for the Job controller, for tests and the simulator: keeps `parallelism` pods of
 * each registered Job running (never more than the completions still missing) until
 * `completions` pods have succeeded. A pod that completes (phase `Succeeded`, e.g. through
 * {@link SimPodLifecycle}) counts toward its Job and is deleted (as `ttlSecondsAfterFinished: 0`
 * would remove it with its finished Job); a pod deleted or evicted before it completes is
 * replaced, unless the Job was registered with `replaceLost: false` (a bare pod, which no
 * controller brings back). A Job's pods carry the label {@link SimJobLabel} and the owner
 * reference the Job was registered with (default a `batch/v1` Job of its name).
 */
import type { Pod } from '@karpenter-ts/api';
import type { MemoryKubeClient } from '../kube/memory-client.js';
import { isActive } from '../pods.js';

/** Label on every pod of a {@link SimJob}: the Job's name. */
export const SimJobLabel = 'sim.karpenter-ts.io/job';

/** One Job. */
export interface SimJob {
  /** Unique per namespace; pods are named `<name>-<suffix>`. */
  readonly name: string;
  readonly namespace?: string;
  /** The pod template (metadata.labels, metadata.annotations and spec are used). */
  readonly template: Pick<Pod, 'metadata' | 'spec'>;
  /** Pods that must succeed; at least 1. */
  readonly completions: number;
  /** Pods running at once; at least 1. */
  readonly parallelism: number;
  /** Owner of the pods: default `{kind: 'Job', name}`; `null` for a bare pod (no owner). */
  readonly owner?: { readonly kind: string; readonly name: string } | null;
  /** Replace a pod deleted before it completed; default true. */
  readonly replaceLost?: boolean;
}

/** A Job's progress. */
export interface SimJobStatus {
  readonly name: string;
  readonly namespace: string;
  readonly succeeded: number;
  /** Pods deleted or evicted before completing. */
  readonly lost: number;
  readonly complete: boolean;
}

interface Tracked {
  readonly job: SimJob;
  succeeded: number;
  lost: number;
  /** Pods created, by name, that have not completed or been counted lost. */
  readonly live: Set<string>;
}

/** See the module comment. */
export class SimJobs {
  readonly #jobs = new Map<string, Tracked>();

  constructor(private readonly client: MemoryKubeClient) {}

  /** Registers a Job. Raises Error when one of that namespace and name exists, RangeError for counts below 1. */
  add(job: SimJob): void {
    const key = `${job.namespace ?? 'default'}/${job.name}`;
    if (this.#jobs.has(key)) throw new Error(`job ${key} already exists`);
    if (!(job.completions >= 1) || !(job.parallelism >= 1))
      throw new RangeError(`job ${key}: completions and parallelism must be at least 1`);
    this.#jobs.set(key, { job, succeeded: 0, lost: 0, live: new Set() });
  }

  /** Every Job's progress, in registration order. */
  statuses(): SimJobStatus[] {
    return [...this.#jobs.values()].map((t) => ({
      name: t.job.name,
      namespace: t.job.namespace ?? 'default',
      succeeded: t.succeeded,
      lost: t.lost,
      complete: t.succeeded >= t.job.completions,
    }));
  }

  /** Jobs not yet complete. */
  activeCount(): number {
    let n = 0;
    for (const t of this.#jobs.values()) if (t.succeeded < t.job.completions) n++;
    return n;
  }

  /**
   * Counts completed and lost pods, deletes the completed ones, forgets complete Jobs and
   * creates the pods each Job still needs. Returns how many pods it created, saw succeed and
   * saw lost.
   */
  async reconcile(): Promise<{ created: number; succeeded: number; lost: number }> {
    const out = { created: 0, succeeded: 0, lost: 0 };
    if (this.#jobs.size === 0) return out;
    const byJob = new Map<string, Pod[]>();
    for (const pod of this.client.view('Pod')) {
      const name = pod.metadata?.labels?.[SimJobLabel];
      if (name === undefined) continue;
      const key = `${pod.metadata?.namespace ?? 'default'}/${name}`;
      let list = byJob.get(key);
      if (list === undefined) byJob.set(key, (list = []));
      list.push(pod);
    }
    for (const [key, t] of this.#jobs) {
      const namespace = t.job.namespace ?? 'default';
      const pods = byJob.get(key) ?? [];
      const present = new Set<string>();
      let active = 0;
      for (const pod of pods) {
        const name = pod.metadata?.name ?? '';
        present.add(name);
        if (pod.status?.phase === 'Succeeded') {
          if (t.live.delete(name)) {
            t.succeeded++;
            out.succeeded++;
          }
          await this.client.delete('Pod', { namespace, name });
        } else if (isActive(pod)) active++;
      }
      for (const name of [...t.live]) {
        if (present.has(name)) continue;
        t.live.delete(name);
        t.lost++;
        out.lost++;
      }
      const missing = t.job.completions - t.succeeded;
      const replaceLost = t.job.replaceLost ?? true;
      const made = t.succeeded + t.lost + t.live.size;
      let want = Math.min(t.job.parallelism, missing) - active;
      if (!replaceLost) want = Math.min(want, t.job.completions - made);
      for (let i = 0; i < want; i++) {
        const created = await this.client.create('Pod', this.#pod(t.job, namespace));
        t.live.add(created.metadata?.name ?? '');
        out.created++;
      }
      if (
        t.succeeded >= t.job.completions ||
        (!replaceLost && t.live.size === 0 && made >= t.job.completions)
      )
        this.#jobs.delete(key);
    }
    return out;
  }

  #pod(job: SimJob, namespace: string): Pod {
    const owner = job.owner === undefined ? { kind: 'Job', name: job.name } : job.owner;
    return {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: {
        ...(job.template.metadata ?? {}),
        generateName: `${job.name}-`,
        namespace,
        labels: { ...(job.template.metadata?.labels ?? {}), [SimJobLabel]: job.name },
        ...(owner === null
          ? {}
          : {
              ownerReferences: [
                {
                  apiVersion: owner.kind === 'Job' ? 'batch/v1' : 'apps/v1',
                  kind: owner.kind,
                  name: owner.name,
                  uid: `${owner.kind.toLowerCase()}-${owner.name}`,
                  controller: true,
                },
              ],
            }),
      },
      spec: structuredClone(job.template.spec ?? { containers: [] }),
    };
  }
}
