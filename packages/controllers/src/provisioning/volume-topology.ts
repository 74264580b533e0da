/**
 * A pod's volumes as the provisioner reads them (upstream
 * `provisioning/scheduling/volumetopology.go` and `pkg/scheduling/volumeusage.go`), over the
 * PersistentVolumeClaims, PersistentVolumes, StorageClasses and CSINodes of cluster state:
 *
 * - {@link VolumeTopology.validate}: the PVC cases in which Karpenter leaves a pod to the
 *   volume controllers: a PVC that is missing, being deleted or `Lost`; one bound to a PV that
 *   is missing or being deleted, or not marked `pv.kubernetes.io/bind-completed` yet; an
 *   unbound one without a StorageClass, or whose StorageClass is missing or binds `Immediate`
 *   (the PV controller binds it; the pod's placement follows the PV).
 * - {@link VolumeTopology.podVolumes}: where the volumes allow the pod to run, one alternative
 *   per term: a bound PV's `nodeAffinity.required` terms (for `local` and `hostPath` PVs the
 *   hostname expressions are dropped, and a term of only those leaves the volume
 *   unconstrained), or an unbound PVC's StorageClass `allowedTopologies` terms
 *   (WaitForFirstConsumer); the cross product over the pod's volumes, combinations that cannot
 *   hold together pruned (all of them kept when every one would be). CSI drivers' zone keys
 *   (`topology.ebs.csi.aws.com/zone`, `topology.disk.csi.azure.com/zone`) mean the node's
 *   `topology.kubernetes.io/zone` (upstream AWS normalizes the first; the Azure disk key is the
 *   same idea). And which CSI volumes the pod attaches: the PV's CSI driver (in-tree EBS and
 *   Azure disk sources by their CSI names), else the StorageClass provisioner (in-tree names
 *   translated).
 * - {@link VolumeTopology.volumeLimits}: a node's CSI attach limits, per driver, from its
 *   CSINode's `spec.drivers[].allocatable.count` (existing nodes only, as upstream).
 *
 * Differences: upstream also refuses StorageClass topology keys and CSI drivers its cloud
 * provider declares unsupported; no provider here declares any.
 */
import type {
  NodeSelectorRequirement,
  PersistentVolume,
  PersistentVolumeClaim,
  Pod,
  StorageClass,
  Volume,
} from '@karpenter-ts/api';
import { Labels } from '@karpenter-ts/api';
import { Requirements, type PodVolumes, type VolumeAttachment } from '@karpenter-ts/scheduling';
import type { StorageObjects } from '../state/storage.js';

/** The annotation the PV controller sets on a PVC once binding is complete. */
export const BindCompletedAnnotation = 'pv.kubernetes.io/bind-completed';

/** CSI drivers' zone label keys that name the node's zone. */
const CSI_ZONE_KEYS: ReadonlySet<string> = new Set([
  'topology.ebs.csi.aws.com/zone',
  'topology.disk.csi.azure.com/zone',
]);

/** In-tree provisioner names and the CSI drivers that replaced them (CSI migration). */
const IN_TREE_PROVISIONERS: Readonly<Record<string, string>> = {
  'kubernetes.io/aws-ebs': 'ebs.csi.aws.com',
  'kubernetes.io/azure-disk': 'disk.csi.azure.com',
  'kubernetes.io/azure-file': 'file.csi.azure.com',
  'kubernetes.io/gce-pd': 'pd.csi.storage.gke.io',
  'kubernetes.io/cinder': 'cinder.csi.openstack.org',
  'kubernetes.io/vsphere-volume': 'csi.vsphere.vmware.com',
};

/** One PVC volume of a pod, resolved. */
interface ClaimOfVolume {
  /** `namespace/name` of the PVC. */
  readonly key: string;
  readonly claim: PersistentVolumeClaim | undefined;
  /** For an ephemeral volume whose PVC does not exist yet: its template's storage class. */
  readonly templateStorageClass?: string | undefined;
  readonly ephemeral: boolean;
}

/** See the module comment. Built per scheduling pass from a {@link StorageObjects} view. */
export class VolumeTopology {
  readonly #cache = new WeakMap<Pod, PodVolumes | null>();

  constructor(private readonly storage: StorageObjects) {}

