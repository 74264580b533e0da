/**
 * Reads a cluster snapshot from loaded manifests (files, or `kubectl get nodes,pods,nodeclaims,
 * nodepools,aksnodeclasses,ec2nodeclasses,daemonsets,pdb,pv,pvc,storageclasses,deployments,
 * replicasets,statefulsets,jobs -A -o yaml` output, several allowed) into the objects a
 * MemoryKubeClient is loaded with (the controllers' {@link ClusterSnapshot}):
 *
 * - Nodes, NodeClaims, PodDisruptionBudgets and DaemonSets as they are; Pods as the apiserver
 *   stores them (defaulted); bound pods run on their Nodes, unbound ones are pending.
 * - Workloads (Deployments, ReplicaSets, StatefulSets, Jobs, CronJobs, ReplicationControllers)
 *   are expanded as `simulate` expands them, minus the pods of theirs the snapshot already has
 *   (see workload-pods.ts): only replicas beyond the pods present are pending.
 * - NodePools and NodeClasses as the cloud's NodePool plan picks them (the input's, else the
 *   cloud's default, except for a cluster snapshot: `clusterSnapshot` or NodeClaims in the
 *   input, which gets no NodePool and a note saying so); a NodeClass without a `Ready` condition (a manifest file) is taken as
 *   Ready, since the CLI has no provider controller to report it.
 * - NodeOverlays as they are with the `NodeOverlay` gate on (`nodeOverlay`); ignored with the
 *   reason when it is off (upstream's default).
 * - Everything else is ignored with a reason (a finished pod, a kind that does not change
 *   scheduling), or, with `unknownKinds: 'error'`, a kind the reader does not know is bad input.
 *
 * Problems are raised before anything is built: the first validation problem (as `simulate`
 * does, see rejectInvalidInput), else every unknown kind as one line each (a CliError, exit 1).
 * Reference problems (a pod bound to a Node the snapshot lacks, a NodeClaim without its Node)
 * are the controllers' `snapshotProblems`, raised when the snapshot is loaded.
 */
import type {
  CSINode,
  DaemonSet,
  LimitRange,
  Node,
  NodeClaim,
  NodeOverlay,
  PersistentVolume,
  PersistentVolumeClaim,
  Pod,
  PodDisruptionBudget,
  StorageClass,
} from '@karpenter-ts/api';
import {
  admitPodResources,
  BindCompletedAnnotation,
  emptySnapshot,
  type ClusterSnapshot,
  type Located,
  type NodeClassObject,
  type SimReplicaSet,
} from '@karpenter-ts/controllers';
import type { Cloud } from '../clouds/cloud.js';
import { resourceListFromQuantities } from '@karpenter-ts/scheduling';
import { CliError, ManifestError } from '../errors.js';
import { fieldPath, location, objectName, type ManifestDocument } from '../manifests/document.js';
import { inventory, NODE_CLASS_GROUPS } from '../manifests/inventory.js';
import { planNodePools, type NodePoolPlan } from '../simulation/node-pools.js';
import { rejectInvalidInput } from '../simulation/simulate.js';
import { apiServerDecoded } from '../validation/api-fields.js';
import { expandWorkloads } from '../workloads/expand.js';
import { ignoredKindReason, unknownKindMessage } from './kinds.js';
import { missingPods, workloadOwnership } from './workload-pods.js';
import { withReadableStatus } from './readable-status.js';

/** Options of {@link readSnapshot}. */
export interface ReadSnapshotOptions {
  /** Creation time of the pending pods the expansion makes; default now. */
  readonly now?: Date;
  /** Replica multiplier of the expansion (see scaleCount); default 1. */
  readonly scale?: number;
  /** `error`: an object of a kind the reader does not know is bad input; `ignore` (default): it is ignored. */
  readonly unknownKinds?: 'error' | 'ignore';
  /**
   * The `NodeOverlay` feature gate: on, NodeOverlays are part of the snapshot (the controllers
   * apply them); off (default, as upstream), each is ignored with the reason.
   */
  readonly nodeOverlay?: boolean;
  /**
   * The input is a cluster snapshot (`disrupt`, `diff`): without a NodePool in it, none is
   * assumed (not the cloud's default). An input holding NodeClaims is read so whatever this says.
   */
  readonly clusterSnapshot?: boolean;
  /**
   * Most pending pods the caller runs (simulate's MaxPendingPods); default the expansion's own
   * cap (MAX_PENDING_PODS). Workloads that would expand past it, plus one pod per Pod document
   * of the input (pods already there are not made again), are refused before any pod is built
   * (see expandWorkloads); the caller checks the pending pods read against it.
   */
  readonly maxPendingPods?: number;
}

