/**
 * Trace files: pods arriving over time, one CSV row each, read with csv-parse. The first line
 * names the columns (any order):
 *
 * | column | required | meaning |
 * | --- | --- | --- |
 * | `arrival` | yes | when the pod is created: seconds or a duration (`90s`, `1h30m`) from time 0 |
 * | `duration` | yes | how long it runs once bound (then it completes) |
 * | `cpu`, `memory` | yes | requests as Kubernetes quantities (`500m`, `2Gi`); `0` or empty for none |
 * | `gpu` | no | `nvidia.com/gpu` request (a count) |
 * | `namespace` | no | default `default` |
 * | `labels` | no | `key=value` pairs separated by `;` |
 * | `owner` | no | `Kind/name` (`Job/etl`); empty for a bare pod, which is not replaced once evicted |
 *
 * Lines starting with `#` and empty lines are skipped. Every problem is a {@link ScenarioProblem}
 * on the row's line, naming the column.
 */
import { parse } from 'csv-parse/sync';
import { parseQuantity } from '@karpenter-ts/scheduling';
import { durationSeconds } from './durations.js';
import type { ScenarioProblem } from './problems.js';
import type { TraceRow } from './types.js';

/** Every column a trace may have. */
export const TRACE_COLUMNS: readonly string[] = [
  'arrival',
  'duration',
  'namespace',
  'cpu',
  'memory',
  'gpu',
  'labels',
  'owner',
];
const REQUIRED = ['arrival', 'duration', 'cpu', 'memory'];
const DURATION = /^-?(\d+(\.\d+)?(d|h|ms|m|s))+$|^-?\d+(\.\d+)?$/;
const LABEL =
  /^([A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?\/)?[A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?$/;

/** The rows of a trace and the problems found (rows with problems are left out). */
export function readTrace(
  text: string,
  file: string,
): { rows: TraceRow[]; problems: ScenarioProblem[] } {
  const problems: ScenarioProblem[] = [];
  const problem = (line: number, field: string, message: string) =>
    problems.push({ file, line, field, message });
  let records: { record: Record<string, string>; info: { lines: number } }[];
  try {
    records = parse(text, {
      columns: (header: string[]) => header.map((h) => h.trim().toLowerCase()),
      info: true,
      skip_empty_lines: true,
      comment: '#',
      comment_no_infix: true,
      trim: true,
    }) as unknown as typeof records;
  } catch (error) {
    const e = error as Error & { lines?: number };
    problem(e.lines ?? 1, '', `CSV: ${e.message}`);
    return { rows: [], problems };
  }
  const header = firstLine(text);
  const columns = Object.keys(records[0]?.record ?? {});
  for (const c of columns)
    if (!TRACE_COLUMNS.includes(c))
      problem(header, c, `unknown column (known: ${TRACE_COLUMNS.join(', ')})`);
  for (const c of REQUIRED)
    if (records.length > 0 && !columns.includes(c)) problem(header, c, 'required column');
  if (problems.length > 0) return { rows: [], problems };
  const rows: TraceRow[] = [];
  for (const { record, info } of records) {
    const line = info.lines;
    const before = problems.length;
    const time = (column: string): number => {
      const text = record[column] ?? '';
      if (!DURATION.test(text)) {
        problem(
          line,
          column,
          `not a duration: ${JSON.stringify(text)} (seconds, or 90s, 15m, 1h30m)`,
        );
        return 0;
      }
      const seconds = durationSeconds(/[a-z]$/.test(text) ? text : Number(text));
      if (seconds < 0) problem(line, column, `${text} is before time 0`);
      return seconds;
    };
    const arrivalSeconds = time('arrival');
    const runSeconds = time('duration');
    const requests: Record<string, string> = {};
    for (const [column, resource] of [
      ['cpu', 'cpu'],
      ['memory', 'memory'],
      ['gpu', 'nvidia.com/gpu'],
    ] as const) {
      const value = record[column] ?? '';
      if (value === '') continue;
      let negative: boolean;
      try {
        negative = parseQuantity(value).nanos < 0n;
      } catch (error) {
        problem(
          line,
          column,
          `not a quantity: ${JSON.stringify(value)} (${(error as Error).message})`,
        );
        continue;
      }
      if (negative) problem(line, column, `negative request ${JSON.stringify(value)}`);
      else if (value !== '0') requests[resource] = value;
    }
    const labels: Record<string, string> = {};
    for (const pair of (record.labels ?? '').split(';').filter((p) => p.trim() !== '')) {
      const [key = '', value = ''] = pair.split('=', 2).map((s) => s.trim());
      if (!LABEL.test(key) || !/^([A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?)?$/.test(value))
        problem(line, 'labels', `not a key=value label: ${JSON.stringify(pair)}`);
      else labels[key] = value;
    }
    const ownerText = record.owner ?? '';
    let owner: TraceRow['owner'];
    if (ownerText !== '') {
      const m = /^([A-Z][A-Za-z]*)\/([a-z0-9]([-a-z0-9.]*[a-z0-9])?)$/.exec(ownerText);
      if (m === null) problem(line, 'owner', `not Kind/name: ${JSON.stringify(ownerText)}`);
      else owner = { kind: m[1] ?? '', name: m[2] ?? '' };
    }
    if (problems.length > before) continue;
    rows.push({
      arrivalSeconds,
      runSeconds,
      owner,
      line,
      pod: {
        namespace: record.namespace || 'default',
        requests,
        labels,
        nodeSelector: {},
        tolerations: [],
      },
    });
  }
  return { rows, problems };
}

/** The 1-based line of the header (after leading comments and blank lines). */
function firstLine(text: string): number {
  const lines = text.split('\n');
  const i = lines.findIndex((l) => l.trim() !== '' && !l.trimStart().startsWith('#'));
  return i < 0 ? 1 : i + 1;
}
