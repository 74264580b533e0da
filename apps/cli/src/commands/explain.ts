/**
 * `karpenter-ts explain`: for one pod, every NodePool and why it can or cannot host it.
 */
import { Option, type Command } from 'commander';
import { orderByWeight, parseQuantity, podRequests } from '@karpenter-ts/scheduling';
import type { Runtime } from '../program.js';
import { createCloud } from '../clouds/select.js';
import { findPod } from '../explain/find-pod.js';
import { describe, explainNodePool, formatAmount, type NodePoolVerdict } from '../explain/why.js';
import { location } from '../manifests/document.js';
import { inventory } from '../manifests/inventory.js';
import { loadManifestsStrict } from '../manifests/load.js';
import { toJson } from '../output/format.js';
import { planNodePools } from '../simulation/node-pools.js';
import { podName, simulate } from '../simulation/simulate.js';
import { expandWorkloads } from '../workloads/expand.js';
import pc from 'picocolors';
import { CLOUD_NAMES, type CloudName } from './options.js';
import { addSimulationOptions, type SimulationFlags } from './simulate.js';

interface ExplainOptions extends SimulationFlags {
  pod: string;
  cloud: CloudName;
  region?: string;
  output: 'table' | 'json';
}

/** Adds the `explain` command to `program`. */
export function registerExplain(program: Command, runtime: Runtime): void {
  const command = program
    .command('explain')
    .description('explain, for one pod, why each NodePool can or cannot host it')
    .argument('<paths...>', 'YAML/JSON files or folders with workloads, NodePools and NodeClasses')
    .requiredOption('--pod <name>', 'pod name, NAMESPACE/NAME, or a workload name (its first pod)')
    .addOption(
      new Option('--cloud <cloud>', 'cloud whose catalog to use')
        .choices(CLOUD_NAMES)
        .default('azure'),
    )
    .option('--region <region>', 'region (default: azure eastus, aws us-east-1)')
    .addOption(
      new Option('-o, --output <format>', 'output format')
        .choices(['table', 'json'])
        .default('table'),
    );
  addSimulationOptions(command)
    .addHelpText(
      'after',
      '\nExample:\n  karpenter-ts explain examples/workloads/online-boutique-kubernetes-manifests.yaml --pod frontend',
    )
    .action(async (paths: string[], options: ExplainOptions) => {
      const documents = await loadManifestsStrict(paths);
      const cloud = createCloud(options.cloud, options.region);
      const inv = inventory(documents);
      const workloads = expandWorkloads(inv.workloads, {
        scale: options.scale,
        checkQuantity: (q) => void parseQuantity(q),
      });
      const pod = findPod(workloads, options.pod);
      // The full simulation also validates the NodePools and says where the pod lands among the others.
      const simulation = simulate(documents, cloud, {
        scale: options.scale,
        solver: options.solver,
      });
      const plan = planNodePools(inv.nodePools, inv.nodeClasses, cloud);
      const pools = orderByWeight(plan.pools.map((p) => p.nodePool));
      const verdicts = pools.map((nodePool) => {
        const planned = plan.pools.find((p) => p.nodePool === nodePool)!;
        const types = cloud.instanceTypes(planned.defaultNodeClass ? undefined : planned.nodeClass);
        return explainNodePool(
          pod,
          nodePool,
          types,
          cloud,
          workloads.daemonSetPods,
          options.solver,
        );
      });
      const name = podName(pod);
      const placed = simulation.nodeClaims.findIndex((c) =>
        c.pods.some((p) => podName(p) === name),
      );
      const pending = simulation.podErrors.find((e) => podName(e.pod) === name);
      const source = workloads.origin.get(pod);
      const inSimulation =
        placed >= 0
          ? `node claim ${placed + 1} of ${simulation.nodeClaims.length} (NodePool "${simulation.nodeClaims[placed]!.nodePool}", ${simulation.nodeClaims[placed]!.launch.instanceType.name}, ${simulation.nodeClaims[placed]!.pods.length} pods)`
          : pending
            ? `pending: ${pending.reason}`
            : 'not part of the simulation';

      if (options.output === 'json') {
        runtime.io.out(
          toJson({
            pod: name,
            source: source ? location(source) : undefined,
            requests: Object.fromEntries(
              Object.entries(podRequests(pod)).map(([k, v]) => [k, formatAmount(k, v)]),
            ),
            cloud: cloud.name,
            region: cloud.region,
            notes: plan.notes,
            nodePools: verdicts.map(verdictJson),
            simulation: inSimulation,
          }),
        );
        return;
      }
      const out: string[] = [];
      out.push(
        `${pc.bold(`Pod ${name}`)}${source ? ` (from ${location(source)})` : ''} requests ${describe(podRequests(pod))}\n`,
      );
      out.push(`on ${cloud.name} ${cloud.region}\n`);
      for (const note of plan.notes) out.push(pc.dim(`note: ${note}\n`));
      out.push('\n');
      for (const v of verdicts) {
        const weight = v.nodePool.spec.weight ?? 0;
        const mark = v.canHost ? pc.green('✓ can host it:') : pc.red('✗ cannot host it:');
        out.push(`NodePool "${v.nodePool.metadata.name}" (weight ${weight}) ${mark} ${v.reason}\n`);
        for (const c of v.closest) {
          const short = Object.entries(c.short)
            .map(
              ([res, [need, have]]) =>
                `${res} ${formatAmount(res, have)} < ${formatAmount(res, need)}`,
            )
            .join(', ');
          out.push(`    closest: ${c.instanceType.name} (${short})\n`);
        }
      }
      out.push(`\nIn the simulation of the whole input: ${inSimulation}\n`);
      runtime.io.out(out.join(''));
    });
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
          { requested: formatAmount(res, need), allocatable: formatAmount(res, have) },
        ]),
      ),
    })),
  };
}
