/**
 * The `explain` report, as text for people and as a JSON document.
 */
import pc from 'picocolors';
import { formatResourceList } from '@karpenter-ts/scheduling';
import type { Explanation } from '../explain/explain-pod.js';
import { describe, formatAmounts, type NodePoolVerdict } from '../explain/why.js';
import { cloudPlace } from './cloud-place.js';

/** Renders an explanation: the pod, one line per NodePool (closest instance types below), the simulation outcome. */
export function renderExplanation(e: Explanation): string {
  const out: string[] = [];
  out.push(
    `${pc.bold(`Pod ${e.podName}`)}${e.source ? ` (from ${e.source})` : ''} requests ${describe(e.requests)}\n`,
  );
  if (e.daemonSet) {
    out.push(
      '\nIt is a DaemonSet pod: Karpenter does not schedule it. The DaemonSet controller runs one on every node it fits, and Karpenter counts its requests as daemonset overhead on every node claim it fits.\n',
    );
    return out.join('');
  }
  out.push(`on ${cloudPlace(e.cloud)}\n`);
  for (const note of e.notes) out.push(pc.dim(`note: ${note}\n`));
  out.push('\n');
  for (const v of e.verdicts) {
    const weight = v.nodePool.spec.weight ?? 0;
    const mark = v.canHost ? pc.green('✓ can host it:') : pc.red('✗ cannot host it:');
    out.push(`NodePool "${v.nodePool.metadata.name}" (weight ${weight}) ${mark} ${v.reason}\n`);
    for (const c of v.closest) {
      const short = Object.entries(c.short)
        .map(([res, [need, have]]) => {
          const [h, n] = formatAmounts(res, [have, need]);
          return `${res} ${h} < ${n}`;
        })
        .join(', ');
      out.push(`    closest: ${c.instanceType.name} (${short})\n`);
    }
  }
  out.push(`\nIn the simulation of the whole input: ${e.inSimulation}\n`);
  return out.join('');
}

/** The JSON document `explain -o json` prints; amounts are exact Kubernetes quantities, as in `simulate -o json`. */
export function explanationJson(e: Explanation) {
  return {
    pod: e.podName,
    source: e.source,
    daemonSet: e.daemonSet,
    requests: formatResourceList(e.requests),
    cloud: e.cloud.name,
    region: e.cloud.region,
    notes: e.notes,
    nodePools: e.verdicts.map(verdictJson),
    simulation: e.inSimulation,
  };
}

function verdictJson(v: NodePoolVerdict) {
  return {
    name: v.nodePool.metadata.name,
    weight: v.nodePool.spec.weight ?? 0,
    canHost: v.canHost,
    reason: v.reason,
    ...(v.launch
      ? {
          launch: {
            instanceType: v.launch.instanceType.name,
            zone: v.launch.offering.zone,
            capacityType: v.launch.offering.capacityType,
            pricePerHour: v.launch.offering.price,
          },
        }
      : {}),
    instanceTypes: v.instanceTypes,
    closest: v.closest.map((c) => ({
      instanceType: c.instanceType.name,
      short: Object.fromEntries(
        Object.entries(c.short).map(([res, [need, have]]) => [
          res,
          { requested: quantity(res, need), allocatable: quantity(res, have) },
        ]),
      ),
    })),
  };
}

/** One canonical amount as an exact Kubernetes quantity string. */
function quantity(name: string, value: number): string {
  return formatResourceList({ [name]: value })[name] ?? String(value);
}
