/**
 * Which NodePools (and NodeClasses) a simulation on a cloud uses.
 *
 * - NodePools whose `nodeClassRef` names the cloud's NodeClass kind are used as written.
 * - No NodePool in the input ⇒ the cloud's documented default NodePool and NodeClass, unless
 *   the input is a cluster snapshot (`defaultNodePool: false`): Karpenter launches only from
 *   the NodePools a cluster has, so a snapshot without one gets none, and a note says so.
 * - NodePools only for other clouds (e.g. AKSNodeClass pools simulated with `--cloud aws`) are
 *   retargeted: same requirements, taints, labels, limits and weight, pointed at this cloud's
 *   default NodeClass, with requirements on another provider's label domain dropped. That is what
 *   makes `compare` possible with one set of NodePools; upstream would ignore such pools.
 * - In a mixed input, pools for other clouds are ignored (as upstream ignores pools whose
 *   NodeClass kind the provider does not support): left out, with the reason in
 *   {@link NodePoolPlan.leftOut}.
 * - NodePools whose nodeClassRef names a kind no cloud serves (a misspelt `AKSNodeClas`) are
 *   unusable on every cloud, as upstream ignores them: left out, never retargeted, with the
 *   reason in {@link NodePoolPlan.leftOut}. If only such pools are in the input, no NodePool is
 *   used (not the default one): every pod stays pending.
 * Every choice that is not "as written" is reported as a note (once per run); the simulation
 * adds a left-out pool's reason only to the pending pods that pool could have taken.
 */
import type { NodePool, NodeSelectorRequirementWithMinValues } from '@karpenter-ts/api';
import type { Cloud } from '../clouds/cloud.js';
import { referencesCloud } from '../clouds/cloud.js';
import type { KubeObject, ManifestDocument } from '../manifests/document.js';
import { NODE_CLASS_GROUPS } from '../manifests/inventory.js';
import { unservedNodeClassRef } from '../clouds/node-class-ref.js';

/** How a NodePool came to be in the simulation. */
export type NodePoolOrigin = 'input' | 'default' | 'retargeted';

/** A NodePool the simulation launches from, with the NodeClass its instance types come from. */
export interface PlannedNodePool {
  readonly nodePool: NodePool;
  readonly origin: NodePoolOrigin;
  /** The NodeClass object (from the input, or the cloud's default). */
  readonly nodeClass: KubeObject;
  /** True when the NodeClass is the cloud's default (not found in the input). */
  readonly defaultNodeClass: boolean;
  /** Requirements retargeting dropped (keys in another provider's label domain); empty otherwise. */
  readonly droppedRequirements: readonly NodeSelectorRequirementWithMinValues[];
}

/** A NodePool of the input the simulation leaves out, and why (one line, also a note). */
export interface LeftOutNodePool {
  readonly nodePool: NodePool;
  readonly reason: string;
}

/** NodePools for the cloud and notes about every substitution made. */
export interface NodePoolPlan {
  readonly pools: PlannedNodePool[];
  readonly notes: string[];
  /**
   * NodePools of the input left out: no cloud serves their NodeClass kind, or (in a mixed
   * input) another cloud does.
   */
  readonly leftOut: LeftOutNodePool[];
}

/** Label domains of the providers, whose requirement keys are dropped when retargeting. */
const PROVIDER_LABEL_DOMAINS = [
  'karpenter.azure.com',
  'kubernetes.azure.com',
  'karpenter.k8s.aws',
  'karpenter.kwok.sh',
];

/** The note of a cluster snapshot without NodePools (see {@link planNodePools}). */
export const SnapshotWithoutNodePools =
  "the snapshot holds no NodePool, so Karpenter would provision and replace nothing: no NodePool is assumed (add the cluster's NodePools, kubectl get nodepools -o yaml, or NodePool files as further paths)";

/**
 * Picks the NodePools and NodeClasses for `cloud` from the input's NodePools and NodeClasses.
 * `options.defaultNodePool` (default true): whether an input without NodePools gets the cloud's
 * default one; false for a cluster snapshot (see the module comment).
 */
