/**
 * The HTML report: one self-contained file from the measures (format `karpenter-ts-sim/v1`),
 * viewable with no network. It holds, inline: Chart.js (the pinned `chart.js` package's UMD
 * build, MIT, its licence banner kept), the page script and styles (`assets/report.js`,
 * `assets/report.css`), the report data as JSON (see {@link reportPage}), and the summary table
 * and notes as plain HTML (readable even with scripts off).
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import type { SimulationOutput } from '../measures/format.js';
import { reportPage } from './report-data.js';
import { SUMMARY_COLUMNS, summaryRows } from './summary-rows.js';

const ASSETS = new URL('../../assets/', import.meta.url);

let inlined: { chartJs: string; script: string; css: string } | undefined;

/** Chart.js and the page's own script and styles, read once. */
function assets(): { chartJs: string; script: string; css: string } {
  if (inlined === undefined) {
    // chart.js exports only its ESM and CJS entries; the UMD build sits beside them in dist/.
    const entry = createRequire(import.meta.url).resolve('chart.js');
    inlined = {
      chartJs: readFileSync(join(dirname(entry), 'chart.umd.min.js'), 'utf8'),
      script: readFileSync(new URL('report.js', ASSETS), 'utf8'),
      css: readFileSync(new URL('report.css', ASSETS), 'utf8'),
    };
  }
  return inlined;
}

/**
 * The report page as HTML text: of one output (every run in it), or of several scenarios' outputs
 * (a sweep; names must differ, see `groupOutputs`), one summary table holding every run grouped
 * by scenario, then each scenario's charts and notes on its own time axis. `title` heads a page
 * of several scenarios (default: their names).
 */
export function reportHtml(
  outputs: SimulationOutput | readonly SimulationOutput[],
  title?: string,
): string {
  const list: readonly SimulationOutput[] = Array.isArray(outputs)
    ? outputs
    : [outputs as SimulationOutput];
  const first = list[0];
  if (first === undefined) throw new Error('reportHtml: no output to report');
  const { chartJs, script, css } = assets();
  const page = reportPage(list, title);
  const several = list.length > 1;
  const heading = several
    ? (title ?? list.map((o) => o.scenario.name).join(', '))
    : first.scenario.name;
  const columns = several ? ['scenario', ...SUMMARY_COLUMNS] : [...SUMMARY_COLUMNS];
  const bodies = list
    .map((output) => {
      const rows = summaryRows(output)
        .map((row) => (several ? [output.scenario.name, ...row] : row))
        .map((row) => `<tr>${row.map((cell) => `<td>${escapeHtml(cell)}</td>`).join('')}</tr>`)
        .join('\n');
      return `<tbody data-scenario="${escapeHtml(output.scenario.name)}">\n${rows}\n</tbody>`;
    })
    .join('\n');
  const sections = list
    .map((output, k) => {
      const data = page.sections[k]!;
      const figures = data.charts
        .map(
          (c) =>
            `<figure data-chart="${escapeHtml(c.id)}"${c.kind === 'events' ? ' class="events"' : ''}><canvas role="img" aria-label="${escapeHtml(`${several ? `${output.scenario.name}: ` : ''}${c.title}`)}"></canvas></figure>`,
        )
        .join('\n');
      const notes = output.runs
        .flatMap((run) => run.notes.map((n) => `<li>${escapeHtml(run.id)}: ${escapeHtml(n)}</li>`))
        .join('\n');
      const notesHtml =
        notes === ''
          ? ''
          : `<h${several ? 3 : 2}>Notes</h${several ? 3 : 2}>\n<ul class="notes">\n${notes}\n</ul>\n`;
      const body = `<h${several ? 3 : 2}>Over time</h${several ? 3 : 2}>\n${figures}\n${notesHtml}`;
      return several
        ? `<section data-scenario="${escapeHtml(output.scenario.name)}">\n<h2>${escapeHtml(output.scenario.name)}</h2>\n${meta(output)}\n${body}</section>`
        : body;
    })
    .join('\n');
  const runs = list.reduce((n, o) => n + o.runs.length, 0);
  const intro = several
    ? `<p class="meta">${list.length} scenarios, ${runs} run${runs === 1 ? '' : 's'}: ${escapeHtml(list.map((o) => o.scenario.name).join(', '))}.</p>`
    : meta(first);
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="generator" content="karpenter-ts-sim (${escapeHtml(first.format)})">
<title>${escapeHtml(page.title)}</title>
<style>
${css}</style>
</head>
<body>
<h1>${escapeHtml(heading)}</h1>
${intro}
<h2>Summary</h2>
<table class="summary">
<thead><tr>${columns.map((c) => `<th>${escapeHtml(c)}</th>`).join('')}</tr></thead>
${bodies}
</table>
${sections}
<script id="report-data" type="application/json">${JSON.stringify(page).replaceAll('<', '\\u003c')}</script>
<script>
${inlineScript(chartJs, 'chart.js')}
</script>
<script>
${inlineScript(script, 'assets/report.js')}</script>
</body>
</html>
`;
}

/** The line saying what was run: file, seed, start, length, sample interval, runs. */
function meta(output: SimulationOutput): string {
  const s = output.scenario;
  return `<p class="meta">Scenario <code>${escapeHtml(s.file)}</code>, seed ${s.seed}, from ${escapeHtml(s.start)} for ${formatHours(s.durationSeconds)}, sampled every ${s.sampleSeconds} s. ${output.runs.length} run${output.runs.length === 1 ? '' : 's'}.</p>`;
}

function formatHours(seconds: number): string {
  const h = seconds / 3600;
  return Number.isInteger(h) ? `${h} h` : `${Math.round(h * 100) / 100} h`;
}

function escapeHtml(text: string): string {
  return text
    .replaceAll('&', '&amp;')
    .replaceAll('<', '&lt;')
    .replaceAll('>', '&gt;')
    .replaceAll('"', '&quot;');
}

/**
 * A script to put inside `<script>`: raises Error when it holds `</script` or `<!--`, which
 * would end or change the element early (rewriting code to escape them is not safe in general).
 */
function inlineScript(code: string, name: string): string {
  if (/<\/script|<!--/i.test(code))
    throw new Error(`${name} holds </script or <!-- and cannot be inlined in the report`);
  return code;
}
