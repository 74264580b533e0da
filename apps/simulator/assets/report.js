// The HTML report's page script (inlined by src/report/html.ts after Chart.js): draws every
// chart of every scenario section of the embedded report data (src/report/report-data.ts) with
// Chart.js, each section on its own time axis, and records on
// window.karpenterTsReport how many points each series drew, for the browser test and for anyone
// checking the page by hand. No network: everything it needs is in the page.
/* global Chart, CSS, document, window */
(function () {
  'use strict';
  const data = JSON.parse(document.getElementById('report-data').textContent);
  const palette = [
    '#1f77b4',
    '#ff7f0e',
    '#2ca02c',
    '#d62728',
    '#9467bd',
    '#8c564b',
    '#e377c2',
    '#7f7f7f',
    '#bcbd22',
    '#17becf',
    '#393b79',
    '#637939',
    '#8c6d31',
    '#843c39',
    '#7b4173',
    '#3182bd',
    '#e6550d',
    '#31a354',
  ];
  // One section per scenario: its own time axis (start, length) and run colours.
  function axisOf(section) {
    const start = Date.parse(section.start);
    // Hours since time 0 as the clock time (UTC), with the day when the scenario is longer than one.
    const clock = (hours) => {
      const d = new Date(start + hours * 3600 * 1000);
      const hm = d.toISOString().slice(11, 16);
      return section.durationHours > 24 ? `d${Math.floor(hours / 24) + 1} ${hm}` : hm;
    };
    const runIds = [];
    for (const chart of section.charts)
      for (const s of chart.series)
        if (s.run !== undefined && !runIds.includes(s.run)) runIds.push(s.run);
    return {
      clock,
      runColor: (run) => palette[runIds.indexOf(run) % palette.length],
      timeAxis: {
        type: 'linear',
        min: 0,
        max: section.durationHours,
        title: { display: true, text: 'time (UTC)' },
        ticks: { callback: (value) => clock(Number(value)), maxTicksLimit: 13 },
      },
    };
  }

  function lineConfig(chart, { clock, runColor, timeAxis }) {
    return {
      type: 'line',
      data: {
        datasets: chart.series.map((s, i) => {
          const color = chart.stacked ? palette[i % palette.length] : runColor(s.run);
          return {
            label: s.label,
            data: s.points.map(([x, y]) => ({ x, y })),
            borderColor: color,
            backgroundColor: chart.stacked ? color + 'aa' : color,
            borderWidth: chart.stacked ? 1 : 2,
            borderDash: s.dashed ? [5, 4] : [],
            fill: chart.stacked ? (i === 0 ? 'origin' : '-1') : false,
            stepped: chart.stepped ? 'after' : false,
            pointRadius: chart.markers ? 3 : 0,
            pointHitRadius: 4,
            spanGaps: false,
          };
        }),
      },
      options: {
        animation: false,
        responsive: true,
        maintainAspectRatio: false,
        interaction: { mode: 'nearest', axis: 'x', intersect: false },
        scales: {
          x: timeAxis,
          y: {
            stacked: chart.stacked,
            beginAtZero: true,
            title: { display: true, text: chart.yLabel },
          },
        },
        plugins: {
          title: { display: true, text: chart.title },
          tooltip: { callbacks: { title: (items) => clock(items[0].parsed.x) } },
        },
      },
    };
  }

  function eventsConfig(chart, { clock, timeAxis }) {
    const shapes = ['circle', 'triangle', 'rect', 'rectRot', 'crossRot', 'star', 'cross'];
    return {
      type: 'scatter',
      data: {
        datasets: chart.series.map((s, i) => ({
          label: s.label,
          data: s.points.map((p) => ({ x: p.hours, y: p.run, detail: p.detail })),
          pointStyle: shapes[i % shapes.length],
          pointRadius: 6,
          borderColor: palette[i % palette.length],
          backgroundColor: palette[i % palette.length] + '99',
        })),
      },
      options: {
        animation: false,
        responsive: true,
        maintainAspectRatio: false,
        scales: {
          x: timeAxis,
          y: { type: 'category', labels: chart.runs, offset: true },
        },
        plugins: {
          title: { display: true, text: chart.title },
          tooltip: {
            callbacks: {
              title: (items) => clock(items[0].parsed.x),
              label: (item) => `${item.dataset.label}: ${item.raw.detail}`,
            },
          },
        },
      },
    };
  }

  const drawn = {};
  for (const section of data.sections) {
    const axis = axisOf(section);
    for (const chart of section.charts) {
      const canvas = document.querySelector(`figure[data-chart="${CSS.escape(chart.id)}"] canvas`);
      const instance = new Chart(
        canvas,
        chart.kind === 'events' ? eventsConfig(chart, axis) : lineConfig(chart, axis),
      );
      drawn[chart.id] = chart.series.map((s, i) => ({
        label: s.label,
        // Elements Chart.js laid out and did not skip (a null value is a skipped point: a gap).
        points: instance.getDatasetMeta(i).data.filter((el) => !el.skip).length,
      }));
    }
  }
  window.karpenterTsReport = { charts: drawn };
})();
