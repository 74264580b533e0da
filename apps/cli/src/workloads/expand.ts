/**
 * Workload expansion: turns the controllers in a set of manifests into the pods their
 * controllers would create, as pending pods for the scheduler.
 *
 * | kind | pods | names |
 * | --- | --- | --- |
 * | Deployment | `replicas` (default 1) | `<deploy>-<pod-template-hash>-<5 chars>`, owned by ReplicaSet `<deploy>-<hash>` |
 * | ReplicaSet, ReplicationController | `replicas` (default 1) | `<owner>-<5 chars>` |
 * | StatefulSet | `replicas` (default 1) | `<sts>-0`, `<sts>-1`, … ; one PVC `<claim>-<pod>` per volumeClaimTemplate |
 * | Job | `min(parallelism, completions)` (parallelism default 1; completions unset ⇒ parallelism; suspended ⇒ 0) | `<job>-<5 chars>` (Indexed: `<job>-<index>-<5 chars>`) |
 * | CronJob | one run of its job template (suspended ⇒ none) | Job `<cronjob>-<minutes since epoch>` |
 * | DaemonSet | none pending: one template pod, for daemonset overhead | `<ds>-<5 chars>` |
 * | Pod | itself (bound if `spec.nodeName` is set; terminal phases skipped) | its own name |
 *
 * `scale` multiplies every replica/parallelism count with {@link scaleCount} (round up). Bare pods
 * and DaemonSets are not scaled: no controller copies them. Every pod gets the API server's
 * defaulting ({@link applyPodDefaults}), the workload's namespace (or `default`), the labels
 * the controller adds (`pod-template-hash`, `statefulset.kubernetes.io/pod-name`,
 * `batch.kubernetes.io/job-name`, …), an owner reference, and condition `PodScheduled=False`
 * reason `Unschedulable`, which is what makes a pod provisionable for Karpenter.
 */
import type { PersistentVolumeClaim, Pod, PodTemplateSpec } from '@karpenter-ts/api';
import { ManifestError, UsageError } from '../errors.js';
import { fieldPath, type KubeObject, type ManifestDocument } from '../manifests/document.js';
import { apiServerDecoded } from '../validation/api-fields.js';
import { workloadProblems } from '../validation/workload-problems.js';
import { applyPodDefaults } from './defaulting.js';
import { GeneratedNames, podTemplateHash, stableUid, SuffixNamer } from './names.js';
import { scaleCount } from './scale.js';

/** Kinds this module expands into pods. */
export const WORKLOAD_KINDS: ReadonlySet<string> = new Set([
  'Deployment',
  'ReplicaSet',
  'ReplicationController',
  'StatefulSet',
  'Job',
  'CronJob',
  'DaemonSet',
  'Pod',
]);

/** Options of {@link expandWorkloads}. */
export interface ExpandOptions {
  /** Replica multiplier, finite and > 0; default 1. */
  scale?: number;
  /** Creation time stamped on pods (and the CronJob's scheduled time); default now. */
  now?: Date;
  /**
   * Most pending pods the expansion may make (default {@link MAX_PENDING_PODS}). A workload
   * that passes it raises, before any of its pods is built, a ManifestError naming the
   * workload's count field when the input alone (unscaled) passes it, else a UsageError naming
   * `--scale`.
   */
  maxPendingPods?: number;
}

/**
 * Default cap on expanded pending pods, sized to the default Node 20 heap (~4 GiB on a 64-bit
 * machine): 400,000 pods peak at about 2.4 GB resident, while ~1M pods exhausted the heap
 * (V8 "heap out of memory", exit 134) after minutes instead of answering.
 */
export const MAX_PENDING_PODS = 400_000;

/** How many pods one workload object became. */
export interface WorkloadSummary {
  readonly source: ManifestDocument;
  readonly kind: string;
  readonly namespace: string;
  readonly name: string;
  /** Pending pods made (0 for DaemonSets and bound pods). */
  readonly pods: number;
}

/** The result of {@link expandWorkloads}. */
export interface ExpandedWorkloads {
  /** Pods waiting for a node, in input order. */
  readonly pending: Pod[];
  /**
   * Pods that would be pending but have `spec.schedulingGates`: the scheduler holds them
   * (PodScheduled=False, reason SchedulingGated) and Karpenter provisions for them only once
   * their gates are removed, so they are not in `pending`. In input order.
   */
  readonly gated: Pod[];
  /** One pod per DaemonSet built from its template: the daemonset overhead of every node it fits. */
  readonly daemonSetPods: Pod[];
  /** Pods from the manifests that are already bound to a node (`spec.nodeName`). */
  readonly boundPods: Pod[];
  /** PVCs StatefulSet volumeClaimTemplates would create (unbound). */
  readonly persistentVolumeClaims: PersistentVolumeClaim[];
  readonly workloads: WorkloadSummary[];
  /** The manifest each pod came from. */
  readonly origin: Map<Pod, ManifestDocument>;
}

