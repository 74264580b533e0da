/**
 * The invariants the soak checks after each restart, once the cluster has had a bounded time
 * to settle: each NodeClaim has at most one machine and each machine a NodeClaim; no Node of the
 * pool without a NodeClaim; no NodeClaim without a provider ID past the launch timeout; every
 * pod of the Deployment bound (the pool has no limits, so it always has room); no Node tainted
 * `karpenter.sh/disrupted` unless it is being deleted (the disruption queue lives in memory, so
 * after a restart no command holds it). After scale-to-zero and deletion: nothing left.
 */
import type { NodeClaim, Pod } from '@karpenter-ts/api';
import type { List } from '../../../apps/controller/test/e2e/support.js';
import type { SoakTarget } from './targets.js';

/** The taint a node carries while a disruption command holds it. */
export const DISRUPTED_TAINT = 'karpenter.sh/disrupted';

/** How long a NodeClaim may go without a provider ID (the soak's launch timeout), in seconds. */
export const LAUNCH_TIMEOUT_S = 60;

/** A Node as the soak reads it. */
export interface NodeObj {
  metadata: {
    name: string;
    labels?: Record<string, string>;
    deletionTimestamp?: string;
  };
  spec?: { providerID?: string; taints?: { key: string; effect: string }[] };
}

/** The pool's objects and the cloud's machines at one moment. */
export interface ClusterState {
  readonly claims: NodeClaim[];
  readonly nodes: NodeObj[];
  readonly pods: Pod[];
  readonly machines: ReturnType<SoakTarget['machines']>;
}

/** Reads the pool's NodeClaims, Nodes and pods and the cloud's machines. */
export async function readState(target: SoakTarget): Promise<ClusterState> {
  const { api, pool } = target;
  const byPool = `labelSelector=karpenter.sh%2Fnodepool%3D${pool}`;
  const [claims, nodes, pods] = await Promise.all([
    api.request<List<NodeClaim>>('GET', `/apis/karpenter.sh/v1/nodeclaims?${byPool}`),
    api.request<List<NodeObj>>('GET', `/api/v1/nodes?${byPool}`),
    api.request<List<Pod>>('GET', `/api/v1/namespaces/${pool}/pods?labelSelector=app%3D${pool}`),
  ]);
  return {
    claims: claims.items,
    nodes: nodes.items,
    pods: pods.items,
    machines: target.machines(),
  };
}

/** Every invariant `state` breaks with `replicas` pods wanted, one line each. */
export function violations(state: ClusterState, replicas: number, now = Date.now()): string[] {
  const out: string[] = [];
  const claimNames = new Set(state.claims.map((c) => c.metadata.name ?? ''));
  const perClaim = new Map<string, string[]>();
  for (const m of state.machines) {
    if (!claimNames.has(m.nodeClaim)) out.push(`${m.kind} ${m.name} has no NodeClaim`);
    const key = `${m.kind}/${m.nodeClaim}`;
    perClaim.set(key, [...(perClaim.get(key) ?? []), m.name]);
  }
  for (const [key, names] of perClaim)
    if (names.length > 1) out.push(`NodeClaim ${key} has ${names.length} machines: ${names}`);
  const claimNodes = new Set(state.claims.map((c) => c.status?.nodeName).filter(Boolean));
  const claimProviders = new Set(state.claims.map((c) => c.status?.providerID).filter(Boolean));
  for (const n of state.nodes) {
    const owned = claimNodes.has(n.metadata.name) || claimProviders.has(n.spec?.providerID);
    if (!owned) out.push(`Node ${n.metadata.name} has no NodeClaim`);
    const tainted = (n.spec?.taints ?? []).some((t) => t.key === DISRUPTED_TAINT);
    if (tainted && n.metadata.deletionTimestamp === undefined)
      out.push(`Node ${n.metadata.name} is tainted ${DISRUPTED_TAINT} and not being deleted`);
  }
  for (const c of state.claims) {
    const age = (now - new Date(c.metadata.creationTimestamp ?? 0).getTime()) / 1000;
    if (!c.status?.providerID && age > LAUNCH_TIMEOUT_S)
      out.push(`NodeClaim ${c.metadata.name} has no provider ID after ${Math.round(age)} s`);
  }
  const live = state.pods.filter((p) => p.metadata?.deletionTimestamp === undefined);
  const unbound = live.filter((p) => !p.spec?.nodeName);
  if (live.length !== replicas) out.push(`${live.length} pods exist, ${replicas} wanted`);
  if (unbound.length > 0) out.push(`${unbound.length} of ${live.length} pods unbound`);
  return out;
}

/** What must hold once everything is deleted: no NodeClaim, Node or machine left. */
export function leftovers(state: ClusterState): string[] {
  return [
    ...state.claims.map((c) => `NodeClaim ${c.metadata.name} left`),
    ...state.nodes.map((n) => `Node ${n.metadata.name} left`),
    ...state.machines.map((m) => `${m.kind} ${m.name} left`),
    ...(state.pods.length > 0 ? [`${state.pods.length} pods left`] : []),
  ];
}