export function planNodePools(
  nodePoolDocs: readonly ManifestDocument[],
  nodeClassDocs: readonly ManifestDocument[],
  cloud: Cloud,
  options: { readonly defaultNodePool?: boolean } = {},
): NodePoolPlan {
  const notes: string[] = [];
  const defaults = cloud.defaults();
  const kind = cloud.nodeClassKind;
  const nodeClassNamed = (name: string): KubeObject | undefined =>
    nodeClassDocs.find(
      (d) =>
        d.object.kind === kind.kind &&
        NODE_CLASS_GROUPS[d.object.kind] === kind.group &&
        d.object.metadata?.name === name,
    )?.object;

  const leftOut: LeftOutNodePool[] = [];
  const leaveOut = (nodePool: NodePool, reason: string): void => {
    leftOut.push({ nodePool, reason });
    notes.push(reason);
  };
  const usableDocs = nodePoolDocs.filter((d) => {
    const nodePool = d.object as unknown as NodePool;
    const problem = unservedNodeClassRef(nodePool);
    if (!problem) return true;
    const name = String(d.object.metadata?.name ?? '');
    leaveOut(nodePool, `NodePool "${name}" is not usable: ${problem.path}: ${problem.message}`);
    return false;
  });
  if (usableDocs.length === 0 && leftOut.length > 0) return { pools: [], notes, leftOut };

  if (nodePoolDocs.length === 0 && options.defaultNodePool === false) {
    notes.push(SnapshotWithoutNodePools);
    return { pools: [], notes, leftOut };
  }
  if (nodePoolDocs.length === 0) {
    notes.push(
      `no NodePool in the input: using the ${defaults.source} (NodePool "${defaults.nodePool.metadata.name}", ${kind.kind} "${defaults.nodeClass.metadata?.name}")`,
    );
    return {
      pools: [
        {
          nodePool: defaults.nodePool,
          origin: 'default',
          nodeClass: defaults.nodeClass,
          defaultNodeClass: true,
          droppedRequirements: [],
        },
      ],
      notes,
      leftOut,
    };
  }

  const pools = usableDocs.map((d) => d.object as unknown as NodePool);
  const own = pools.filter((p) => referencesCloud(p, cloud));
  if (own.length > 0) {
    for (const p of pools) {
      if (!referencesCloud(p, cloud)) {
        const ref = p.spec.template.spec.nodeClassRef;
        leaveOut(
          p,
          `NodePool "${p.metadata.name}" is ignored: it references ${ref.kind}, not ${kind.kind}`,
        );
      }
    }
    return {
      pools: own.map((nodePool) => {
        const name = nodePool.spec.template.spec.nodeClassRef.name;
        const nodeClass = nodeClassNamed(name);
        // The sim cloud's NodeClass has no settings, so a missing one changes nothing.
        if (!nodeClass && cloud.name !== 'sim') {
          notes.push(
            `NodePool "${nodePool.metadata.name}" references ${kind.kind} "${name}", which is not in the input: using the default ${kind.kind} settings`,
          );
        }
        return {
          nodePool,
          origin: 'input',
          // The default settings under the name the NodePool references: named "default", the
          // NodePool would not find it and stay not ready, launching nothing.
          nodeClass: nodeClass ?? {
            ...defaults.nodeClass,
            metadata: { ...defaults.nodeClass.metadata, name },
          },
          defaultNodeClass: !nodeClass,
          droppedRequirements: [],
        };
      }),
      notes,
      leftOut,
    };
  }

  return {
    pools: pools.map((original) => {
      const { nodePool, dropped } = retarget(
        original,
        cloud,
        String(defaults.nodeClass.metadata?.name ?? 'default'),
      );
      const from = original.spec.template.spec.nodeClassRef.kind;
      notes.push(
        `NodePool "${original.metadata.name}" references ${from}: simulated on ${cloud.name} with the default ${kind.kind}` +
          (dropped.length > 0
            ? `, dropping requirements on ${dropped.map((r) => r.key).join(', ')}`
            : ''),
      );
      return {
        nodePool,
        origin: 'retargeted',
        nodeClass: defaults.nodeClass,
        defaultNodeClass: true,
        droppedRequirements: dropped,
      };
    }),
    notes,
    leftOut,
  };
}

function retarget(
  pool: NodePool,
  cloud: Cloud,
  nodeClassName: string,
): { nodePool: NodePool; dropped: NodeSelectorRequirementWithMinValues[] } {
  const copy = structuredClone(pool);
  const spec = copy.spec.template.spec;
  const dropped: NodeSelectorRequirementWithMinValues[] = [];
  spec.requirements = (spec.requirements ?? []).filter((r) => {
    const domain = r.key.includes('/') ? r.key.slice(0, r.key.indexOf('/')) : '';
    const foreign = PROVIDER_LABEL_DOMAINS.includes(domain) && !cloud.wellKnownLabels.has(r.key);
    if (foreign) dropped.push(r);
    return !foreign;
  });
  spec.nodeClassRef = {
    group: cloud.nodeClassKind.group,
    kind: cloud.nodeClassKind.kind,
    name: nodeClassName,
  };
  return { nodePool: copy, dropped };
}