/**
 * Expands every workload object of `documents` (other kinds are ignored). Raises a
 * {@link ManifestError} naming the file, document and field of the first problem
 * {@link workloadProblems} finds (a missing pod template or containers, a negative or
 * non-integer count, a bad or negative quantity, a request above its limit, an unknown field)
 * before any pod is built.
 */
export function expandWorkloads(
  documents: readonly ManifestDocument[],
  options: ExpandOptions = {},
): ExpandedWorkloads {
  const scale = options.scale ?? 1;
  const now = options.now ?? new Date();
  for (const doc of documents) {
    if (!WORKLOAD_KINDS.has(doc.object.kind)) continue;
    const first = workloadProblems(doc.object)[0];
    if (first)
      throw new ManifestError(doc.file, doc.document, first.message, fieldPath(doc, first.path));
  }
  // Read as the apiserver stores them (nulls unset), once for both passes.
  const decoded = new Map<ManifestDocument, KubeObject>();
  for (const doc of documents)
    if (WORKLOAD_KINDS.has(doc.object.kind)) decoded.set(doc, apiServerDecoded(doc.object));
  // Named once, before both passes, so the counting and building passes agree.
  const generated = new GeneratedNames();
  const names = new Map<ManifestDocument, string>();
  for (const doc of documents) {
    if (!WORKLOAD_KINDS.has(doc.object.kind)) continue;
    const { name, generateName } = doc.object.metadata ?? {};
    names.set(doc, typeof name === 'string' && name !== '' ? name : generated.next(generateName!));
  }
  const out = emptyResult();
  // Two passes: the first only counts (so an oversized --scale fails before any pod is built,
  // not after filling the heap), the second builds the pods.
  const budget: Budget = {
    max: options.maxPendingPods ?? MAX_PENDING_PODS,
    counted: 0,
    unscaled: 0,
  };
  for (const counting of [true, false]) {
    const target = counting ? emptyResult() : out;
    for (const doc of documents) {
      if (!WORKLOAD_KINDS.has(doc.object.kind)) continue;
      const object = decoded.get(doc)!;
      new Context(
        doc,
        object,
        names.get(doc)!,
        scale,
        now,
        target,
        counting ? budget : undefined,
      ).expand();
    }
  }
  return out;
}

function emptyResult(): ExpandedWorkloads {
  return {
    pending: [],
    gated: [],
    daemonSetPods: [],
    boundPods: [],
    persistentVolumeClaims: [],
    workloads: [],
    origin: new Map(),
  };
}

type Spec = Record<string, unknown>;

/** Pending pods counted so far, scaled and as written, against the cap. */
interface Budget {
  readonly max: number;
  counted: number;
  unscaled: number;
}

/** Builds the pods of one workload that {@link workloadProblems} found no problem in. */
class Context {
  private readonly namespace: string;
  private made = 0;

  constructor(
    private readonly doc: ManifestDocument,
    /** `doc`'s object as the apiserver decodes it (see apiServerDecoded). */
    private readonly object: KubeObject,
    /** `metadata.name`, or the name made from `metadata.generateName`. */
    private readonly name: string,
    private readonly scale: number,
    private readonly now: Date,
    private readonly out: ExpandedWorkloads,
    /** Set in the counting pass: pods are counted against `max`, not built. */
    private readonly budget?: Budget,
  ) {
    this.namespace = this.object.metadata?.namespace ?? 'default';
  }

  expand(): void {
    const kind = this.object.kind;
    switch (kind) {
      case 'Deployment':
        this.deployment();
        break;
      case 'ReplicaSet':
      case 'ReplicationController':
        this.replicated(kind, this.name, this.spec(), this.ownerRef(kind, this.name));
        break;
      case 'StatefulSet':
        this.statefulSet();
        break;
      case 'Job':
        this.job(this.name, this.spec(), this.ownerRef('Job', this.name));
        break;
      case 'CronJob':
        this.cronJob();
        break;
      case 'DaemonSet':
        this.daemonSet();
        break;
      case 'Pod':
        this.pod();
        return;
    }
    this.out.workloads.push({
      source: this.doc,
      kind,
      namespace: this.namespace,
      name: this.name,
      pods: this.made,
    });
  }

  private spec(): Spec {
    return this.object.spec as Spec;
  }

  private deployment(): void {
    const spec = this.spec();
    const template = spec.template as PodTemplateSpec;
    const hash = podTemplateHash(template);
    const replicaSet = `${this.name}-${hash}`;
    this.replicated('Deployment', replicaSet, spec, this.ownerRef('ReplicaSet', replicaSet), {
      'pod-template-hash': hash,
    });
  }

