/**
 * Human-readable tables (cli-table3) with plain ASCII-friendly borders and no colors unless the
 * terminal supports them (picocolors follows NO_COLOR / FORCE_COLOR and TTY detection).
 */
import Table from 'cli-table3';
import pc from 'picocolors';

/** Alignment per column: `left` (text) or `right` (numbers). */
export type Align = 'left' | 'right';

/**
 * Renders rows under `head` as a compact table. `align` gives each column's alignment (default
 * left). Cells are strings; callers format numbers.
 */
export function renderTable(
  head: readonly string[],
  rows: readonly (readonly string[])[],
  align: readonly Align[] = [],
): string {
  const table = new Table({
    head: head.map((h) => pc.bold(h)),
    colAligns: head.map((_, i) => align[i] ?? 'left'),
    style: { head: [], border: [], compact: true, 'padding-left': 1, 'padding-right': 1 },
    chars: {
      top: '',
      'top-mid': '',
      'top-left': '',
      'top-right': '',
      bottom: '',
      'bottom-mid': '',
      'bottom-left': '',
      'bottom-right': '',
      left: '',
      'left-mid': '',
      mid: '',
      'mid-mid': '',
      right: '',
      'right-mid': '',
      middle: ' ',
    },
  });
  for (const row of rows) table.push([...row]);
  return `${table.toString()}\n`;
}

/** A bold section heading line. */
export function heading(text: string): string {
  return `${pc.bold(text)}\n`;
}
