/**
 * A cluster snapshot: the objects a cluster held at one moment (what `kubectl get
 * nodes,pods,nodeclaims,... -o yaml` prints, or manifest files), each with where it was read,
 * and the consistency rules a cluster keeps that files may break. Reading files is the apps'
 * job (the CLI's manifest reader); this module only checks the objects and says which Nodes are
 * capacity Karpenter does not manage. {@link loadSnapshot} puts them into a MemoryKubeClient.
 *
 * Rules (each broken one is a {@link SnapshotProblem} naming the object and where it was read):
 * - a Pod bound to a Node (`spec.nodeName`) needs that Node in the snapshot, unless it has
 *   finished (Succeeded, Failed: it holds no resources);
 * - a NodeClaim needs its Node: launched (`status.providerID`) and a Node with that provider ID
 *   (or named by `status.nodeName`). A NodeClaim still launching cannot be replayed: the sim
 *   cloud would not know what it launches;
 * - no object twice (same kind, namespace and name).
 * Nodes without a NodeClaim are unmanaged capacity: pods may run there, they are never disrupted.
 */
import type {
  CSINode,
  DaemonSet,
  LimitRange,
  Node,
  NodeClaim,
  NodeOverlay,
  NodePool,
  PersistentVolume,
  PersistentVolumeClaim,
  Pod,
  PodDisruptionBudget,
  StorageClass,
} from '@karpenter-ts/api';
import type { NodeClassObject } from '../kube/client.js';
import { isTerminal } from '../pods.js';

/** An object and where it was read. */
export interface Located<T> {
  readonly object: T;
  /** Where, for messages: `file:document` (the CLI's form), or any label the reader uses. */
  readonly source: string;
  /** Field path of the object inside its document (`items[3]`), or `''`. */
  readonly path: string;
}

/** The objects of a snapshot, by kind. */
export interface ClusterSnapshot {
  readonly nodePools: readonly Located<NodePool>[];
  readonly nodeClasses: readonly Located<NodeClassObject>[];
  readonly nodeClaims: readonly Located<NodeClaim>[];
  readonly nodes: readonly Located<Node>[];
  readonly pods: readonly Located<Pod>[];
  readonly daemonSets: readonly Located<DaemonSet>[];
  readonly podDisruptionBudgets: readonly Located<PodDisruptionBudget>[];
  /** `karpenter.sh/v1alpha1` NodeOverlays (they apply with the `NodeOverlay` gate on). */
  readonly nodeOverlays: readonly Located<NodeOverlay>[];
  readonly limitRanges: readonly Located<LimitRange>[];
  readonly persistentVolumeClaims: readonly Located<PersistentVolumeClaim>[];
  readonly persistentVolumes: readonly Located<PersistentVolume>[];
  readonly storageClasses: readonly Located<StorageClass>[];
  readonly csiNodes: readonly Located<CSINode>[];
}

/** A broken rule: `source field: message`, as the CLI prints it. */
export interface SnapshotProblem {
  readonly source: string;
  /** The field path (with the object's path inside its document). */
  readonly field: string;
  readonly message: string;
}

/** An empty snapshot, to build on. */
export function emptySnapshot(): ClusterSnapshot {
  return {
    nodePools: [],
    nodeClasses: [],
    nodeClaims: [],
    nodes: [],
    pods: [],
    daemonSets: [],
    podDisruptionBudgets: [],
    nodeOverlays: [],
    limitRanges: [],
    persistentVolumeClaims: [],
    persistentVolumes: [],
    storageClasses: [],
    csiNodes: [],
  };
}

/** `source field: message`, one line. */
export function formatSnapshotProblem(p: SnapshotProblem): string {
  return `${p.source} ${p.field}: ${p.message}`;
}

/** Raised by {@link loadSnapshot} with every problem of the snapshot; nothing was loaded. */
export class SnapshotError extends Error {
  constructor(readonly problems: readonly SnapshotProblem[]) {
    super(problems.map(formatSnapshotProblem).join('\n'));
    this.name = 'SnapshotError';
  }
}

/** Every broken rule of the module comment, in the order of the snapshot's kinds. */
export function snapshotProblems(snapshot: ClusterSnapshot): SnapshotProblem[] {
  return [...duplicates(snapshot), ...snapshotReferenceProblems(snapshot)];
}

/**
 * The rules of the module comment that tie objects to each other (a Pod bound to a Node the
 * snapshot lacks; a NodeClaim not launched, or without its Node), NodeClaims first. Each object
 * is valid on its own, so a reader that validates objects one by one (the CLI's `validate`)
 * can still say, through this, that a snapshot of them will be refused.
 */
