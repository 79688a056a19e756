/* spotledger dashboard: Chart.js set-up (from /vendor/, optional: the page
 * says so when it is missing), the cost-per-task trend and the cost split. */
import { api } from './api.js';
import { $, CARD_ORDER, COLORS, configName, DASH, el, errorBox, F } from './dom.js';
import { state, viewParams } from './state.js';

export const charts = {};

export function chartsAvailable() {
  return typeof window.Chart === 'function';
}

const reduceMotion = window.matchMedia && window.matchMedia('(prefers-reduced-motion: reduce)').matches;

export function makeChart(id, config) {
  if (!chartsAvailable()) {
    const canvas = $(id);
    if (canvas && !canvas.dataset.noChart) {
      canvas.dataset.noChart = '1';
      canvas.parentNode.append(el('p', { class: 'placeholder', text: 'Charts are unavailable (Chart.js was not found under /vendor/).' }));
    }
    return;
  }
  if (charts[id]) charts[id].destroy();
  config.options = Object.assign({ responsive: true, maintainAspectRatio: false, animation: reduceMotion ? false : { duration: 250 } }, config.options || {});
  charts[id] = new window.Chart($(id), config);
}

function stepForWindow() {
  if (state.step !== 'auto') return state.step;
  return state.window === '30d' || state.window === 'custom' ? '1w' : '1d';
}

export async function loadTrend(gen) {
  const step = stepForWindow();
  try {
    const ts = await api('timeseries', Object.assign(viewParams(), { step, metric: 'cost_per_task' }));
    if (gen !== state.generation) return;
    const series = Array.isArray(ts.series) ? ts.series : [];
    const labels = [];
    for (const s of series) for (const p of s.points || []) if (!labels.includes(p.t)) labels.push(p.t);
    labels.sort();
    const datasets = series.map((s) => {
      const key = s.configuration + ':' + (s.basis || 'measured');
      const byT = new Map((s.points || []).map((p) => [p.t, p.value]));
      return {
        label: configName(s.configuration, s.basis),
        data: labels.map((t) => (F.isNum(byT.get(t)) ? byT.get(t) : null)),
        borderColor: COLORS[key] || '#333',
        backgroundColor: COLORS[key] || '#333',
        borderDash: s.basis === 'counterfactual' ? [6, 4] : undefined,
        spanGaps: false,
        tension: 0,
      };
    });
    $('trend-empty').hidden = labels.length > 0;
    makeChart('trend-chart', {
      type: 'line',
      data: { labels: labels.map((t) => (step === '1w' ? 'week of ' + F.date(t) : F.date(t))), datasets },
      options: {
        interaction: { mode: 'index', intersect: false },
        scales: { y: { beginAtZero: true, title: { display: true, text: 'USD per successful task' }, ticks: { callback: (v) => F.axisMoney(v) } } },
        plugins: { tooltip: { callbacks: { label: (ctx) => ctx.dataset.label + ': ' + (ctx.raw === null ? DASH : F.moneyExact(ctx.raw)) } } },
      },
    });
  } catch (e) {
    if (gen === state.generation) errorBox($('trend-empty'), e, 'the trend');
    $('trend-empty').hidden = false;
  }
}

export function renderSplit(summary) {
  const confs = Array.isArray(summary.configurations) ? summary.configurations : [];
  const ordered = [];
  for (const [c, b] of CARD_ORDER) {
    const x = confs.find((v) => v.configuration === c && (v.basis || 'measured') === b);
    if (x) ordered.push(x);
  }
  for (const x of confs) if (!ordered.includes(x)) ordered.push(x);
  const parts = [
    ['useful_cost', 'Useful work', '#2ca02c'],
    ['wasted_cost', 'Wasted (failed or interrupted attempts)', '#d62728'],
    ['idle_cost', 'Idle nodes', '#bcbd22'],
    ['restore_cost', 'Restore time', '#ff7f0e'],
  ];
  // The counterfactual has no split (no run happened): its bar is the On-Demand
  // price of the same successful work, the API's cost of that entry.
  const datasets = parts.map(([field, label, color]) => ({ label, backgroundColor: color, data: ordered.map((c) => (c.basis === 'counterfactual' ? null : F.isNum(c[field]) ? c[field] : null)) }));
  datasets.push({ label: 'On-Demand price of the same work (counterfactual)', backgroundColor: '#7f7f7f', data: ordered.map((c) => (c.basis === 'counterfactual' && F.isNum(c.cost) ? c.cost : null)) });
  makeChart('split-chart', {
    type: 'bar',
    data: {
      labels: ordered.map((c) => configName(c.configuration, c.basis)),
      datasets,
    },
    options: {
      indexAxis: 'y',
      scales: { x: { stacked: true, ticks: { maxRotation: 45, callback: (v) => F.axisMoney(v) } }, y: { stacked: true } },
      plugins: { tooltip: { callbacks: { label: (ctx) => ctx.dataset.label + ': ' + (ctx.raw === null ? DASH : F.moneyExact(ctx.raw)) } } },
    },
  });
}