/** Why a NodeOverlay is ignored with the gate off. */
export const NodeOverlayGateOffReason =
  "the NodeOverlay feature gate is off (its default, as upstream's): --node-overlay applies it";

/** An object the reader left out, and why. */
export interface IgnoredObject {
  /** `file:document` (and the object's path in it). */
  readonly source: string;
  /** `Kind/name` or `Kind/namespace/name`. */
  readonly object: string;
  readonly kind: string;
  readonly reason: string;
}

/** Pending pods a workload of the input adds beyond its pods in the snapshot. */
export interface WorkloadPending {
  /** `Kind namespace/name`. */
  readonly workload: string;
  /** Pods of it in the snapshot. */
  readonly present: number;
  /** Pods the expansion adds as pending. */
  readonly pending: number;
}

/** What {@link readSnapshot} read. */
export interface SnapshotRead {
  readonly snapshot: ClusterSnapshot;
  readonly plan: NodePoolPlan;
  readonly ignored: readonly IgnoredObject[];
  readonly notes: readonly string[];
  readonly workloads: readonly WorkloadPending[];
  /** Workloads whose evicted pods come back (ReplicaSet-owned pods), for the ReplicaSet stand-in. */
  readonly replicaSets: readonly SimReplicaSet[];
  /** Pods left out because they have `spec.schedulingGates`. */
  readonly gated: number;
  /** The note naming them and their workloads; undefined when there are none. */
  readonly gatedNote?: string;
}