  /** Why the pod's volumes keep Karpenter from provisioning for it now, or undefined. */
  validate(pod: Pod): string | undefined {
    for (const volume of pod.spec?.volumes ?? []) {
      const resolved = this.#claimOf(pod, volume);
      if (resolved === undefined) continue;
      const problem = this.#claimProblem(resolved);
      if (problem !== undefined) return `volume ${JSON.stringify(volume.name)}: ${problem}`;
    }
    return undefined;
  }

  /** The pod's volume alternatives and CSI attachments (undefined: none matter); cached per pod. */
  podVolumes(pod: Pod): PodVolumes | undefined {
    const cached = this.#cache.get(pod);
    if (cached !== undefined) return cached ?? undefined;
    const perVolume: Requirements[][] = [];
    const attachments: VolumeAttachment[] = [];
    for (const volume of pod.spec?.volumes ?? []) {
      const resolved = this.#claimOf(pod, volume);
      if (resolved === undefined) continue;
      const { requirements, driver } = this.#volumeFacts(resolved);
      if (requirements.length > 0) perVolume.push(requirements);
      if (driver !== undefined) attachments.push({ driver, volume: resolved.key });
    }
    const result =
      perVolume.length === 0 && attachments.length === 0
        ? undefined
        : { requirements: crossProduct(perVolume), attachments };
    this.#cache.set(pod, result ?? null);
    return result;
  }

  /** The node's CSI attach limits per driver (its CSINode), or undefined when it has none. */
  volumeLimits(nodeName: string): Record<string, number> | undefined {
    const csiNode = this.storage.csiNodes.get(nodeName);
    if (csiNode === undefined) return undefined;
    const limits: Record<string, number> = {};
    for (const d of csiNode.spec?.drivers ?? []) {
      const count = d.allocatable?.count;
      if (count !== undefined && count !== null) limits[d.name] = count;
    }
    return Object.keys(limits).length > 0 ? limits : undefined;
  }

  #claimOf(pod: Pod, volume: Volume): ClaimOfVolume | undefined {
    const namespace = pod.metadata?.namespace ?? 'default';
    if (volume.persistentVolumeClaim !== undefined) {
      const key = `${namespace}/${volume.persistentVolumeClaim.claimName}`;
      return { key, claim: this.storage.claims.get(key), ephemeral: false };
    }
    if (volume.ephemeral !== undefined) {
      // The ephemeral volume controller names the PVC <pod>-<volume>.
      const key = `${namespace}/${pod.metadata?.name ?? ''}-${volume.name}`;
      return {
        key,
        claim: this.storage.claims.get(key),
        templateStorageClass:
          volume.ephemeral.volumeClaimTemplate?.spec?.storageClassName ?? undefined,
        ephemeral: true,
      };
    }
    return undefined;
  }

  #claimProblem(c: ClaimOfVolume): string | undefined {
    const claim = c.claim;
    if (claim === undefined) {
      if (!c.ephemeral) return `persistent volume claim ${c.key} not found`;
      // Not created yet: its template decides, as an unbound claim would.
      return this.#storageClassProblem(c.templateStorageClass, c.key);
    }
    if (claim.metadata?.deletionTimestamp !== undefined)
      return `persistent volume claim ${c.key} is being deleted`;
    if (claim.status?.phase === 'Lost') return `persistent volume claim ${c.key} is Lost`;
    const volumeName = claim.spec?.volumeName;
    if (volumeName) {
      const pv = this.storage.volumes.get(volumeName);
      if (pv === undefined) return `persistent volume ${volumeName} of claim ${c.key} not found`;
      if (pv.metadata?.deletionTimestamp !== undefined)
        return `persistent volume ${volumeName} of claim ${c.key} is being deleted`;
      if (claim.metadata?.annotations?.[BindCompletedAnnotation] === undefined)
        return `persistent volume claim ${c.key} is not bound yet (no ${BindCompletedAnnotation} annotation)`;
      return undefined;
    }
    return this.#storageClassProblem(claim.spec?.storageClassName ?? undefined, c.key);
  }

  #storageClassProblem(name: string | undefined, claimKey: string): string | undefined {
    if (!name) return `unbound persistent volume claim ${claimKey} has no storage class`;
    const sc = this.storage.storageClasses.get(name);
    if (sc === undefined) return `storage class ${name} of claim ${claimKey} not found`;
    if ((sc.volumeBindingMode ?? 'Immediate') === 'Immediate')
      return `unbound persistent volume claim ${claimKey} uses storage class ${name} with Immediate binding: it is placed where its volume is provisioned`;
    return undefined;
  }

  /** A resolved volume's requirement alternatives (empty: unconstrained) and CSI driver. */
  #volumeFacts(c: ClaimOfVolume): { requirements: Requirements[]; driver: string | undefined } {
    const claim = c.claim;
    const volumeName = claim?.spec?.volumeName;
    const pv = volumeName ? this.storage.volumes.get(volumeName) : undefined;
    const scName = pv
      ? (pv.spec?.storageClassName ?? claim?.spec?.storageClassName ?? undefined)
      : (claim?.spec?.storageClassName ?? c.templateStorageClass);
    const sc = scName ? this.storage.storageClasses.get(scName) : undefined;
    if (pv !== undefined) return { requirements: pvAlternatives(pv), driver: pvDriver(pv, sc) };
    return {
      requirements: sc === undefined ? [] : storageClassAlternatives(sc),
      driver: sc === undefined ? undefined : provisionerDriver(sc.provisioner),
    };
  }
}

