/**
 * The `disrupt` report as text: a header, the commands, every node with its verdict, the
 * budgets per NodePool and reason, then what the reader ignored and the notes.
 */
import type { BudgetReport } from '../disrupt/budgets-report.js';
import type { CommandReport } from '../disrupt/commands-report.js';
import type { DisruptionReport } from '../disrupt/disruption-report.js';
import { heading, renderTable } from './table.js';
import { formatUsd } from './units.js';

/** Replacement options a table row names (the JSON lists more). */
const TABLE_OPTIONS = 3;

/** Renders the report of one pass. */
export function renderDisruption(report: DisruptionReport): string {
  const managed = report.nodes.filter((n) => n.status !== 'unmanaged').length;
  const lines: string[] = [
    heading(
      `Disruption pass at ${report.now} on ${report.cloud}${report.cloud === 'sim' ? '' : ` ${report.region}`}: ${report.nodes.length} node(s), ${managed} managed, ${report.pendingPods} pending pod(s)`,
    ),
  ];
  lines.push(renderCommands(report.commands, report.method));
  lines.push(renderNodes(report));
  lines.push(renderBudgets(report.budgets));
  lines.push(renderFooter(report));
  return lines.join('\n');
}

/** The commands section (also used for each pass of `--until-stable`). */
export function renderCommands(commands: readonly CommandReport[], method?: string): string {
  if (commands.length === 0) return 'No command: no method found a node to disrupt.\n';
  const rows = commands.flatMap((c, i) => {
    const candidates = c.candidates.map(
      (x) =>
        `${x.name} (${x.instanceType ?? '?'} ${x.capacityType ?? ''}, ${formatUsd(x.pricePerHour)}, ${x.pods} pod(s))`,
    );
    const replacements =
      c.replacements.length === 0
        ? ['-']
        : c.replacements.map((r) => {
            const shown = r.instanceTypeOptions.slice(0, TABLE_OPTIONS);
            const more = r.options > shown.length ? ` (+${r.options - shown.length} more)` : '';
            const launch = r.launch
              ? ` → ${r.launch.instanceType} ${r.launch.zone} ${r.launch.capacityType} ${formatUsd(r.launch.pricePerHour)}`
              : ' → no available offering';
            return `${shown.join(', ')}${more}${launch}`;
          });
    const height = Math.max(candidates.length, replacements.length);
    return Array.from({ length: height }, (_, j) => [
      j === 0 ? String(i + 1) : '',
      j === 0 ? c.decision : '',
      j === 0 ? c.reason : '',
      candidates[j] ?? '',
      replacements[j] ?? '',
      j === 0 ? formatUsd(c.savingsPerHour) : '',
    ]);
  });
  return (
    heading(`Commands (${method ?? commands[0]!.method}):`) +
    renderTable(
      ['#', 'DECISION', 'REASON', 'CANDIDATES', 'REPLACEMENT OPTIONS → LAUNCH', 'SAVINGS/HOUR'],
      rows,
      ['right', 'left', 'left', 'left', 'left', 'right'],
    )
  );
}

function renderNodes(report: DisruptionReport): string {
  if (report.nodes.length === 0) return 'No nodes.\n';
  return (
    heading('Nodes:') +
    renderTable(
      ['NODE', 'NODEPOOL', 'INSTANCE TYPE', 'ZONE', 'CAPACITY', 'USD/HOUR', 'PODS', 'VERDICT'],
      report.nodes.map((n) => [
        n.name,
        n.nodePool ?? '-',
        n.instanceType ?? '-',
        n.zone ?? '-',
        n.capacityType ?? '-',
        n.pricePerHour === undefined ? '-' : formatUsd(n.pricePerHour),
        String(n.pods),
        n.reason,
      ]),
      ['left', 'left', 'left', 'left', 'left', 'right', 'right', 'left'],
    )
  );
}

/** The budgets section: one row per NodePool, one column per reason. */
export function renderBudgets(budgets: readonly BudgetReport[]): string {
  if (budgets.length === 0) return '';
  const pools = [...new Set(budgets.map((b) => b.nodePool))];
  const cell = (b: BudgetReport | undefined) => {
    if (b === undefined) return '-';
    if (b.error !== undefined) return `0 (${b.error})`;
    const limit = b.limitedBy
      ? ` (${b.limitedBy}${b.disrupting > 0 ? `, ${b.disrupting} disrupting` : ''})`
      : '';
    return `${b.allowed}${limit}`;
  };
  return (
    heading('Allowed disruptions now (budgets):') +
    renderTable(
      ['NODEPOOL', 'NODES', 'EMPTY', 'DRIFTED', 'UNDERUTILIZED'],
      pools.map((pool) => {
        const of = (reason: string) =>
          budgets.find((b) => b.nodePool === pool && b.reason === reason);
        return [
          pool,
          String(of('Empty')?.nodes ?? 0),
          cell(of('Empty')),
          cell(of('Drifted')),
          cell(of('Underutilized')),
        ];
      }),
    )
  );
}

function renderFooter(report: DisruptionReport): string {
  const lines: string[] = [];
  for (const w of report.workloads)
    lines.push(`${w.workload}: ${w.present} pod(s) in the snapshot, ${w.pending} more pending`);
  const ignored = new Map<string, number>();
  for (const i of report.ignored) {
    const k = `${i.kind}: ${i.reason}`;
    ignored.set(k, (ignored.get(k) ?? 0) + 1);
  }
  for (const [k, count] of ignored) lines.push(`ignored ${count} ${k}`);
  for (const note of report.notes) lines.push(`note: ${note}`);
  lines.push(
    report.commands.length > 0
      ? `Would act: ${report.commands.length} command(s) (exit 1 with --fail-on-command).`
      : 'Nothing to do.',
  );
  return `${lines.join('\n')}\n`;
}
