/**
 * A Scheduler's existing nodes, prepared once for all of its solves (upstream builds this state
 * for every scheduling simulation; a disruption pass runs one per candidate, each over the same
 * cluster without a few nodes): per node its requirements from labels, the resources left after
 * its bound pods and the daemonset overhead still to come, its host ports and attached volumes,
 * and what it charges against its NodePool's limits; the topology domains of every node; and the
 * bound pods as topology counts them. A solve copies what it changes and leaves out the nodes it
 * is told to, which gives the same state as preparing only the remaining nodes.
 */
import type { Pod, Taint } from '@karpenter-ts/api';
import { Labels } from '@karpenter-ts/api';
import { existingNodeDaemonOverhead, isDaemonSetPod, type DaemonPod } from './daemon-overhead.js';
import { podHostPorts, type HostPort } from './host-ports.js';
import { podRequests } from './pod-requests.js';
import { Requirements } from './requirements.js';
import { addResources, subtractResources, type ResourceList } from './resources.js';
import type { ExistingNodeInput } from './scheduler-types.js';
import { TopologyBaseline } from './topology/topology-baseline.js';
import type { TopologyDomains } from './topology/domains.js';
import type { TopologyGroupSpecs } from './topology/topology.js';
import { VolumeUsage, type PodVolumes } from './volumes.js';

const HOSTNAME = Labels.Hostname;

/** One existing node as every solve starts from it. */
export interface PreparedNode {
  readonly input: ExistingNodeInput;
  /** Position in the order nodes are tried (initialized first, then by name). */
  readonly index: number;
  /** The node's labels with `kubernetes.io/hostname` defaulted to its name. */
  readonly labels: Readonly<Record<string, string>>;
  readonly requirements: Requirements;
  readonly taints: readonly Taint[];
  /** Allocatable less the bound pods' requests and the daemonset overhead still to come. */
  readonly available: ResourceList;
  /** Host ports of the bound pods and of daemons still to come. */
  readonly hostPorts: readonly HostPort[];
  /** Attached volumes against the node's CSI limits (copy before adding); undefined without limits. */
  readonly volumes: VolumeUsage | undefined;
  /** Index of its NodePool's template, -1 when none (unmanaged, or a pool not scheduled to). */
  readonly template: number;
  /** What the node uses of its NodePool's limits: its capacity (else allocatable) and 1 node. */
  readonly limitUsage: ResourceList;
}

/** What preparing the nodes needs from the Scheduler. */
export interface ExistingNodesContext {
  readonly daemons: readonly DaemonPod[];
  readonly podVolumes?: (pod: Pod) => PodVolumes | undefined;
  readonly templateNames: readonly string[];
  /** The templates' domains; copied, never changed. */
  readonly templateDomains: TopologyDomains;
  readonly groupSpecs: TopologyGroupSpecs;
  readonly allowUndefined: ReadonlySet<string>;
}

/** See the module comment. */
export class ExistingNodes {
  /** In the order nodes are tried: initialized first, then by name. */
  readonly nodes: readonly PreparedNode[];
  readonly topology: TopologyBaseline;
  /** The templates' domains and every node's labels. */
  readonly domains: TopologyDomains;
  /** The hostname domains the templates register. */
  readonly templateHostnames: readonly string[];
  private readonly byName = new Map<string, number[]>();

  constructor(inputs: readonly ExistingNodeInput[], ctx: ExistingNodesContext) {
    const sorted = [...inputs].sort((a, b) => {
      const ia = a.initialized === false ? 1 : 0;
      const ib = b.initialized === false ? 1 : 0;
      return ia - ib || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0);
    });
    this.topology = new TopologyBaseline(ctx.groupSpecs, ctx.allowUndefined);
    this.templateHostnames = ctx.templateDomains.domains(HOSTNAME);
    this.domains = ctx.templateDomains.copy();
    this.nodes = sorted.map((input, index) => {
      const node = prepare(input, index, ctx);
      const pods = (input.pods ?? []).filter(
        (p) => p.status?.phase !== 'Succeeded' && p.status?.phase !== 'Failed',
      );
      this.topology.addNode(
        node.requirements,
        node.taints,
        pods.map((p) => ({
          pod: { namespace: p.metadata?.namespace ?? 'default', labels: p.metadata?.labels ?? {} },
          requiredAntiAffinity:
            p.spec?.affinity?.podAntiAffinity?.requiredDuringSchedulingIgnoredDuringExecution ?? [],
        })),
      );
      for (const key of Object.keys(node.labels))
        this.domains.register(key, node.labels[key] as string, node.taints);
      const same = this.byName.get(input.name);
      if (same === undefined) this.byName.set(input.name, [index]);
      else same.push(index);
      return node;
    });
  }

  /** Indices of the nodes named in `names`, ascending. */
  indicesOf(names: ReadonlySet<string> | undefined): number[] {
    const out: number[] = [];
    if (names === undefined || names.size === 0) return out;
    for (const name of names) for (const i of this.byName.get(name) ?? []) out.push(i);
    return out.sort((a, b) => a - b);
  }

  /** The domains of the templates and of every node but `removed` (a new, independent universe). */
  domainsWithout(removed: readonly number[]): TopologyDomains {
    const domains = this.domains.copy();
    for (const i of removed) {
      const node = this.nodes[i] as PreparedNode;
      for (const key of Object.keys(node.labels))
        domains.unregister(key, node.labels[key] as string, node.taints);
    }
    return domains;
  }
}

function prepare(input: ExistingNodeInput, index: number, ctx: ExistingNodesContext): PreparedNode {
  const labels: Record<string, string> = { [HOSTNAME]: input.name, ...input.labels };
  const requirements = Requirements.fromLabels(labels);
  const taints = input.taints ?? [];
  const pods = (input.pods ?? []).filter(
    (p) => p.status?.phase !== 'Succeeded' && p.status?.phase !== 'Failed',
  );
  let used: ResourceList = {};
  let daemonUsed: ResourceList = {};
  const hostPorts: HostPort[] = [];
  const volumes =
    input.volumeLimits !== undefined && Object.keys(input.volumeLimits).length > 0
      ? new VolumeUsage(input.volumeLimits)
      : undefined;
  for (const p of pods) {
    if (volumes !== undefined) {
      const attached = ctx.podVolumes?.(p)?.attachments;
      if (attached !== undefined) volumes.add(attached);
    }
    const req = podRequests(p);
    used = addResources(used, req);
    if (isDaemonSetPod(p)) daemonUsed = addResources(daemonUsed, req);
    hostPorts.push(...podHostPorts(p));
  }
  const daemon = existingNodeDaemonOverhead(ctx.daemons, {
    requirements,
    taints,
    pods,
    boundDaemonRequests: daemonUsed,
  });
  hostPorts.push(...daemon.hostPorts);
  return {
    input,
    index,
    labels,
    requirements,
    taints,
    available: subtractResources(subtractResources(input.allocatable, used), daemon.overhead),
    hostPorts,
    volumes,
    template: ctx.templateNames.indexOf(input.nodePoolName as string),
    limitUsage: { ...(input.capacity ?? input.allocatable), nodes: 1 },
  };
}
