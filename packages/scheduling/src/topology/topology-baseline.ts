/**
 * The pods already bound to the existing nodes of a Scheduler, as topology counts them, kept
 * once for every solve of that Scheduler (a disruption pass solves once per candidate, each time
 * without the candidates' nodes). A topology group's counts over these pods are computed once per
 * group identity; a solve then takes away what the nodes it leaves out contributed, which gives
 * the counts a batch over the remaining nodes alone would have.
 */
import type { PodAffinityTerm, Taint } from '@karpenter-ts/api';
import { Labels } from '@karpenter-ts/api';
import type { Requirements } from '../requirements.js';
import type { GroupSpec, TopologyGroupSpecs, TopologyPod } from './topology.js';
import { decidedDomains, nodeFilterMatches, type TopologyGroup } from './topology-group.js';

const HOSTNAME = Labels.Hostname;

/** One bound pod of an existing node. */
interface BoundPod {
  readonly pod: TopologyPod;
  /** Hashes of the inverse groups of the pod's required anti-affinity terms. */
  readonly inverseHashes: readonly string[];
}

/** One existing node and its bound pods. */
interface BaselineNode {
  readonly requirements: Requirements;
  readonly taints: readonly Taint[];
  /** The node's `kubernetes.io/hostname` domain. */
  readonly hostname: string;
  readonly pods: readonly BoundPod[];
}

/**
 * An inverse group some bound pods own: per owning term (in the order the Scheduler records the
 * pods), the owner's node and the term's position among every owning term of every group.
 */
export interface InverseOwners {
  readonly spec: GroupSpec;
  readonly nodes: readonly number[];
  readonly sequence: readonly number[];
}

/** See the module comment. Nodes are added in the order the Scheduler tries them. */
export class TopologyBaseline {
  private readonly nodes: BaselineNode[] = [];
  private readonly inverse = new Map<
    string,
    { spec: GroupSpec; nodes: number[]; sequence: number[] }
  >();
  private terms = 0;
  /** Per group hash, its counts over every node's pods. */
  private readonly counts = new Map<string, ReadonlyMap<string, number>>();
  private hostnameOrder: readonly number[] | undefined;

  constructor(
    private readonly specs: TopologyGroupSpecs,
    private readonly allowUndefined: ReadonlySet<string>,
  ) {}

  /** Adds the next node (index = the number of nodes added before) with its bound pods. */
  addNode(
    requirements: Requirements,
    taints: readonly Taint[],
    pods: readonly { pod: TopologyPod; requiredAntiAffinity: readonly PodAffinityTerm[] }[],
  ): void {
    const index = this.nodes.length;
    const bound: BoundPod[] = [];
    for (const { pod, requiredAntiAffinity } of pods) {
      const hashes: string[] = [];
      for (const term of requiredAntiAffinity) {
        const spec = this.specs.inverse(pod, term);
        hashes.push(spec.hash);
        const owners = this.inverse.get(spec.hash);
        const at = this.terms++;
        if (owners === undefined)
          this.inverse.set(spec.hash, { spec, nodes: [index], sequence: [at] });
        else {
          owners.nodes.push(index);
          owners.sequence.push(at);
        }
      }
      bound.push({ pod, inverseHashes: hashes });
    }
    this.nodes.push({
      requirements,
      taints,
      hostname: requirements.get(HOSTNAME).valuesList()[0] ?? '',
      pods: bound,
    });
  }

  /** The inverse groups the bound pods own, with their owners' nodes. */
  inverseOwners(): Iterable<InverseOwners> {
    return this.inverse.values();
  }

  /**
   * The hostnames of the nodes before node `before` that are not `removed`, sorted (the order
   * `TopologyDomains.domains` gives), each once.
   */
  hostnamesBefore(before: number, removed: ReadonlySet<number>): string[] {
    this.hostnameOrder ??= this.nodes
      .map((_, i) => i)
      .sort((a, b) => {
        const x = (this.nodes[a] as BaselineNode).hostname;
        const y = (this.nodes[b] as BaselineNode).hostname;
        return x < y ? -1 : x > y ? 1 : 0;
      });
    const out: string[] = [];
    for (const i of this.hostnameOrder) {
      if (i >= before || removed.has(i)) continue;
      const h = (this.nodes[i] as BaselineNode).hostname;
      if (out[out.length - 1] !== h) out.push(h);
    }
    return out;
  }

  /**
   * Counts `g` over the bound pods of every node except `removed` (node indices), as recording
   * each of those pods into a new group would: adds them to `g`.
   */
  seed(g: TopologyGroup, removed: readonly number[]): void {
    let full = this.counts.get(g.hash);
    if (full === undefined) {
      const counts = new Map<string, number>();
      for (let i = 0; i < this.nodes.length; i++) this.countNode(g, i, counts, 1);
      full = counts;
      this.counts.set(g.hash, full);
    }
    if (removed.length === 0) {
      for (const [d, n] of full) g.add(d, n);
      return;
    }
    const taken = new Map<string, number>();
    for (const i of removed) this.countNode(g, i, taken, 1);
    for (const [d, n] of full) {
      const left = n - (taken.get(d) ?? 0);
      if (left > 0) g.add(d, left);
    }
  }

  /** Adds `sign` × what node `i`'s pods contribute to `g` into `into`. */
  private countNode(g: TopologyGroup, i: number, into: Map<string, number>, sign: number): void {
    const node = this.nodes[i] as BaselineNode;
    if (
      !g.inverse &&
      g.kind === 'spread' &&
      !nodeFilterMatches(g.nodeFilter, node.taints, node.requirements, this.allowUndefined)
    )
      return;
    let pods = 0;
    for (const p of node.pods) {
      if (!g.inverse) {
        if (g.selects(p.pod.namespace, p.pod.labels)) pods++;
        continue;
      }
      // An owner is recorded once per term of that identity.
      for (const h of p.inverseHashes) if (h === g.hash) pods++;
    }
    if (pods === 0) return;
    // Existing nodes are recorded as not in flight: a key they lack counts nothing.
    for (const d of decidedDomains(g.kind, node.requirements.get(g.key)))
      into.set(d, (into.get(d) ?? 0) + sign * pods);
  }
}