export function snapshotReferenceProblems(
  snapshot: Pick<ClusterSnapshot, 'nodeClaims' | 'nodes' | 'pods'>,
): SnapshotProblem[] {
  const problems: SnapshotProblem[] = [];
  const nodeNames = new Set(snapshot.nodes.map((n) => n.object.metadata?.name ?? ''));
  const providerIDs = new Set(
    snapshot.nodes.map((n) => n.object.spec?.providerID ?? '').filter((id) => id !== ''),
  );
  for (const entry of snapshot.nodeClaims) {
    const claim = entry.object;
    const name = `NodeClaim ${claim.metadata.name ?? ''}`;
    const providerID = claim.status?.providerID ?? '';
    if (providerID === '') {
      problems.push(
        problem(
          entry,
          'status.providerID',
          `${name} is not launched yet (no status.providerID), and a snapshot cannot replay a launch in flight: take the snapshot again once its Node has registered`,
        ),
      );
      continue;
    }
    const nodeName = claim.status?.nodeName;
    if (providerIDs.has(providerID) || (nodeName !== undefined && nodeNames.has(nodeName)))
      continue;
    problems.push(
      problem(
        entry,
        'status.providerID',
        `${name} has no Node in the snapshot (none with spec.providerID ${JSON.stringify(providerID)}${nodeName ? ` or named ${JSON.stringify(nodeName)}` : ''}): add the Nodes (kubectl get nodes,nodeclaims,... -o yaml), or take the snapshot once the Node has registered`,
      ),
    );
  }
  for (const entry of snapshot.pods) {
    const pod = entry.object;
    const nodeName = pod.spec?.nodeName;
    if (!nodeName || nodeNames.has(nodeName) || isTerminal(pod)) continue;
    problems.push(
      problem(
        entry,
        'spec.nodeName',
        `Pod ${pod.metadata?.namespace ?? 'default'}/${pod.metadata?.name ?? ''} is bound to Node ${JSON.stringify(nodeName)}, which the snapshot does not hold: add the Nodes (kubectl get nodes,pods,... -o yaml)`,
      ),
    );
  }
  return problems;
}

/**
 * Nodes that no NodeClaim of the snapshot owns (by provider ID or `status.nodeName`): capacity
 * Karpenter does not manage.
 */
export function unmanagedNodes(snapshot: ClusterSnapshot): Located<Node>[] {
  const ids = new Set<string>();
  const names = new Set<string>();
  for (const { object } of snapshot.nodeClaims) {
    if (object.status?.providerID) ids.add(object.status.providerID);
    if (object.status?.nodeName) names.add(object.status.nodeName);
  }
  return snapshot.nodes.filter(
    ({ object }) =>
      !ids.has(object.spec?.providerID ?? '') && !names.has(object.metadata?.name ?? ''),
  );
}

function problem(entry: Located<unknown>, field: string, message: string): SnapshotProblem {
  return { source: entry.source, field: entry.path ? `${entry.path}.${field}` : field, message };
}

function duplicates(snapshot: ClusterSnapshot): SnapshotProblem[] {
  const out: SnapshotProblem[] = [];
  const kinds: [
    string,
    readonly Located<{ metadata?: { name?: string; namespace?: string } }>[],
    boolean,
  ][] = [
    ['NodePool', snapshot.nodePools, false],
    ['NodeClaim', snapshot.nodeClaims, false],
    ['Node', snapshot.nodes, false],
    ['Pod', snapshot.pods, true],
    ['DaemonSet', snapshot.daemonSets, true],
    ['PodDisruptionBudget', snapshot.podDisruptionBudgets, true],
    ['NodeOverlay', snapshot.nodeOverlays, false],
    ['LimitRange', snapshot.limitRanges, true],
    ['PersistentVolumeClaim', snapshot.persistentVolumeClaims, true],
    ['PersistentVolume', snapshot.persistentVolumes, false],
    ['StorageClass', snapshot.storageClasses, false],
    ['CSINode', snapshot.csiNodes, false],
  ];
  for (const [kind, entries, namespaced] of kinds) {
    const seen = new Map<string, Located<unknown>>();
    for (const entry of entries) {
      const meta = entry.object.metadata ?? {};
      const name = namespaced
        ? `${meta.namespace ?? 'default'}/${meta.name ?? ''}`
        : (meta.name ?? '');
      const earlier = seen.get(name);
      if (earlier === undefined) {
        seen.set(name, entry);
        continue;
      }
      const at = earlier.path ? `${earlier.source} ${earlier.path}` : earlier.source;
      out.push(problem(entry, 'metadata.name', `${kind} ${name} is also at ${at}`));
    }
  }
  const classes = new Map<string, Located<unknown>>();
  for (const entry of snapshot.nodeClasses) {
    const c = entry.object;
    const key = `${c.apiVersion.split('/')[0]}/${c.kind}/${c.metadata.name ?? ''}`;
    const earlier = classes.get(key);
    if (earlier === undefined) classes.set(key, entry);
    else {
      const at = earlier.path ? `${earlier.source} ${earlier.path}` : earlier.source;
      out.push(
        problem(entry, 'metadata.name', `${c.kind} ${c.metadata.name ?? ''} is also at ${at}`),
      );
    }
  }
  return out;
}
