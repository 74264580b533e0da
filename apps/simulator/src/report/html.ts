/**
 * The HTML report: one self-contained file from the measures (format `karpenter-ts-sim/v1`),
 * viewable with no network. It holds, inline: Chart.js (the pinned `chart.js` package's UMD
 * build, MIT, its licence banner kept), the page script and styles (`assets/report.js`,
 * `assets/report.css`), the report data as JSON (see {@link reportData}), and the summary table
 * and notes as plain HTML (readable even with scripts off).
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import type { SimulationOutput } from '../measures/format.js';
import { reportData } from './report-data.js';
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

/** The report page for `output` (every run in it), as HTML text. */
export function reportHtml(output: SimulationOutput): string {
  const { chartJs, script, css } = assets();
  const data = reportData(output);
  const s = output.scenario;
  const figures = data.charts
    .map(
      (c) =>
        `<figure data-chart="${escapeHtml(c.id)}"${c.kind === 'events' ? ' class="events"' : ''}><canvas role="img" aria-label="${escapeHtml(c.title)}"></canvas></figure>`,
    )
    .join('\n');
  const rows = summaryRows(output)
    .map((row) => `<tr>${row.map((cell) => `<td>${escapeHtml(cell)}</td>`).join('')}</tr>`)
    .join('\n');
  const notes = output.runs
    .flatMap((run) => run.notes.map((n) => `<li>${escapeHtml(run.id)}: ${escapeHtml(n)}</li>`))
    .join('\n');
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="generator" content="karpenter-ts-sim (${escapeHtml(output.format)})">
<title>${escapeHtml(data.title)}</title>
<style>
${css}</style>
</head>
<body>
<h1>${escapeHtml(s.name)}</h1>
<p class="meta">Scenario <code>${escapeHtml(s.file)}</code>, seed ${s.seed}, from ${escapeHtml(s.start)} for ${formatHours(s.durationSeconds)}, sampled every ${s.sampleSeconds} s. ${output.runs.length} run${output.runs.length === 1 ? '' : 's'}.</p>
<h2>Summary</h2>
<table class="summary">
<thead><tr>${SUMMARY_COLUMNS.map((c) => `<th>${escapeHtml(c)}</th>`).join('')}</tr></thead>
<tbody>
${rows}
</tbody>
</table>
<h2>Over time</h2>
${figures}
${notes === '' ? '' : `<h2>Notes</h2>\n<ul class="notes">\n${notes}\n</ul>`}
<script id="report-data" type="application/json">${JSON.stringify(data).replaceAll('<', '\\u003c')}</script>
<script>
${inlineScript(chartJs, 'chart.js')}
</script>
<script>
${inlineScript(script, 'assets/report.js')}</script>
</body>
</html>
`;
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
