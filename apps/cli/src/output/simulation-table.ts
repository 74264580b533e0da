/**
 * The `simulate` table: a header naming cloud, region and NodePools, one row per node claim,
 * totals, then pending pods with their reason.
 */
import pc from 'picocolors';
import { podName, type Simulation } from '../simulation/simulate.js';
import { groupPendingPods } from '../simulation/pending-groups.js';
import { totals, utilization } from '../simulation/report.js';
import { formatRequirement } from './requirement-text.js';
import { renderTable } from './table.js';
import { formatCores, formatGiB, formatPercent, formatUsd } from './units.js';
import { cloudPlace } from './cloud-place.js';
import { quotedNames } from './name-list.js';
import { condensedReason } from './pending-reason.js';

/** Renders a simulation for people. */
export function renderSimulation(simulation: Simulation): string {
  const out: string[] = [];
  const { cloud } = simulation;
  const names = simulation.pools.map((p) => p.nodePool.metadata.name ?? '');
  // Every NodePool may have been left out (the notes say why): there is no list to print.
  const pools =
    names.length === 0
      ? 'no usable NodePool'
      : `NodePool${names.length === 1 ? '' : 's'} ${quotedNames(names)}`;
  out.push(`${pc.bold(`Simulation on ${cloudPlace(cloud)}`)} with ${pools}\n`);
  out.push(...retargetedLines(simulation));
  for (const note of simulation.notes) out.push(`${pc.dim(`note: ${note}`)}\n`);
  out.push('\n');

  const t = totals(simulation);
  const u = utilization(simulation);
  if (simulation.nodeClaims.length > 0) {
    const rows = simulation.nodeClaims.map((c) => {
      const alloc = c.launch.instanceType.allocatable();
      return [
        c.nodePool,
        c.launch.instanceType.name,
        c.launch.offering.zone,
        c.launch.offering.capacityType,
        formatUsd(c.launch.offering.price),
        String(c.pods.length),
        `${formatCores(c.requests.cpu ?? 0)}/${formatCores(alloc.cpu ?? 0)}`,
        `${formatGiB(c.requests.memory ?? 0)}/${formatGiB(alloc.memory ?? 0)}`,
      ];
    });
    rows.push([
      pc.bold('TOTAL'),
      `${t.nodes} node${t.nodes === 1 ? '' : 's'}`,
      '',
      '',
      pc.bold(formatUsd(t.pricePerHour)),
      String(simulation.nodeClaims.reduce((n, c) => n + c.pods.length, 0)),
      `${formatCores(u.cpuRequested)}/${formatCores(u.cpuAllocatable)} (${formatPercent(u.cpuRequested, u.cpuAllocatable)})`,
      `${formatGiB(u.memoryRequested)}/${formatGiB(u.memoryAllocatable)} (${formatPercent(u.memoryRequested, u.memoryAllocatable)})`,
    ]);
    out.push(
      renderTable(
        [
          'NODEPOOL',
          'INSTANCE TYPE',
          'ZONE',
          'CAPACITY TYPE',
          'USD/HOUR',
          'PODS',
          'CPU REQ/ALLOC',
          'MEMORY REQ/ALLOC',
        ],
        rows,
        ['left', 'left', 'left', 'left', 'right', 'right', 'right', 'right'],
      ),
    );
  } else {
    out.push('No new node claims.\n');
  }
  for (const n of simulation.existingNodes.filter((e) => e.pods.length > 0))
    out.push(`existing node ${n.name}: ${n.pods.length} pod(s)\n`);
  out.push('\n');
  const month = t.pricePerHour * 730;
  out.push(
    `${t.scheduledPods} of ${t.pods} pods scheduled on ${t.nodes} new node${t.nodes === 1 ? '' : 's'} in ${simulation.rounds} provisioning round${simulation.rounds === 1 ? '' : 's'}; ${formatUsd(t.pricePerHour)}/hour (~$${month.toFixed(2)}/month at 730 hours).\n`,
  );
  if (simulation.podErrors.length > 0) {
    out.push(`\n${pc.yellow(pc.bold(`Pending pods (${simulation.podErrors.length}):`))}\n`);
    for (const group of groupPendingPods(simulation.podErrors))
      out.push(`  ${pendingPods(group.pods.map(podName))}: ${condensedReason(group.reason)}\n`);
  }
  return out.join('');
}

/** `ns/a` for one pod; `3 pods (ns/a, ns/b, ns/c)`; `63 pods (ns/a, ns/b, ns/c and 60 more)`. */
function pendingPods(names: readonly string[]): string {
  if (names.length === 1) return names[0]!;
  const shown = names.slice(0, 3).join(', ');
  const more = names.length > 3 ? ` and ${names.length - 3} more` : '';
  return `${names.length} pods (${shown}${more})`;
}

/**
 * One line per distinct set of requirements retargeting dropped, naming its NodePools (the
 * first few when many: a file of hundreds of copies of one NodePool gives one line, not hundreds).
 */
function retargetedLines(simulation: Simulation): string[] {
  const byDrop = new Map<string, string[]>();
  for (const pool of simulation.pools) {
    if (pool.droppedRequirements.length === 0) continue;
    const drop = `retargeted to ${String(pool.nodeClass.kind)}: dropped ${pool.droppedRequirements.map(formatRequirement).join(', ')}`;
    const name = pool.nodePool.metadata.name ?? '';
    const names = byDrop.get(drop);
    if (names) names.push(name);
    else byDrop.set(drop, [name]);
  }
  return [...byDrop].map(([drop, names]) =>
    pc.yellow(`NodePool${names.length === 1 ? '' : 's'} ${quotedNames(names)} ${drop}\n`),
  );
}
