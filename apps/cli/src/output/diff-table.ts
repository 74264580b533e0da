/**
 * The `diff` report as text: the two runs side by side, the change, then what the proposal
 * replaces, leaves pending, moves and what budgets hold.
 */
import type { DiffReport } from '../diff/diff-report.js';
import type { RunSummary } from '../diff/stable-run.js';
import { heading, renderTable } from './table.js';
import { formatUsd } from './units.js';
import { SHOWN_NAMES } from './name-list.js';
import pc from 'picocolors';

/** Renders a diff. */
export function renderDiff(report: DiffReport): string {
  const { current, proposed, change } = report;
  const signed = (n: number) => (n > 0 ? `+${n}` : String(n));
  const usd = (n: number) =>
    n > 0 ? `+${formatUsd(n)}` : n < 0 ? `-${formatUsd(-n)}` : formatUsd(0);
  const types = (r: RunSummary) =>
    r.instanceTypes.map((t) => `${t.count}× ${t.name}`).join(', ') || '-';
  const commands = (r: RunSummary) => {
    const byReason = new Map<string, number>();
    for (const c of r.commands) byReason.set(c.reason, (byReason.get(c.reason) ?? 0) + 1);
    return r.commands.length === 0
      ? '0'
      : `${r.commands.length} (${[...byReason].map(([k, v]) => `${k} ${v}`).join(', ')})`;
  };
  const stable = (r: RunSummary) => (r.stable ? 'yes' : 'no (2 h limit)');
  const allChanges = [
    ...report.proposal.replaced.map((x) => `replaces ${x}`),
    ...report.proposal.added.map((x) => `adds ${x}`),
  ];
  // A proposal of hundreds of objects: the first few, then how many more (-o json lists all).
  const changes =
    allChanges.length > SHOWN_NAMES
      ? [...allChanges.slice(0, SHOWN_NAMES), `and ${allChanges.length - SHOWN_NAMES} more`]
      : allChanges;
  const lines = [
    heading(
      `Diff at ${report.now} on ${report.cloud}${report.cloud === 'sim' ? '' : ` ${report.region}`}, each side run until stable: the proposal ${changes.join(', ') || 'changes nothing'}`,
    ),
    renderTable(
      ['', 'CURRENT', 'PROPOSED', 'CHANGE'],
      [
        ['nodes', String(current.nodes), String(proposed.nodes), signed(change.nodes)],
        [
          'USD/hour',
          formatUsd(current.pricePerHour),
          formatUsd(proposed.pricePerHour),
          usd(change.pricePerHour),
        ],
        [
          'pending pods',
          String(current.pendingPods.length),
          String(proposed.pendingPods.length),
          signed(change.pendingPods),
        ],
        ['pods that move', String(current.movedPods.length), String(proposed.movedPods.length), ''],
        ['commands', commands(current), commands(proposed), ''],
        ['instance types', types(current), types(proposed), ''],
        ['stable', stable(current), stable(proposed), ''],
      ],
    ),
  ];
  if (change.driftReplaced.length > 0)
    lines.push(`Drift replaces under the proposal: ${change.driftReplaced.join(', ')}\n`);
  if (change.newlyPending.length > 0)
    lines.push(`Pending only under the proposal: ${change.newlyPending.join(', ')}\n`);
  for (const b of proposed.blocked) lines.push(`Held under the proposal: ${b.node}: ${b.reason}\n`);
  for (const n of report.proposalNotes) lines.push(pc.dim(`note (proposal): ${n}\n`));
  return lines.join('');
}
