/**
 * Objects defined twice in the input. `kubectl apply` of such input leaves one object (the later
 * definition replaces the earlier), so simulating both would count capacity or pods that would
 * not exist.
 */
import { location, type ManifestDocument } from '../manifests/document.js';
import { apiGroup, NODE_CLASS_GROUPS } from '../manifests/inventory.js';
import { WORKLOAD_KINDS } from '../workloads/expand.js';

/** A later definition of an object and where its first definition is. */
export interface DuplicateObject {
  /** The later definition. */
  readonly document: ManifestDocument;
  readonly message: string;
}

/**
 * Every definition after the first of the same object (API group, kind, namespace, name) among
 * the kinds the CLI reads: the karpenter.sh kinds, NodeClasses and Nodes (cluster-scoped), and
 * workloads and PodDisruptionBudgets (namespaced; no namespace means `default`, as the CLI reads
 * it everywhere). Objects without a name (`generateName`) are distinct objects and are skipped.
 */
export function duplicateObjects(documents: readonly ManifestDocument[]): DuplicateObject[] {
  const first = new Map<string, ManifestDocument>();
  const duplicates: DuplicateObject[] = [];
  for (const doc of documents) {
    const { kind, metadata } = doc.object;
    const name = metadata?.name;
    const scope = scopeOf(doc);
    if (scope === undefined || typeof name !== 'string' || name === '') continue;
    const namespaced = scope === 'namespaced' ? `${metadata?.namespace ?? 'default'}/` : '';
    const key = `${apiGroup(doc.object.apiVersion)}\n${kind}\n${namespaced}${name}`;
    const earlier = first.get(key);
    if (!earlier) {
      first.set(key, doc);
      continue;
    }
    duplicates.push({
      document: doc,
      message: `${kind} "${namespaced}${name}" is also defined at ${location(earlier)}: kubectl apply keeps one object, the later definition replacing the earlier`,
    });
  }
  return duplicates;
}

function scopeOf(doc: ManifestDocument): 'cluster' | 'namespaced' | undefined {
  const { kind, apiVersion } = doc.object;
  const group = apiGroup(apiVersion);
  if (group === 'karpenter.sh' || NODE_CLASS_GROUPS[kind] === group) return 'cluster';
  if (group === '' && kind === 'Node') return 'cluster';
  if (kind === 'PodDisruptionBudget' || WORKLOAD_KINDS.has(kind)) return 'namespaced';
  return undefined;
}