/** See the module comment. */
export function readSnapshot(
  documents: readonly ManifestDocument[],
  cloud: Cloud,
  options: ReadSnapshotOptions = {},
): SnapshotRead {
  const inv = inventory(documents);
  rejectInvalidInput(inv, cloud);
  const ignored: IgnoredObject[] = [];
  const unknown: string[] = [];
  const ignore = (doc: ManifestDocument, reason: string) =>
    ignored.push({
      source: sourceOf(doc),
      object: objectName(doc.object),
      kind: doc.object.kind,
      reason,
    });
  const storageDocs: ManifestDocument[] = [];
  for (const doc of inv.other) {
    if (STORAGE_KINDS.has(doc.object.kind)) {
      storageDocs.push(doc);
      continue;
    }
    const reason = ignoredKindReason(doc.object.kind);
    if (reason !== undefined || options.unknownKinds !== 'error')
      ignore(doc, reason ?? 'not a kind the reader uses');
    else
      unknown.push(
        `${location(doc)} ${fieldPath(doc, 'kind')}: ${objectName(doc.object)}: ${unknownKindMessage(doc.object.kind, doc.object.apiVersion)}`,
      );
  }
  if (unknown.length > 0) throw new CliError(unknown.join('\n'));
  const snapshotOverlays: Located<NodeOverlay>[] = [];
  for (const doc of inv.nodeOverlays) {
    if (options.nodeOverlay === true)
      snapshotOverlays.push(located(doc.object as unknown as NodeOverlay, doc));
    else ignore(doc, NodeOverlayGateOffReason);
  }

  // A cluster's state (a snapshot, or any input with NodeClaims: a cluster Karpenter manages)
  // brings its own NodePools; assuming the default one would invent policy.
  const plan = planNodePools(inv.nodePools, inv.nodeClasses, cloud, {
    defaultNodePool: options.clusterSnapshot !== true && inv.nodeClaims.length === 0,
  });
  for (const left of plan.leftOut) {
    const doc = inv.nodePools.find((d) => d.object.metadata?.name === left.nodePool.metadata.name);
    if (doc) ignore(doc, left.reason);
  }
  const snapshot = emptySnapshot() as {
    -readonly [K in keyof ClusterSnapshot]: Located<unknown>[];
  } & ClusterSnapshot;
  const notes: string[] = [...plan.notes];
  snapshot.nodeOverlays.push(...snapshotOverlays);

  for (const p of plan.pools) {
    const doc = inv.nodePools.find((d) => d.object.metadata?.name === p.nodePool.metadata.name);
    const readable = withReadableStatus(p.nodePool);
    if (readable.dropped.length > 0 && doc)
      notes.push(
        `${location(doc)} NodePool ${objectName(doc.object)}: ${readable.dropped.join(', ')} does not fit the NodePool status schema and is read as absent`,
      );
    snapshot.nodePools.push(located(readable.claim, doc, 'the cloud default'));
  }
  const classes = new Set<string>();
  const addClass = (object: NodeClassObject, doc: ManifestDocument | undefined) => {
    const name = object.metadata.name ?? '';
    if (classes.has(name)) return;
    classes.add(name);
    snapshot.nodeClasses.push(located(readyNodeClass(object), doc, 'the cloud default'));
  };
  for (const doc of inv.nodeClasses) {
    const kind = doc.object.kind;
    if (
      kind !== cloud.nodeClassKind.kind ||
      NODE_CLASS_GROUPS[kind] !== cloud.nodeClassKind.group
    ) {
      ignore(doc, `a NodeClass of another cloud (this run is on ${cloud.name})`);
      continue;
    }
    addClass(doc.object as unknown as NodeClassObject, doc);
  }
  for (const p of plan.pools) {
    if (p.defaultNodeClass) addClass(p.nodeClass as unknown as NodeClassObject, undefined);
  }
  for (const doc of inv.nodeClaims) {
    const claim = doc.object as unknown as NodeClaim;
    const readable = withReadableStatus(claim);
    if (readable.dropped.length > 0)
      notes.push(
        `${location(doc)} NodeClaim ${objectName(doc.object)}: ${readable.dropped.join(', ')} does not fit the NodeClaim status schema and is read as absent`,
      );
    snapshot.nodeClaims.push(located(readable.claim, doc));
  }
  for (const doc of inv.nodes) snapshot.nodes.push(located(readNode(doc), doc));
  for (const doc of inv.podDisruptionBudgets)
    snapshot.podDisruptionBudgets.push(located(doc.object as unknown as PodDisruptionBudget, doc));
  for (const doc of storageDocs.filter((d) => d.object.kind === 'LimitRange'))
    snapshot.limitRanges.push(located(apiServerDecoded(doc.object) as unknown as LimitRange, doc));
  // Pods the API server has not admitted yet (built from templates, or Pod documents of a
  // manifest file, which have no status) get their namespace's LimitRange defaults, as
  // admission would give them; pods a cluster reported carry theirs already.
  const limitRanges = snapshot.limitRanges.map((l) => l.object as LimitRange);
  const admit = (pod: Pod): Pod =>
    limitRanges.length > 0 ? admitPodResources(pod, limitRanges) : pod;

  const podDocs = inv.workloads.filter((d) => d.object.kind === 'Pod');
  const daemonSetDocs = inv.workloads.filter((d) => d.object.kind === 'DaemonSet');
  for (const doc of daemonSetDocs)
    snapshot.daemonSets.push(located(apiServerDecoded(doc.object) as unknown as DaemonSet, doc));
  const controllers = inv.workloads.filter(
    (d) => d.object.kind !== 'Pod' && d.object.kind !== 'DaemonSet',
  );

  const pods = expandWorkloads(podDocs, {
    ...(options.now ? { now: options.now } : {}),
  });
  const podsOf = (list: readonly Pod[]) =>
    list.map((pod) => {
      const doc = pods.origin.get(pod);
      const admitted = doc?.object.kind === 'Pod' && doc.object.status !== undefined;
      return located(admitted ? pod : admit(pod), doc);
    });
  // One push per pod: spreading hundreds of thousands of arguments overflows the stack.
  for (const pod of [...podsOf(pods.boundPods), ...podsOf(pods.pending)]) snapshot.pods.push(pod);
  for (const doc of podDocs) {
    const phase = (doc.object.status as { phase?: string } | undefined)?.phase;
    if (phase === 'Succeeded' || phase === 'Failed')
      ignore(doc, `finished (${phase}): it holds no resources`);
  }
  for (const pod of pods.gated)
    ignore(
      pods.origin.get(pod)!,
      `has spec.schedulingGates: Karpenter provisions for it once they are removed`,
    );

  const ownership = workloadOwnership(controllers, [
    ...pods.boundPods,
    ...pods.pending,
    ...pods.gated,
  ]);
  for (const { doc, reason } of ownership.owned) ignore(doc, reason);
  const ownedDocs = new Set(ownership.owned.map((o) => o.doc));
  const expandable = controllers.filter((d) => !ownedDocs.has(d));
  const made = expandWorkloads(expandable, {
    ...(options.now ? { now: options.now } : {}),
    ...(options.scale !== undefined ? { scale: options.scale } : {}),
    // Past this, the pending pods pass the caller's bound whatever pods the input holds.
    ...(options.maxPendingPods !== undefined
      ? { maxPendingPods: options.maxPendingPods + podDocs.length }
      : {}),
  });
  const byDoc = new Map<ManifestDocument, Pod[]>();
  // Appended in place: copying the list for every pod was quadratic (400,000 pods of one
  // Deployment took most of an hour here before the cluster even started).
  for (const pod of made.pending) {
    const doc = made.origin.get(pod)!;
    let pending = byDoc.get(doc);
    if (pending === undefined) byDoc.set(doc, (pending = []));
    pending.push(pod);
  }
  const workloads: WorkloadPending[] = [];
  for (const doc of expandable) {
    const present = ownership.presence.get(doc);
    const missing = missingPods(doc, byDoc.get(doc) ?? [], present);
    for (const pod of missing) snapshot.pods.push(located(admit(pod), doc));
    workloads.push({
      workload: `${doc.object.kind} ${doc.object.metadata?.namespace ?? 'default'}/${doc.object.metadata?.name ?? ''}`,
      present: (present?.pods.length ?? 0) + (present?.jobs ?? 0),
      pending: missing.length,
    });
  }
  readStorage(
    storageDocs,
    [...pods.persistentVolumeClaims, ...made.persistentVolumeClaims],
    snapshot,
    notes,
  );
  const gated = [
    ...pods.gated.map((pod) => ({ pod, doc: pods.origin.get(pod)! })),
    ...made.gated.map((pod) => ({ pod, doc: made.origin.get(pod)! })),
  ];
  return {
    snapshot,
    plan,
    ignored,
    notes,
    workloads,
    replicaSets: replicaSetsOf(snapshot.pods.map((p) => p.object as Pod)),
    gated: gated.length,
    ...(gated.length > 0 ? { gatedNote: gatedNote(gated) } : {}),
  };
}

