/**
 * The `compare` table: one row per cloud and region, then footnotes on modelled prices, why
 * pods stayed pending (with the `explain` command that says more), and notes.
 */
import pc from 'picocolors';
import type { ComparisonRow } from '../simulation/comparison.js';
import { renderTable } from './table.js';
import { formatPercent, formatUsd } from './units.js';
import { cloudPlace } from './cloud-place.js';
import { condensedReason } from './pending-reason.js';

/** What the comparison ran on, so the table can print an `explain` command to run next. */
export interface ComparisonInput {
  /** The paths given to `compare`. */
  paths: readonly string[];
  /** `--scale`; omitted from the suggested command when 1. */
  scale: number;
}

const MARKERS = ['¹', '²', '³', '⁴', '⁵', '⁶', '⁷', '⁸', '⁹'];

/**
 * Renders comparison rows; the cheapest run that schedules every pod is highlighted. A run that
 * launched spot at modelled prices gets a footnote marker on its price; pending pods are
 * summarized per run (largest reason first); notes follow.
 */
export function renderComparison(rows: readonly ComparisonRow[], input: ComparisonInput): string {
  const cheapest = Math.min(
    ...rows.map((r) =>
      r.totals.scheduledPods === r.totals.pods ? r.totals.pricePerHour : Infinity,
    ),
  );
  // One marker per distinct pricing model, in row order.
  const models = [...new Set(rows.flatMap((r) => (r.spotPricing ? [r.spotPricing] : [])))];
  const marker = (r: ComparisonRow): string =>
    r.spotPricing ? (MARKERS[models.indexOf(r.spotPricing)] ?? '*') : '';
  const table = renderTable(
    [
      'CLOUD',
      'REGION',
      'NODEPOOLS',
      'NODES',
      'CAPACITY TYPES',
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
      const noNodes = r.totals.nodes === 0;
      return [
        r.cloud,
        r.region,
        nodePoolsCell(r),
        String(r.totals.nodes),
        r.capacityTypes.map((c) => `${c.capacityType} ${c.count}`).join(' / ') || '-',
        String(r.totals.scheduledPods),
        String(r.totals.pods - r.totals.scheduledPods),
        (r.totals.pricePerHour === cheapest ? pc.green(price) : price) + marker(r),
        `$${r.pricePerMonth.toFixed(2)}${marker(r)}`,
        noNodes ? '-' : formatPercent(r.cpuUtilization, 1),
        noNodes ? '-' : formatPercent(r.memoryUtilization, 1),
        r.instanceTypes
          .slice(0, 3)
          .map((t) => `${t.count}× ${t.name}`)
          .join(', ') + (r.instanceTypes.length > 3 ? ', …' : ''),
      ];
    }),
    [
      'left',
      'left',
      'left',
      'right',
      'left',
      'right',
      'right',
      'right',
      'right',
      'right',
      'right',
      'left',
    ],
  );
  const footnotes = models.map((model, i) => {
    const where = rows
      .filter((r) => r.spotPricing === model)
      .map((r) => cloudPlace({ name: r.cloud, region: r.region }));
    return `${MARKERS[i] ?? '*'} ${[...new Set(where)].join(', ')}: ${model}\n`;
  });
  const pending = rows.flatMap((r) => pendingLines(r, input));
  const notes = rows.flatMap((r) =>
    r.notes.map((n) => pc.dim(`note (${cloudPlace({ name: r.cloud, region: r.region })}): ${n}\n`)),
  );
  return [
    table,
    footnotes.join(''),
    pending.length > 0 ? `\n${pc.yellow(pc.bold('Pending pods:'))}\n${pending.join('')}` : '',
    notes.length > 0 ? `\n${notes.join('')}` : '',
  ].join('');
}

/**
 * NodePools a row names before it counts the rest: a cell of hundreds of names is unreadable,
 * and cli-table3 lays a cell out in time quadratic in its length (500 NodePools took minutes).
 */
const MAX_NODEPOOLS_SHOWN = 5;

/**
 * NodePool names, the first {@link MAX_NODEPOOLS_SHOWN}; a retargeted pool's dropped
 * requirements on the lines under its name; then how many more (`-o json` lists every one).
 */
function nodePoolsCell(row: ComparisonRow): string {
  const shown = row.nodePools.slice(0, MAX_NODEPOOLS_SHOWN).map((name) => {
    const dropped = row.droppedRequirements.find((d) => d.nodePool === name);
    return dropped
      ? [name, ...dropped.requirements.map((r) => pc.yellow(`  dropped: ${r}`))].join('\n')
      : name;
  });
  const more = row.nodePools.length - shown.length;
  return shown.join(',\n') + (more > 0 ? `,\n… ${more} more NodePools (-o json lists all)` : '');
}

/** The largest pending group of a run, how many other reasons there are, and what to run next. */
function pendingLines(row: ComparisonRow, input: ComparisonInput): string[] {
  const first = row.pending[0];
  if (!first) return [];
  const others = row.pending.slice(1);
  const otherPods = others.reduce((n, g) => n + g.pods, 0);
  const rest =
    others.length > 0
      ? ` (and ${otherPods} pod${otherPods === 1 ? '' : 's'} for ${others.length} other reason${others.length === 1 ? '' : 's'})`
      : '';
  const command = [
    'karpenter-ts explain',
    ...input.paths.map(shellWord),
    `--cloud ${row.cloud}`,
    ...(row.cloud === 'sim' ? [] : [`--region ${row.region}`]),
    ...(input.scale === 1 ? [] : [`--scale ${input.scale}`]),
    `--pod ${shellWord(first.examplePod)}`,
  ].join(' ');
  return [
    `  ${cloudPlace({ name: row.cloud, region: row.region })}: ${first.pods} pod${first.pods === 1 ? '' : 's'}: ${condensedReason(first.reason)}${rest}\n`,
    pc.dim(`    why: ${command}\n`),
  ];
}

/** `word`, single-quoted when the shell would split or expand it. */
function shellWord(word: string): string {
  return /^[\w@%+=:,./-]+$/.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`;
}
