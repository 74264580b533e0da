/**
 * The `compare` table: one row per cloud and region.
 */
import pc from 'picocolors';
import type { ComparisonRow } from '../simulation/comparison.js';
import { renderTable } from './table.js';
import { formatPercent, formatUsd } from './units.js';

/** Renders comparison rows; the cheapest run that schedules every pod is highlighted. Notes follow the table. */
export function renderComparison(rows: readonly ComparisonRow[]): string {
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
