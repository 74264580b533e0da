/**
 * Which pods of a snapshot belong to which workload, through owner references, so a workload
 * whose pods are in the snapshot is not expanded again: only the replicas beyond the pods
 * present are pending.
 *
 * - A pod's owner is its controller owner reference (or its first one).
 * - Deployment: pods of its ReplicaSets (a ReplicaSet in the snapshot owned by it, or, when the
 *   ReplicaSet is not in the snapshot, one named `<deployment>-<pod-template-hash>`). Its
 *   ReplicaSets are not expanded themselves: the Deployment's replicas count.
 * - ReplicaSet, ReplicationController, StatefulSet, Job: pods it owns. A StatefulSet's missing
 *   pods are the ordinals not present; a Job's are `min(parallelism, completions − succeeded)`
 *   minus its active pods.
 * - CronJob: not expanded when one of its Jobs is in the snapshot (that run is the Job's).
 * Finished pods (Succeeded, Failed) and pods being deleted are not present.
 */
import type { Pod } from '@karpenter-ts/api';
import type { ManifestDocument } from '../manifests/document.js';

/** What the snapshot already has of one workload. */
export interface WorkloadPresence {
  /** Active pods present. */
  readonly pods: Pod[];
  /** Pods that succeeded (Jobs count them against completions). */
  readonly succeeded: number;
  /** CronJobs: Jobs of it in the snapshot. */
  readonly jobs: number;
}

/** A workload object left out of the expansion, and why. */
export interface OwnedWorkload {
  readonly doc: ManifestDocument;
  readonly reason: string;
}

/** Presence per workload document, and the owned workloads not to expand. */
export interface WorkloadOwnership {
  readonly presence: Map<ManifestDocument, WorkloadPresence>;
  readonly owned: OwnedWorkload[];
}

interface OwnerRef {
  readonly kind: string;
  readonly name: string;
}

function controllerOf(object: {
  metadata?: { ownerReferences?: { kind: string; name: string; controller?: boolean }[] };
}): OwnerRef | undefined {
  const refs = object.metadata?.ownerReferences ?? [];
  return refs.find((r) => r.controller === true) ?? refs[0];
}

const key = (kind: string, namespace: string, name: string) => `${kind}/${namespace}/${name}`;

function nsOf(doc: ManifestDocument): string {
  return doc.object.metadata?.namespace ?? 'default';
}

/**
 * Finds, for each workload document (Deployments, ReplicaSets, StatefulSets, Jobs, CronJobs,
 * ReplicationControllers), the snapshot's pods it already has (see the module comment).
 */
export function workloadOwnership(
  workloads: readonly ManifestDocument[],
  pods: readonly Pod[],
): WorkloadOwnership {
  const byKey = new Map<string, ManifestDocument>();
  for (const doc of workloads) {
    const name = doc.object.metadata?.name;
    if (name) byKey.set(key(doc.object.kind, nsOf(doc), name), doc);
  }
  const presence = new Map<ManifestDocument, WorkloadPresence>();
  const entry = (doc: ManifestDocument): WorkloadPresence => {
    let p = presence.get(doc);
    if (p === undefined) presence.set(doc, (p = { pods: [], succeeded: 0, jobs: 0 }));
    return p;
  };
  const owned: OwnedWorkload[] = [];
  // ReplicaSets a Deployment of the snapshot owns are counted as the Deployment; Jobs of a
  // CronJob make the CronJob present.
  const replicaSetOwner = new Map<string, ManifestDocument>();
  for (const doc of workloads) {
    const owner = controllerOf(doc.object as never);
    if (owner === undefined) continue;
    const parent = byKey.get(key(owner.kind, nsOf(doc), owner.name));
    if (parent === undefined) continue;
    const name = doc.object.metadata?.name ?? '';
    if (doc.object.kind === 'ReplicaSet' && owner.kind === 'Deployment') {
      replicaSetOwner.set(key('ReplicaSet', nsOf(doc), name), parent);
      owned.push({
        doc,
        reason: `owned by Deployment ${nsOf(doc)}/${owner.name}, whose replicas count`,
      });
    } else if (doc.object.kind === 'Job' && owner.kind === 'CronJob') {
      (entry(parent) as { jobs: number }).jobs++;
    }
  }
  for (const pod of pods) {
    const owner = controllerOf(pod);
    if (owner === undefined) continue;
    const ns = pod.metadata?.namespace ?? 'default';
    let doc: ManifestDocument | undefined;
    if (owner.kind === 'ReplicaSet') {
      doc = replicaSetOwner.get(key('ReplicaSet', ns, owner.name));
      const hash = pod.metadata?.labels?.['pod-template-hash'];
      if (doc === undefined && hash !== undefined && owner.name.endsWith(`-${hash}`)) {
        const deployment = owner.name.slice(0, -hash.length - 1);
        doc = byKey.get(key('Deployment', ns, deployment));
      }
    }
    doc ??= byKey.get(key(owner.kind, ns, owner.name));
    if (doc === undefined) continue;
    const phase = pod.status?.phase;
    const p = entry(doc) as { pods: Pod[]; succeeded: number };
    if (phase === 'Succeeded') p.succeeded++;
    else if (phase !== 'Failed' && pod.metadata?.deletionTimestamp === undefined) p.pods.push(pod);
  }
  return { presence, owned };
}

/**
 * Of the pods the expansion made for `doc` (in order), those still missing given what the
 * snapshot has of it (see the module comment).
 */
export function missingPods(
  doc: ManifestDocument,
  expanded: readonly Pod[],
  present: WorkloadPresence | undefined,
): Pod[] {
  if (present === undefined) return [...expanded];
  const kind = doc.object.kind;
  if (kind === 'CronJob') return present.jobs > 0 ? [] : [...expanded];
  if (kind === 'StatefulSet') {
    const names = new Set(present.pods.map((p) => p.metadata?.name));
    return expanded.filter((p) => !names.has(p.metadata?.name));
  }
  if (kind === 'Job') {
    const spec = (doc.object.spec ?? {}) as { parallelism?: number; completions?: number };
    const parallelism = spec.parallelism ?? 1;
    const completions = spec.completions ?? parallelism;
    const status = (doc.object.status ?? {}) as { succeeded?: number };
    const succeeded = Math.max(present.succeeded, status.succeeded ?? 0);
    const remaining = Math.min(parallelism, Math.max(0, completions - succeeded));
    return expanded.slice(
      0,
      Math.max(0, Math.min(expanded.length, remaining) - present.pods.length),
    );
  }
  return expanded.slice(0, Math.max(0, expanded.length - present.pods.length));
}
