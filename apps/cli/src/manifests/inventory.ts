/**
 * Sorting loaded objects by what the commands do with them.
 */
import { dropPrunedNulls } from '@karpenter-ts/api';
import type { ManifestDocument } from './document.js';
import { WORKLOAD_KINDS } from '../workloads/expand.js';
import { GeneratedNames } from '../workloads/names.js';

/** Loaded objects grouped by role; `other` holds kinds no command uses (Services, ConfigMaps, …). */
export interface Inventory {
  /** `karpenter.sh` NodePools. */
  readonly nodePools: ManifestDocument[];
  readonly nodeClaims: ManifestDocument[];
  readonly nodeOverlays: ManifestDocument[];
  /** Provider NodeClasses: AKSNodeClass, EC2NodeClass, SimNodeClass. */
  readonly nodeClasses: ManifestDocument[];
  /** Deployments, StatefulSets, Jobs, … and bare Pods (see expandWorkloads). */
  readonly workloads: ManifestDocument[];
  /** core/v1 Nodes: existing capacity the scheduler fills before launching new nodes. */
  readonly nodes: ManifestDocument[];
  /** policy/v1 PodDisruptionBudgets (reported; they matter for disruption, not provisioning). */
  readonly podDisruptionBudgets: ManifestDocument[];
  readonly other: ManifestDocument[];
}

/** NodeClass kinds the CLI knows, by `Kind` → API group. */
export const NODE_CLASS_GROUPS: Readonly<Record<string, string>> = {
  AKSNodeClass: 'karpenter.azure.com',
  EC2NodeClass: 'karpenter.k8s.aws',
  SimNodeClass: 'karpenter.sim',
};

/** API group of an `apiVersion` (`''` for the core group `v1`). */
export function apiGroup(apiVersion: string): string {
  const slash = apiVersion.indexOf('/');
  return slash < 0 ? '' : apiVersion.slice(0, slash);
}

/**
 * Groups documents by role, keeping input order inside each group. NodePools come as the
 * apiserver stores them: without the nulls it prunes (`limits:` or `taints:` written with no
 * value, as Helm renders empty values, are absent), so every reader sees them as unset.
 * NodePools, NodeClaims, NodeOverlays and NodeClasses that set only `metadata.generateName`
 * come named as the apiserver names them (see GeneratedNames; workloads are named by their
 * expansion), the same names on every call.
 */
export function inventory(documents: readonly ManifestDocument[]): Inventory {
  const generated = new GeneratedNames();
  const named = (doc: ManifestDocument) => withGeneratedName(doc, generated);
  const inv: Inventory = {
    nodePools: [],
    nodeClaims: [],
    nodeOverlays: [],
    nodeClasses: [],
    workloads: [],
    nodes: [],
    podDisruptionBudgets: [],
    other: [],
  };
  for (const doc of documents) {
    const { kind, apiVersion } = doc.object;
    const group = apiGroup(apiVersion);
    if (group === 'karpenter.sh' && kind === 'NodePool')
      inv.nodePools.push(named({ ...doc, object: dropPrunedNulls(doc.object) }));
    else if (group === 'karpenter.sh' && kind === 'NodeClaim') inv.nodeClaims.push(named(doc));
    else if (group === 'karpenter.sh' && kind === 'NodeOverlay') inv.nodeOverlays.push(named(doc));
    else if (NODE_CLASS_GROUPS[kind] !== undefined && NODE_CLASS_GROUPS[kind] === group)
      inv.nodeClasses.push(named(doc));
    else if (group === '' && kind === 'Node') inv.nodes.push(doc);
    else if (kind === 'PodDisruptionBudget') inv.podDisruptionBudgets.push(doc);
    else if (WORKLOAD_KINDS.has(kind)) inv.workloads.push(doc);
    else inv.other.push(doc);
  }
  return inv;
}

/** `doc`, or a copy named from its `metadata.generateName` when that is all it sets. */
function withGeneratedName(doc: ManifestDocument, generated: GeneratedNames): ManifestDocument {
  const metadata = doc.object.metadata;
  if (typeof metadata !== 'object' || metadata === null || Array.isArray(metadata)) return doc;
  const { name, generateName } = metadata;
  if ((name !== undefined && name !== null) || typeof generateName !== 'string') return doc;
  return {
    ...doc,
    object: { ...doc.object, metadata: { ...metadata, name: generated.next(generateName) } },
  };
}