/** Kinds read into the snapshot's storage and LimitRange lists. */
const STORAGE_KINDS: ReadonlySet<string> = new Set([
  'LimitRange',
  'PersistentVolumeClaim',
  'PersistentVolume',
  'StorageClass',
  'CSINode',
]);

/** The StorageClass annotation that makes it the default of PVCs naming none. */
const DEFAULT_CLASS_ANNOTATION = 'storageclass.kubernetes.io/is-default-class';

/**
 * Reads PVCs, PVs, StorageClasses and CSINodes into the snapshot, with the PVCs the expansion
 * makes (StatefulSet volumeClaimTemplates) that the input does not hold. A PVC without a status
 * is from a manifest file or made here, not read from a cluster: it is read as the API server
 * and PV controller would leave it: with no storage class, the default StorageClass of the
 * input (admission); with `spec.volumeName`, bound (`status.phase: Bound` and the
 * bind-completed annotation). A StorageClass a PVC names that the input lacks is read as
 * WaitForFirstConsumer without allowed topologies (it does not constrain placement), and a
 * PVC of a file naming none when the input has no default gets such a class too. Each change
 * is a note.
 */
function readStorage(
  docs: readonly ManifestDocument[],
  expanded: readonly PersistentVolumeClaim[],
  snapshot: { -readonly [K in keyof ClusterSnapshot]: Located<unknown>[] },
  notes: string[],
): void {
  const of = (kind: string) => docs.filter((d) => d.object.kind === kind);
  const classes = of('StorageClass').map((doc) => ({
    doc,
    object: doc.object as unknown as StorageClass,
  }));
  for (const { doc, object } of classes) snapshot.storageClasses.push(located(object, doc));
  const defaultClass = classes.find(
    ({ object }) => object.metadata?.annotations?.[DEFAULT_CLASS_ANNOTATION] === 'true',
  )?.object.metadata?.name;
  for (const doc of of('PersistentVolume'))
    snapshot.persistentVolumes.push(located(doc.object as unknown as PersistentVolume, doc));
  for (const doc of of('CSINode'))
    snapshot.csiNodes.push(located(doc.object as unknown as CSINode, doc));
  const claimName = (c: PersistentVolumeClaim) =>
    `${c.metadata?.namespace ?? 'default'}/${c.metadata?.name ?? ''}`;
  const claims: { claim: PersistentVolumeClaim; doc: ManifestDocument | undefined }[] = of(
    'PersistentVolumeClaim',
  ).map((doc) => ({
    claim: structuredClone(doc.object) as unknown as PersistentVolumeClaim,
    doc,
  }));
  const present = new Set(claims.map(({ claim }) => claimName(claim)));
  for (const claim of expanded)
    if (!present.has(claimName(claim)))
      claims.push({ claim: structuredClone(claim), doc: undefined });
  const known = new Set(classes.map(({ object }) => object.metadata?.name ?? ''));
  const stand = (name: string, why: string, isDefault = false) => {
    if (known.has(name)) return;
    known.add(name);
    snapshot.storageClasses.push(
      located<StorageClass>(
        {
          apiVersion: 'storage.k8s.io/v1',
          kind: 'StorageClass',
          metadata: {
            name,
            ...(isDefault ? { annotations: { [DEFAULT_CLASS_ANNOTATION]: 'true' } } : {}),
          },
          provisioner: 'karpenter-ts.io/unknown',
          volumeBindingMode: 'WaitForFirstConsumer',
        },
        undefined,
        '<assumed>',
      ),
    );
    notes.push(
      `${why}: read as a WaitForFirstConsumer StorageClass ${name} without allowed topologies (its volumes do not constrain placement)`,
    );
  };
  for (const { claim, doc } of claims) {
    const name = claimName(claim);
    if (claim.status === undefined) {
      claim.spec = { ...(claim.spec ?? {}) };
      if (!claim.spec.storageClassName && !claim.spec.volumeName) {
        const assigned = defaultClass ?? DEFAULT_ASSUMED_CLASS;
        if (defaultClass === undefined)
          stand(assigned, 'the input has no default StorageClass', true);
        claim.spec.storageClassName = assigned;
        notes.push(
          `PersistentVolumeClaim ${name} names no storage class: given the default StorageClass ${assigned}, as admission does`,
        );
      }
      if (claim.spec.volumeName) {
        claim.metadata = {
          ...(claim.metadata ?? {}),
          annotations: { ...(claim.metadata?.annotations ?? {}), [BindCompletedAnnotation]: 'yes' },
        };
        claim.status = { phase: 'Bound' };
      }
    }
    const className = claim.spec?.storageClassName;
    if (className && !claim.spec?.volumeName)
      stand(
        className,
        `the input has no StorageClass ${className} (PersistentVolumeClaim ${name})`,
      );
    snapshot.persistentVolumeClaims.push(located(claim, doc));
  }
}