  private replicated(
    _kind: string,
    owner: string,
    spec: Spec,
    ownerRef: OwnerRef,
    labels: Record<string, string> = {},
  ): void {
    const template = spec.template as PodTemplateSpec;
    const count = this.reserve(countOf(spec, 'replicas', 1), 'spec.replicas');
    const namer = new SuffixNamer(owner);
    for (let i = 0; i < count; i++)
      this.addPending(this.makePod(template, namer.next(), ownerRef, labels));
  }

  private statefulSet(): void {
    const spec = this.spec();
    const template = spec.template as PodTemplateSpec;
    const count = this.reserve(countOf(spec, 'replicas', 1), 'spec.replicas');
    const claimTemplates = Array.isArray(spec.volumeClaimTemplates)
      ? spec.volumeClaimTemplates
      : [];
    const serviceName = typeof spec.serviceName === 'string' ? spec.serviceName : undefined;
    const ownerRef = this.ownerRef('StatefulSet', this.name);
    const revision = `${this.name}-${podTemplateHash(template)}`;
    for (let i = 0; i < count; i++) {
      const podName = `${this.name}-${i}`;
      const pod = this.makePod(template, podName, ownerRef, {
        'controller-revision-hash': revision,
        'statefulset.kubernetes.io/pod-name': podName,
        'apps.kubernetes.io/pod-index': String(i),
      });
      pod.spec!.hostname ??= podName;
      if (serviceName) pod.spec!.subdomain ??= serviceName;
      claimTemplates.forEach((claim: PersistentVolumeClaim) => {
        const base = claim.metadata!.name!;
        const claimName = `${base}-${podName}`;
        this.out.persistentVolumeClaims.push({
          apiVersion: 'v1',
          kind: 'PersistentVolumeClaim',
          metadata: {
            name: claimName,
            namespace: this.namespace,
            labels: {
              ...(claim.metadata!.labels ?? {}),
              ...(template.metadata?.labels ?? {}),
            },
          },
          spec: structuredClone(claim.spec ?? {}),
        });
        const volumes = (pod.spec!.volumes ??= []);
        const existing = volumes.findIndex((v) => v.name === base);
        const volume = {
          name: base,
          persistentVolumeClaim: { claimName },
        };
        if (existing >= 0) volumes[existing] = volume;
        else volumes.push(volume);
      });
      this.addPending(pod);
    }
  }

  /** The pods of a Job's `spec`, found at field path `at` of the object. */
  private job(jobName: string, spec: Spec, ownerRef: OwnerRef, at = 'spec'): void {
    const template = spec.template as PodTemplateSpec;
    if (spec.suspend === true) return;
    const parallelism = countOf(spec, 'parallelism', 1);
    const completions = countOf(spec, 'completions', parallelism);
    const field = completions < parallelism ? 'completions' : 'parallelism';
    const count = this.reserve(Math.min(parallelism, completions), `${at}.${field}`);
    const indexed = spec.completionMode === 'Indexed';
    const uid = ownerRef.uid;
    const labels = {
      'batch.kubernetes.io/controller-uid': uid,
      'batch.kubernetes.io/job-name': jobName,
      'controller-uid': uid,
      'job-name': jobName,
    };
    const namer = new SuffixNamer(jobName);
    for (let i = 0; i < count; i++) {
      // Indexed Jobs name pods `<job>-<index>-<5 chars>`.
      const name = indexed ? new SuffixNamer(`${jobName}-${i}`).next() : namer.next();
      const extra: Record<string, string> = indexed
        ? { ...labels, 'batch.kubernetes.io/job-completion-index': String(i) }
        : labels;
      this.addPending(this.makePod(template, name, ownerRef, extra));
    }
  }

  private cronJob(): void {
    const spec = this.spec();
    if (spec.suspend === true) return;
    const jobSpec = (spec.jobTemplate as { spec: Spec }).spec;
    const minutes = Math.floor(this.now.getTime() / 60_000);
    const jobName = `${this.name}-${minutes}`;
    this.job(jobName, jobSpec, this.ownerRef('Job', jobName), 'spec.jobTemplate.spec');
  }

  private daemonSet(): void {
    const template = this.spec().template as PodTemplateSpec;
    const revision = podTemplateHash(template);
    const pod = this.makePod(
      template,
      new SuffixNamer(this.name).next(),
      this.ownerRef('DaemonSet', this.name),
      {
        'controller-revision-hash': revision,
        'pod-template-generation': '1',
      },
    );
    // A template pod stands for every node's copy: it is neither pending nor bound.
    delete pod.status;
    this.out.daemonSetPods.push(pod);
    this.out.origin.set(pod, this.doc);
  }

