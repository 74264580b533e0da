/**
 * The `validate` report for people: one line per problem, then a summary line.
 */
import pc from 'picocolors';
import {
  formatProblem,
  formatWarning,
  type ValidationReport,
} from '../validation/validate-documents.js';

/** Renders the report: problems, then warnings; the last line summarizes what was checked and found. */
export function renderReport(report: ValidationReport): string {
  const lines = [...report.problems.map(formatProblem), ...report.warnings.map(formatWarning)];
  const total = Object.values(report.checked).reduce((a, b) => a + b, 0);
  const kinds = Object.entries(report.checked)
    .map(([kind, n]) => `${n} ${kind}`)
    .join(', ');
  const files = `${report.files} file${report.files === 1 ? '' : 's'}`;
  const warned =
    report.warnings.length > 0
      ? `; ${report.warnings.length} warning${report.warnings.length === 1 ? '' : 's'}`
      : '';
  const skipped = `${
    report.skipped > 0
      ? `; ${report.skipped} other object${report.skipped === 1 ? '' : 's'} skipped`
      : ''
  }${warned}`;
  if (report.problems.length > 0) {
    const bad = new Set(report.problems.map((p) => `${p.file}:${p.document}:${p.object ?? ''}`))
      .size;
    lines.push(
      pc.red(
        `✗ ${report.problems.length} problem${report.problems.length === 1 ? '' : 's'} in ${bad} document${bad === 1 ? '' : 's'} (${total} object${total === 1 ? '' : 's'} checked in ${files}${skipped})`,
      ),
    );
  } else if (total === 0) {
    lines.push(
      `no NodePool, NodeClaim, NodeOverlay, NodeClass or workload found in ${files}${skipped}`,
    );
  } else {
    lines.push(
      pc.green(`✓ ${total} object${total === 1 ? '' : 's'} valid (${kinds}) in ${files}${skipped}`),
    );
  }
  return `${lines.join('\n')}\n`;
}
