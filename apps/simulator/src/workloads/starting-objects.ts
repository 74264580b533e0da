/**
 * What a scenario's manifests put in the cluster at time 0: the workloads the ReplicaSet and
 * Job stand-ins keep (from the CLI's workload expansion, so every default it applies holds
 * here too), DaemonSets and PodDisruptionBudgets.
 *
 * - Deployments, ReplicaSets, ReplicationControllers and StatefulSets become
 *   {@link ScalableWorkload}s (a StatefulSet's pods keep no identity here).
 * - Jobs and CronJobs (one run) become Jobs whose pods run until the scenario ends, unless their
 *   template has the `sim.karpenter-ts.io/run-seconds` annotation; bare Pods become one-pod
 *   Jobs that are not replaced once evicted.
 * - DaemonSets keep their (slimmed, defaulted) pod template; PDBs and LimitRanges are copied as
 *   they are (LimitRanges first, so the in-memory API server admits every pod with their
 *   defaults, and DaemonSet overhead counts them).
 */
import type { DaemonSet, LimitRange, Pod, PodDisruptionBudget } from '@karpenter-ts/api';
import { expandWorkloads, type ManifestDocument } from '@karpenter-ts/cli';
import type { SimJob, SimReplicaSet } from '@karpenter-ts/controllers';
import { podTemplate } from './slim-pod.js';

/** Kinds whose replicas a scenario can set. */
export const SCALABLE_KINDS: ReadonlySet<string> = new Set([
  'Deployment',
  'ReplicaSet',
  'ReplicationController',
  'StatefulSet',
]);

/** A workload whose replicas the scenario sets or follows a curve with. */
export interface ScalableWorkload {
  /** `namespace/name`. */
  readonly key: string;
  readonly kind: string;
  /** Replicas in the manifest (the curve's base). */
  readonly baseReplicas: number;
  /** What the ReplicaSet stand-in is given (`name` is the workload's). */
  readonly replicaSet: SimReplicaSet;
}

/** The objects of {@link startingObjects}. */
export interface StartingObjects {
  /** In manifest order. */
  readonly scalable: readonly ScalableWorkload[];
  readonly jobs: readonly SimJob[];
  readonly daemonSets: readonly DaemonSet[];
  readonly podDisruptionBudgets: readonly PodDisruptionBudget[];
  readonly limitRanges: readonly LimitRange[];
}

/**
 * The starting objects of `documents` (the scenario's manifests), pods stamped with `now`.
 * Raises the CLI's ManifestError for a workload it cannot expand.
 */
export function startingObjects(
  documents: readonly ManifestDocument[],
  now: Date,
): StartingObjects {
  const expanded = expandWorkloads(documents, { now });
  const podsOf = new Map<ManifestDocument, Pod[]>();
  for (const pod of [...expanded.pending, ...expanded.gated, ...expanded.daemonSetPods]) {
    const doc = expanded.origin.get(pod);
    if (doc === undefined) continue;
    const list = podsOf.get(doc) ?? [];
    list.push(pod);
    podsOf.set(doc, list);
  }
  const scalable: ScalableWorkload[] = [];
  const jobs: SimJob[] = [];
  const daemonSets: DaemonSet[] = [];
  for (const w of expanded.workloads) {
    const pods = podsOf.get(w.source) ?? [];
    const first = pods[0] ?? templatePod(w.source, now);
    if (first === undefined) continue;
    const template = podTemplate(first);
    if (SCALABLE_KINDS.has(w.kind)) {
      scalable.push({
        key: `${w.namespace}/${w.name}`,
        kind: w.kind,
        baseReplicas: w.pods,
        replicaSet: { name: w.name, namespace: w.namespace, template, replicas: w.pods },
      });
    } else if (w.kind === 'Job' || w.kind === 'CronJob') {
      if (w.pods === 0) continue;
      jobs.push({
        name: w.name,
        namespace: w.namespace,
        template,
        completions: w.pods,
        parallelism: w.pods,
      });
    } else if (w.kind === 'DaemonSet') {
      const ds = structuredClone(w.source.object) as unknown as DaemonSet;
      ds.metadata = { ...(ds.metadata ?? {}), name: w.name, namespace: w.namespace };
      if (ds.spec) ds.spec.template = { ...template, metadata: { ...template.metadata } };
      daemonSets.push(ds);
    }
  }
  for (const pod of expanded.pending) {
    const doc = expanded.origin.get(pod);
    if (doc?.object.kind !== 'Pod') continue;
    jobs.push({
      name: pod.metadata?.name ?? 'pod',
      namespace: pod.metadata?.namespace ?? 'default',
      template: podTemplate(pod),
      completions: 1,
      parallelism: 1,
      owner: null,
      replaceLost: false,
    });
  }
  const podDisruptionBudgets = documents
    .filter((d) => d.object.kind === 'PodDisruptionBudget')
    .map((d) => {
      const pdb = structuredClone(d.object) as unknown as PodDisruptionBudget;
      pdb.metadata = { ...(pdb.metadata ?? {}), namespace: pdb.metadata?.namespace ?? 'default' };
      delete pdb.status;
      return pdb;
    });
  const limitRanges = documents
    .filter((d) => d.object.kind === 'LimitRange')
    .map((d) => {
      const lr = structuredClone(d.object) as unknown as LimitRange;
      lr.metadata = { ...(lr.metadata ?? {}), namespace: lr.metadata?.namespace ?? 'default' };
      return lr;
    });
  return { scalable, jobs, daemonSets, podDisruptionBudgets, limitRanges };
}

/** One pod of a workload that has 0 replicas, made by expanding a copy with 1 (for its template). */
function templatePod(doc: ManifestDocument, now: Date): Pod | undefined {
  if (!SCALABLE_KINDS.has(doc.object.kind)) return undefined;
  const copy = structuredClone(doc.object);
  (copy.spec as Record<string, unknown>).replicas = 1;
  return expandWorkloads([{ ...doc, object: copy }], { now }).pending[0];
}
