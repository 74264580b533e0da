/**
 * `karpenter-ts compare`: the same workload simulated on several clouds, side by side.
 */
import { Option, type Command } from 'commander';
import pc from 'picocolors';
import type { Runtime } from '../program.js';
import { createCloud } from '../clouds/select.js';
import { loadManifestsStrict } from '../manifests/load.js';
import { OUTPUT_FORMATS, toJson, toYaml, type OutputFormat } from '../output/format.js';
import { renderTable } from '../output/table.js';
import { formatPercent, formatUsd } from '../output/units.js';
import { totals, utilization, type Totals, type Utilization } from '../simulation/report.js';
import { simulate, type Simulation } from '../simulation/simulate.js';
import { nextTick, startProgress } from '../spinner.js';
import { parseCloudTargets, type CloudTarget } from './options.js';
import { addSimulationOptions, type SimulationFlags } from './simulate.js';

/** Hours in the month figure (365 × 24 / 12). */
export const HOURS_PER_MONTH = 730;

/** One column of the comparison. */
export interface ComparisonRow {
  cloud: string;
  region: string;
  nodePools: string[];
  totals: Totals;
  /** USD per month at {@link HOURS_PER_MONTH} hours. */
  pricePerMonth: number;
  /** Requested / allocatable over the new node claims, 0..1 (0 when nothing was launched). */
  cpuUtilization: number;
  memoryUtilization: number;
  /** Launched instance types and how many of each, most used first. */
  instanceTypes: { name: string; count: number }[];
  notes: string[];
}

/** Summarizes one simulation for the comparison. */
export function comparisonRow(simulation: Simulation): ComparisonRow {
  const t = totals(simulation);
  const u: Utilization = utilization(simulation);
  const counts = new Map<string, number>();
  for (const c of simulation.nodeClaims)
    counts.set(c.launch.instanceType.name, (counts.get(c.launch.instanceType.name) ?? 0) + 1);
  return {
    cloud: simulation.cloud.name,
    region: simulation.cloud.region,
    nodePools: simulation.pools.map((p) => p.nodePool.metadata.name ?? ''),
    totals: t,
    pricePerMonth: Math.round(t.pricePerHour * HOURS_PER_MONTH * 100) / 100,
    cpuUtilization: u.cpuAllocatable > 0 ? u.cpuRequested / u.cpuAllocatable : 0,
    memoryUtilization: u.memoryAllocatable > 0 ? u.memoryRequested / u.memoryAllocatable : 0,
    instanceTypes: [...counts]
      .map(([name, count]) => ({ name, count }))
      .sort((a, b) => b.count - a.count || (a.name < b.name ? -1 : 1)),
    notes: [...simulation.notes],
  };
}

/** Adds the `compare` command to `program`. */
export function registerCompare(program: Command, runtime: Runtime): void {
  const command = program
    .command('compare')
    .description(
      'simulate the same workload on several clouds and compare nodes, cost and utilization',
    )
    .argument('<paths...>', 'YAML/JSON files or folders with workloads and (optionally) NodePools')
    .option('--clouds <list>', 'clouds to compare, as CLOUD[:REGION],...', parseCloudTargets, [
      { cloud: 'azure', region: 'eastus' },
      { cloud: 'aws', region: 'us-east-1' },
    ] satisfies CloudTarget[])
    .addOption(
      new Option('-o, --output <format>', 'output format').choices(OUTPUT_FORMATS).default('table'),
    );
  addSimulationOptions(command)
    .addHelpText(
      'after',
      "\nNodePools written for one cloud are reused on the others with that cloud's default NodeClass (see docs/cli.md).\n\n" +
        'Example:\n  karpenter-ts compare examples/workloads --clouds azure:eastus,aws:us-east-1,azure:westeurope --scale 10',
    )
    .action(
      async (
        paths: string[],
        options: SimulationFlags & { clouds: CloudTarget[]; output: OutputFormat },
      ) => {
        const progress = startProgress('Reading manifests');
        try {
          const documents = await loadManifestsStrict(paths);
          const rows: ComparisonRow[] = [];
          const now = new Date();
          for (const target of options.clouds) {
            const cloud = createCloud(target.cloud, target.region);
            progress.update(`Simulating on ${cloud.name} ${cloud.region}`);
            await nextTick();
            rows.push(
              comparisonRow(
                simulate(documents, cloud, { scale: options.scale, solver: options.solver, now }),
              ),
            );
          }
          progress.stop();
          if (options.output === 'json') runtime.io.out(toJson(rows));
          else if (options.output === 'yaml') runtime.io.out(toYaml(rows));
          else runtime.io.out(renderComparison(rows));
        } finally {
          progress.stop();
        }
      },
    );
}

function renderComparison(rows: readonly ComparisonRow[]): string {
  const cheapest = Math.min(
    ...rows.map((r) =>
      r.totals.scheduledPods === r.totals.pods ? r.totals.pricePerHour : Infinity,
    ),
  );
  const table = renderTable(
    [
      'CLOUD',
      'REGION',
      'NODEPOOLS',
      'NODES',
      'PODS',
      'PENDING',
      'USD/HOUR',
      'USD/MONTH',
      'CPU UTIL',
      'MEMORY UTIL',
      'INSTANCE TYPES',
    ],
    rows.map((r) => {
      const price = formatUsd(r.totals.pricePerHour);
      return [
        r.cloud,
        r.region,
        r.nodePools.join(','),
        String(r.totals.nodes),
        String(r.totals.scheduledPods),
        String(r.totals.pods - r.totals.scheduledPods),
        r.totals.pricePerHour === cheapest ? pc.green(price) : price,
        `$${r.pricePerMonth.toFixed(2)}`,
        formatPercent(r.cpuUtilization, 1),
        formatPercent(r.memoryUtilization, 1),
        r.instanceTypes
          .slice(0, 3)
          .map((t) => `${t.count}× ${t.name}`)
          .join(', ') + (r.instanceTypes.length > 3 ? ', …' : ''),
      ];
    }),
    ['left', 'left', 'left', 'right', 'right', 'right', 'right', 'right', 'right', 'right', 'left'],
  );
  const notes = rows.flatMap((r) =>
    r.notes.map((n) => pc.dim(`note (${r.cloud} ${r.region}): ${n}\n`)),
  );
  return `${table}${notes.length > 0 ? `\n${notes.join('')}` : ''}`;
}