  private pod(): void {
    const pod = structuredClone(this.object) as unknown as Pod & { spec: NonNullable<Pod['spec']> };
    applyPodDefaults(pod, this.namespace);
    pod.metadata!.uid ??= stableUid('Pod', this.namespace, this.name);
    const phase = pod.status?.phase;
    if (phase === 'Succeeded' || phase === 'Failed') return;
    this.out.origin.set(pod, this.doc);
    if (pod.spec.nodeName) {
      this.out.boundPods.push(pod);
    } else {
      pod.status = { ...pod.status, phase: 'Pending', conditions: [this.unschedulable()] };
      pod.metadata!.creationTimestamp ??= this.now;
      (isGated(pod) ? this.out.gated : this.out.pending).push(pod);
    }
    this.out.workloads.push({
      source: this.doc,
      kind: 'Pod',
      namespace: this.namespace,
      name: this.name,
      pods: pod.spec.nodeName ? 0 : 1,
    });
  }

  private makePod(
    template: PodTemplateSpec,
    name: string,
    ownerRef: OwnerRef,
    labels: Record<string, string>,
  ): Pod {
    const pod: Pod = {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: {
        name,
        namespace: this.namespace,
        uid: stableUid('Pod', this.namespace, name),
        creationTimestamp: this.now,
        labels: { ...(template.metadata?.labels ?? {}), ...labels },
        ...(template.metadata?.annotations
          ? { annotations: { ...template.metadata.annotations } }
          : {}),
        ownerReferences: [{ ...ownerRef, controller: true, blockOwnerDeletion: true }],
      },
      spec: structuredClone(template.spec!),
      status: { phase: 'Pending', conditions: [this.unschedulable()] },
    };
    return applyPodDefaults(pod, this.namespace);
  }

  /**
   * The scaled pod count of a workload whose `field` asks for `written` pods. In the counting
   * pass, adds it to the budget and returns 0 so no pod is built; past the budget's max it
   * raises a ManifestError naming `field` when the written counts pass it and --scale is at
   * least 1 (the input is too big as written), else a UsageError naming --scale.
   */
  private reserve(written: number, field: string): number {
    const count = scaleCount(written, this.scale);
    if (!this.budget) return count;
    this.budget.counted += count;
    this.budget.unscaled += written;
    const { max } = this.budget;
    // Below 1, --scale is what crossed the cap; otherwise the input did, as written.
    if (this.scale >= 1 && this.budget.unscaled > max) {
      const workload = `${this.object.kind} ${this.namespace}/${this.name}`;
      const made = `${workload} makes ${written.toLocaleString('en-US')} pending pods`;
      throw new ManifestError(
        this.doc.file,
        this.doc.document,
        written > max
          ? `${made}, more than the ${max.toLocaleString('en-US')} a simulation holds`
          : `${made}, which bring the input past the ${max.toLocaleString('en-US')} a simulation holds`,
        fieldPath(this.doc, field),
      );
    }
    if (this.budget.counted > max) {
      throw new UsageError(
        `--scale ${this.scale}: the input would expand to more than ${this.budget.max.toLocaleString('en-US')} pending pods ` +
          `(${this.object.kind} ${this.namespace}/${this.name} alone makes ${count.toLocaleString('en-US')}); use a smaller --scale`,
      );
    }
    return 0;
  }

  private addPending(pod: Pod): void {
    (isGated(pod) ? this.out.gated : this.out.pending).push(pod);
    this.out.origin.set(pod, this.doc);
    this.made++;
  }

  private unschedulable(): NonNullable<NonNullable<Pod['status']>['conditions']>[number] {
    return {
      type: 'PodScheduled',
      status: 'False',
      reason: 'Unschedulable',
      lastTransitionTime: this.now,
    };
  }

  private ownerRef(kind: string, name: string): OwnerRef {
    const apiVersion =
      kind === 'Job' ? 'batch/v1' : kind === 'ReplicationController' ? 'v1' : 'apps/v1';
    return { apiVersion, kind, name, uid: stableUid(kind, this.namespace, name) };
  }
}

interface OwnerRef {
  apiVersion: string;
  kind: string;
  name: string;
  uid: string;
}

/** `spec[key]` (a count validated by workloadProblems), or `fallback` when unset. */
function countOf(spec: Spec, key: string, fallback: number): number {
  const value = spec[key];
  return typeof value === 'number' ? value : fallback;
}

/** True when the pod has scheduling gates left (an empty list gates nothing). */
function isGated(pod: Pod): boolean {
  return (pod.spec?.schedulingGates?.length ?? 0) > 0;
}