/** The node a CSI zone key stands for: the node's zone. */
function nodeKey(key: string): string {
  return CSI_ZONE_KEYS.has(key) ? Labels.TopologyZone : key;
}

function pvAlternatives(pv: PersistentVolume): Requirements[] {
  const terms = pv.spec?.nodeAffinity?.required?.nodeSelectorTerms ?? [];
  const pinnedToHost = pv.spec?.local !== undefined || pv.spec?.hostPath !== undefined;
  const out: Requirements[] = [];
  for (const term of terms) {
    let expressions: NodeSelectorRequirement[] = (term.matchExpressions ?? []).map((r) => ({
      ...r,
      key: nodeKey(r.key),
    }));
    // A local volume's node is chosen by kube-scheduler; Karpenter never creates that hostname.
    if (pinnedToHost) expressions = expressions.filter((r) => r.key !== Labels.Hostname);
    if (expressions.length === 0) return []; // one unconstrained term: the volume allows anywhere
    out.push(Requirements.fromNodeSelectorRequirements(expressions));
  }
  return out;
}

function storageClassAlternatives(sc: StorageClass): Requirements[] {
  if (sc.volumeBindingMode !== 'WaitForFirstConsumer') return [];
  return (sc.allowedTopologies ?? [])
    .map((term) =>
      Requirements.fromNodeSelectorRequirements(
        (term.matchLabelExpressions ?? []).map((e) => ({
          key: nodeKey(e.key),
          operator: 'In',
          values: e.values,
        })),
      ),
    )
    .filter((r) => r.size > 0);
}

function pvDriver(pv: PersistentVolume, sc: StorageClass | undefined): string | undefined {
  if (pv.spec?.csi?.driver) return pv.spec.csi.driver;
  if (pv.spec?.awsElasticBlockStore !== undefined) return 'ebs.csi.aws.com';
  if (pv.spec?.azureDisk !== undefined) return 'disk.csi.azure.com';
  return sc === undefined ? undefined : provisionerDriver(sc.provisioner);
}

function provisionerDriver(provisioner: string | undefined): string | undefined {
  if (!provisioner) return undefined;
  return Object.hasOwn(IN_TREE_PROVISIONERS, provisioner)
    ? IN_TREE_PROVISIONERS[provisioner]
    : provisioner;
}

/**
 * The combinations of one alternative per volume, intersected, in order; combinations whose
 * requirements cannot hold together are pruned unless every one would be (then all are kept,
 * and the scheduler reports the conflict), as upstream.
 */
function crossProduct(perVolume: readonly Requirements[][]): Requirements[] {
  let combos: Requirements[] = [new Requirements()];
  for (const alternatives of perVolume) {
    const next: Requirements[] = [];
    for (const c of combos) for (const a of alternatives) next.push(c.intersection(a));
    combos = next;
  }
  if (perVolume.length === 0) return [];
  const compatible = combos.filter((c) => c.values().every((r) => r.complement || r.len() > 0));
  return compatible.length > 0 ? compatible : combos;
}