/** The default StorageClass assumed when the input has none. */
const DEFAULT_ASSUMED_CLASS = 'default';

/**
 * The note for pods left out because they have `spec.schedulingGates`, naming up to three of
 * their workloads and gates. Upstream Karpenter provisions only for pods the scheduler marked
 * Unschedulable, which a gated pod never is.
 */
function gatedNote(gated: readonly { pod: Pod; doc: ManifestDocument }[]): string {
  const sources: string[] = [];
  const seen = new Set<ManifestDocument>();
  for (const { pod, doc } of gated) {
    if (seen.has(doc)) continue;
    seen.add(doc);
    const meta = doc.object.metadata ?? {};
    const name = `${doc.object.kind} ${meta.namespace ?? 'default'}/${meta.name ?? meta.generateName ?? ''}`;
    const gates = (pod.spec?.schedulingGates ?? []).map((g) => g.name).join(', ');
    sources.push(`${name}: ${gates}`);
  }
  const shown =
    sources.slice(0, 3).join('; ') + (sources.length > 3 ? `; and ${sources.length - 3} more` : '');
  return `${gated.length} pod(s) left out: they have spec.schedulingGates (${shown}), and Karpenter provisions for a pod only once its gates are removed`;
}

/**
 * A core/v1 Node as the apiserver decodes it, checked for what the cluster reads: a name, and
 * `status.allocatable` (or `status.capacity`, taken as allocatable) with readable quantities;
 * without a `Ready` condition (a file, not a cluster) it is taken as Ready. Raises a
 * ManifestError on the field.
 */
