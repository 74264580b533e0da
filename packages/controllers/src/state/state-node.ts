/**
 * A StateNode: one machine as cluster state sees it, the merge of its Node and its NodeClaim
 * (upstream `state/statenode.go`). Before the Node registers the
 * NodeClaim speaks for it (labels, taints, allocatable); until it is initialized the NodeClaim's
 * allocatable and capacity stand in, and startup and known ephemeral taints are ignored, because
 * they are expected to go away.
 */
import type { Node, NodeClaim, Pod, Taint } from '@karpenter-ts/api';
import { isKnownEphemeralTaint, Labels } from '@karpenter-ts/api';
import {
  addResources,
  podRequests,
  resourceListFromQuantities,
  type ResourceList,
} from '@karpenter-ts/scheduling';
import { isDaemonSetPod } from '../pods.js';

/** An immutable snapshot of one machine; built by `Cluster.nodes()`. */
export class StateNode {
  constructor(
    /** The Node, once registered with the API server. */
    readonly node: Node | undefined,
    /** The NodeClaim, for nodes Karpenter manages. */
    readonly nodeClaim: NodeClaim | undefined,
    /** Pods bound to the node and not terminal (DaemonSet pods included). */
    readonly pods: readonly Pod[],
    /** Marked for deletion by disruption or termination (its pods are rescheduled). */
    readonly markedForDeletion: boolean,
    /** Clock milliseconds until which the node is nominated for pending pods (0 = not). */
    readonly nominatedUntil: number,
  ) {}

  /** `spec.providerID` of the Node, else `status.providerID` of the NodeClaim ('' when neither). */
  providerID(): string {
    return this.node?.spec?.providerID || this.nodeClaim?.status?.providerID || '';
  }

  /** The Node name; before registration, the NodeClaim's name. */
  name(): string {
    return this.node?.metadata?.name ?? this.nodeClaim?.metadata.name ?? '';
  }

  /** Karpenter manages the node: it has a NodeClaim. */
  managed(): boolean {
    return this.nodeClaim !== undefined;
  }

  /** The Node exists and, when managed, carries `karpenter.sh/registered=true`. */
  registered(): boolean {
    if (this.node === undefined) return false;
    return !this.managed() || this.node.metadata?.labels?.[Labels.Registered] === 'true';
  }

  /** The Node exists and, when managed, carries `karpenter.sh/initialized=true`. */
  initialized(): boolean {
    if (this.node === undefined) return false;
    return !this.managed() || this.node.metadata?.labels?.[Labels.Initialized] === 'true';
  }

  /** Node labels once registered, else the NodeClaim's labels. */
  labels(): Record<string, string> {
    if (!this.registered() && this.nodeClaim !== undefined) {
      return { ...(this.nodeClaim.metadata.labels ?? {}) };
    }
    return { ...(this.node?.metadata?.labels ?? {}) };
  }

  /** `karpenter.sh/nodepool` label value, or undefined. */
  nodePoolName(): string | undefined {
    return this.labels()[Labels.NodePool];
  }

  /**
   * The taints that count for scheduling: Node taints once registered, else the NodeClaim's
   * taints; for an uninitialized managed node, without its startup taints and the known
   * ephemeral taints (readiness.k8s.io/ taints included).
   */
  taints(): Taint[] {
    const taints =
      this.registered() || this.nodeClaim === undefined
        ? (this.node?.spec?.taints ?? [])
        : (this.nodeClaim.spec.taints ?? []);
    if (this.initialized() || !this.managed()) return [...taints];
    const startup = this.nodeClaim?.spec.startupTaints ?? [];
    return taints.filter((t) => !isKnownEphemeralTaint(t) && !startup.some((s) => sameTaint(s, t)));
  }

  /** Allocatable: the NodeClaim's until initialized (the kubelet may not report it yet), then the Node's. */
  allocatable(): ResourceList {
    if (!this.initialized() && this.nodeClaim !== undefined) {
      return resourceListFromQuantities(this.nodeClaim.status?.allocatable ?? {});
    }
    return resourceListFromQuantities(this.node?.status?.allocatable ?? {});
  }

  /** Capacity, with the same fallback as {@link allocatable}. */
  capacity(): ResourceList {
    if (!this.initialized() && this.nodeClaim !== undefined) {
      return resourceListFromQuantities(this.nodeClaim.status?.capacity ?? {});
    }
    return resourceListFromQuantities(this.node?.status?.capacity ?? {});
  }

  /** The Node or NodeClaim has a deletionTimestamp. */
  deleting(): boolean {
    return (
      this.node?.metadata?.deletionTimestamp !== undefined ||
      this.nodeClaim?.metadata.deletionTimestamp !== undefined
    );
  }

  /** Nominated for pending pods at `nowMs` (blocks its disruption). */
  nominated(nowMs: number): boolean {
    return this.nominatedUntil > nowMs;
  }

  /** Sum of the requests of the bound pods (canonical units). */
  podRequests(): ResourceList {
    return addResources(...this.pods.map((p) => podRequests(p)));
  }

  /** Sum of the requests of the bound DaemonSet pods. */
  daemonSetRequests(): ResourceList {
    return addResources(...this.pods.filter(isDaemonSetPod).map((p) => podRequests(p)));
  }
}

/** Same key, effect and value (a missing value is ''). */
export function sameTaint(a: Taint, b: Taint): boolean {
  return a.key === b.key && a.effect === b.effect && (a.value ?? '') === (b.value ?? '');
}
