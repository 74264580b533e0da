/**
 * The `disrupt --until-stable` report as text: each command as it started (with what its
 * replacements launched as), the cost before and after, then the last pass as `disrupt` prints
 * one.
 */
import type { StabilizationReport } from '../disrupt/until-stable.js';
import { renderDisruption } from './disruption-table.js';
import { heading, renderTable } from './table.js';
import { formatUsd } from './units.js';

/** Renders a run until stable. */
export function renderStabilization(report: StabilizationReport): string {
  const head = heading(
    `Disruption from ${report.start} until ${report.stable ? 'stable' : 'the 2 h limit, not stable'} at ${report.end}: ${report.commands.length} command(s), ${formatUsd(report.costBefore)} → ${formatUsd(report.costAfter)} per hour`,
  );
  const rows = report.commands.map((c, i) => [
    String(i + 1),
    c.at,
    `${c.decision} (${c.method}, ${c.reason})`,
    c.candidates.map((x) => `${x.name} (${x.instanceType ?? '?'})`).join(', '),
    c.launched.length > 0
      ? c.launched
          .map((l) => `${l.instanceType} ${l.zone} ${l.capacityType} ${formatUsd(l.pricePerHour)}`)
          .join(', ')
      : c.replacements.length > 0
        ? 'not launched'
        : '-',
    formatUsd(c.savingsPerHour),
  ]);
  const table =
    rows.length === 0
      ? report.stable
        ? 'No command: the cluster is already stable.\n'
        : 'No command within the limit: a node becomes consolidatable, or a budget window ends, only after it.\n'
      : renderTable(['#', 'STARTED', 'COMMAND', 'CANDIDATES', 'LAUNCHED', 'SAVINGS/HOUR'], rows, [
          'right',
          'left',
          'left',
          'left',
          'left',
          'right',
        ]);
  return `${head}${table}\n${heading('Then:')}${renderDisruption(report.final)}`;
}