function readNode(doc: ManifestDocument): Node {
  const node = apiServerDecoded(doc.object) as unknown as Node;
  if (!node.metadata?.name)
    throw new ManifestError(
      doc.file,
      doc.document,
      'required: a non-empty string',
      fieldPath(doc, 'metadata.name'),
    );
  const quantities = node.status?.allocatable ?? node.status?.capacity;
  if (!quantities)
    throw new ManifestError(
      doc.file,
      doc.document,
      'required to simulate an existing node',
      fieldPath(doc, 'status.allocatable'),
    );
  try {
    resourceListFromQuantities(quantities);
    if (node.status?.capacity) resourceListFromQuantities(node.status.capacity);
  } catch (cause) {
    throw new ManifestError(
      doc.file,
      doc.document,
      (cause as Error).message,
      fieldPath(doc, 'status'),
      undefined,
      { cause },
    );
  }
  // A Node written in a file has no conditions; one a cluster reported says whether it is Ready.
  const conditions = node.status?.conditions ?? [];
  const ready = conditions.some((c) => c.type === 'Ready')
    ? conditions
    : [...conditions, { type: 'Ready', status: 'True', reason: 'KubeletReady', message: '' }];
  return { ...node, status: { ...node.status, allocatable: quantities, conditions: ready } };
}

/** `file:document` and the object's path in it (`items[3]`). */
function sourceOf(doc: ManifestDocument): string {
  return doc.path ? `${location(doc)} ${doc.path}` : location(doc);
}

function located<T>(
  object: T,
  doc: ManifestDocument | undefined,
  fallback = '<expanded>',
): Located<T> {
  return doc
    ? { object, source: location(doc), path: doc.path }
    : { object, source: fallback, path: '' };
}

/**
 * The NodeClass with `Ready=True` when it has no Ready condition (a manifest file);
 * a NodeClass a cluster reported (with Ready) is kept as it is. Conditions that are not a list
 * count as none: `validate` ignores status, as the API server drops it from a created object.
 */
function readyNodeClass(object: NodeClassObject): NodeClassObject {
  const listed: unknown = object.status?.conditions;
  const conditions = Array.isArray(listed)
    ? (listed as NonNullable<NonNullable<NodeClassObject['status']>['conditions']>)
    : [];
  if (conditions.some((c) => (c as { type?: unknown } | null)?.type === 'Ready')) return object;
  return {
    ...object,
    metadata: { ...object.metadata },
    status: {
      ...(object.status ?? {}),
      conditions: [
        ...conditions,
        {
          type: 'Ready',
          status: 'True',
          reason: 'Ready',
          message: '',
          lastTransitionTime: new Date(0).toISOString(),
        },
      ],
    },
  };
}

/**
 * One ReplicaSet stand-in per ReplicaSet owner of the pods, with as many replicas as it has pods
 * (present and pending) and the first pod's labels, annotations and spec as its template: in a
 * multi-pass run, a pod a drain evicts comes back pending, as its ReplicaSet would recreate it.
 */
function replicaSetsOf(pods: readonly Pod[]): SimReplicaSet[] {
  const sets = new Map<string, SimReplicaSet>();
  for (const pod of pods) {
    const owner = (pod.metadata?.ownerReferences ?? []).find((o) => o.kind === 'ReplicaSet');
    if (owner === undefined) continue;
    const namespace = pod.metadata?.namespace ?? 'default';
    const k = `${namespace}/${owner.name}`;
    const set = sets.get(k);
    if (set !== undefined) {
      set.replicas++;
      continue;
    }
    const spec = structuredClone(pod.spec ?? { containers: [] });
    delete spec.nodeName;
    sets.set(k, {
      name: owner.name,
      namespace,
      replicas: 1,
      template: {
        metadata: {
          ...(pod.metadata?.labels ? { labels: { ...pod.metadata.labels } } : {}),
          ...(pod.metadata?.annotations ? { annotations: { ...pod.metadata.annotations } } : {}),
        },
        spec,
      },
    });
  }
  return [...sets.values()];
}
