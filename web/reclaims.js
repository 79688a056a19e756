/* spotledger dashboard: the node-count chart of the window, one line per
 * pool name, with each Spot reclaim's milestones drawn on it, and the list of
 * reclaims under it. */
import { api } from './api.js';
import { charts, chartsAvailable, makeChart } from './charts.js';
import { $, clear, DASH, el, errorBox, F, msOf } from './dom.js';
import { DAY_MS, state, viewParams } from './state.js';

const POOL_COLORS = ['#1f77b4', '#ff7f0e', '#2ca02c', '#d62728', '#9467bd', '#8c564b', '#e377c2', '#17becf'];

/* Tick spacing for a time axis in ms: whole hours or days so ticks fall on UTC boundaries. */
function tickStep(datasets) {
  let min = Infinity;
  let max = -Infinity;
  for (const d of datasets) for (const p of d.data) {
    if (p.x < min) min = p.x;
    if (p.x > max) max = p.x;
  }
  const span = max - min;
  const H = 3600000;
  for (const s of [H, 3 * H, 6 * H, 12 * H, 24 * H, 48 * H, 7 * 24 * H]) if (span / s <= 8) return s;
  return 14 * 24 * H;
}

function tickTime(ms) {
  return F.time(new Date(ms).toISOString());
}

const MARK_COLORS = { signal: '#d62728', gone: '#8c1c13', ready: '#1f77b4', work: '#2ca02c' };

/* A DOKS Spot pool is deleted at a reclaim and recreated under the same name
 * with a new id: one line per pool name (and capacity type), the node counts of
 * its incarnations added per time step. */
function groupPools(pools) {
  const groups = new Map();
  for (const p of pools) {
    const name = p.name || p.id || DASH;
    const key = name + '\u0000' + (p.capacity_type || '');
    let g = groups.get(key);
    if (!g) {
      g = { name, capacity: p.capacity_type || '', ids: 0, byT: new Map() };
      groups.set(key, g);
    }
    g.ids++;
    for (const pt of p.points || []) {
      const x = msOf(pt.t);
      if (x === null || !F.isNum(pt.nodes)) continue;
      g.byT.set(x, (g.byT.get(x) || 0) + pt.nodes);
    }
  }
  return [...groups.values()].map((g) => ({
    label: g.name + (g.capacity ? ' (' + g.capacity + ')' : '') + (g.ids > 1 ? ' · ' + g.ids + ' pools (recreated)' : ''),
    points: [...g.byT.entries()].sort((a, b) => a[0] - b[0]).map(([x, y]) => ({ x, y })),
  }));
}

/* Chart.js plugin: vertical dashed lines for each reclaim's milestones; a
 * short label ("R1") at the first signal, staggered so neighbours never
 * overlap (a label that would touch the previous one moves a row down). */
const reclaimMarkers = {
  id: 'reclaimMarkers',
  afterDatasetsDraw(chart, _args, opts) {
    const marks = (opts && opts.marks) || [];
    const x = chart.scales.x;
    const area = chart.chartArea;
    const ctx = chart.ctx;
    ctx.save();
    ctx.font = 'bold 11px system-ui, sans-serif';
    const placed = []; /* [left, right, row] of labels drawn */
    for (const m of marks) {
      if (m.ms === null || m.ms < x.min || m.ms > x.max) continue;
      const px = x.getPixelForValue(m.ms);
      ctx.strokeStyle = m.color;
      ctx.setLineDash([4, 3]);
      ctx.lineWidth = 1.5;
      ctx.beginPath();
      ctx.moveTo(px, area.top);
      ctx.lineTo(px, area.bottom);
      ctx.stroke();
      ctx.setLineDash([]);
      if (!m.label) continue;
      const w = ctx.measureText(m.label).width;
      const left = Math.min(px + 3, area.right - w - 2);
      let row = 0;
      while (placed.some(([l, r, rw]) => rw === row && left < r + 4 && left + w > l - 4)) row++;
      placed.push([left, left + w, row]);
      ctx.fillStyle = 'rgba(255,255,255,.85)';
      ctx.fillRect(left - 2, area.top + 2 + 13 * row, w + 4, 13);
      ctx.fillStyle = m.color;
      ctx.fillText(m.label, left, area.top + 12 + 13 * row);
    }
    ctx.restore();
  },
};

/* The reclaim timeline under either naming (API contract or report.c). */
function reclaimFields(r) {
  const pick = (...names) => {
    for (const n of names) if (r[n] !== undefined && r[n] !== null) return r[n];
    return null;
  };
  return {
    pool_id: r.pool_id,
    pool: r.pool,
    first_signal_at: pick('first_signal_at'),
    pool_gone_at: pick('pool_gone_at', 'gone_at'),
    replacement_ready_at: pick('replacement_ready_at', 'fallback_ready_at'),
    return_to_work_at: pick('return_to_work_at', 'first_resumed_at'),
    replacement_delay_seconds: pick('replacement_delay_seconds'),
    return_to_work_seconds: pick('return_to_work_seconds', 'return_to_useful_work_seconds'),
  };
}

function zoomButton(r) {
  const times = [r.first_signal_at, r.pool_gone_at, r.replacement_ready_at, r.return_to_work_at].map(msOf).filter((v) => v !== null);
  if (!times.length || !chartsAvailable()) return null;
  const b = el('button', { type: 'button', class: 'secondary small', 'aria-pressed': 'false' }, 'Zoom the chart to this reclaim');
  b.addEventListener('click', () => {
    const chart = charts['reclaim-chart'];
    if (!chart) return;
    const zoomed = b.getAttribute('aria-pressed') === 'true';
    const H = 3600000;
    chart.options.scales.x.min = zoomed ? undefined : Math.floor(Math.min(...times) / H - 3) * H;
    chart.options.scales.x.max = zoomed ? undefined : Math.ceil(Math.max(...times) / H + 3) * H;
    chart.options.scales.x.ticks.stepSize = zoomed ? tickStep(chart.data.datasets) : H;
    chart.update();
    for (const o of document.querySelectorAll('#reclaim-list button[aria-pressed]')) {
      o.setAttribute('aria-pressed', 'false');
      o.textContent = 'Zoom the chart to this reclaim';
    }
    if (!zoomed) {
      b.setAttribute('aria-pressed', 'true');
      b.textContent = 'Show the whole window';
    }
  });
  return b;
}

export async function loadReclaims(gen) {
  const list = $('reclaim-list');
  try {
    const nc = await api('node_counts', Object.assign(viewParams(), { step: '1h' }));
    if (gen !== state.generation) return;
    const pools = Array.isArray(nc.pools) ? nc.pools : [];
    const reclaims = Array.isArray(nc.reclaims) ? nc.reclaims : [];
    const datasets = groupPools(pools).map((g, i) => ({
      label: g.label,
      data: g.points,
      borderColor: POOL_COLORS[i % POOL_COLORS.length],
      backgroundColor: POOL_COLORS[i % POOL_COLORS.length],
      stepped: true,
      pointRadius: 0,
      borderWidth: 2,
    }));
    const marks = [];
    reclaims.forEach((r0, i) => {
      const r = reclaimFields(r0);
      // the lines carry only the reclaim's number; the list under the chart says what each is
      marks.push({ ms: msOf(r.first_signal_at), label: 'R' + (i + 1), color: MARK_COLORS.signal });
      marks.push({ ms: msOf(r.pool_gone_at), label: '', color: MARK_COLORS.gone });
      marks.push({ ms: msOf(r.replacement_ready_at), label: '', color: MARK_COLORS.ready });
      marks.push({ ms: msOf(r.return_to_work_at), label: '', color: MARK_COLORS.work });
    });
    const step = tickStep(datasets);
    makeChart('reclaim-chart', {
      type: 'line',
      data: { datasets },
      options: {
        parsing: true,
        interaction: { mode: 'nearest', intersect: false },
        scales: {
          x: { type: 'linear', ticks: { stepSize: step, autoSkip: true, autoSkipPadding: 12, maxRotation: 45, callback: (v) => (v % DAY_MS === 0 ? F.date(new Date(v).toISOString()) : tickTime(v)) } },
          y: { beginAtZero: true, ticks: { precision: 0 }, title: { display: true, text: 'nodes' } },
        },
        plugins: {
          reclaimMarkers: { marks },
          tooltip: { callbacks: { title: (items) => (items.length ? tickTime(items[0].parsed.x) : ''), label: (ctx) => ctx.dataset.label + ': ' + F.count(ctx.parsed.y) + ' nodes' } },
        },
      },
      plugins: [reclaimMarkers],
    });
    clear(list);
    if (!reclaims.length) list.append(el('li', { class: 'placeholder', text: 'No Spot reclaim in this window.' }));
    for (const [i, r0] of reclaims.entries()) {
      const r = reclaimFields(r0);
      list.append(
        el(
          'li',
          { 'data-pool-id': r.pool_id || '' },
          el('strong', { text: 'R' + (i + 1) + ': pool ' + (r.pool || r.pool_id || DASH) + ' reclaimed. ' }),
          'First signal ' + F.time(r.first_signal_at) + '; pool gone ' + F.time(r.pool_gone_at) + '; replacement node ready ' + F.time(r.replacement_ready_at) + ' (',
          el('span', { 'data-field': 'replacement_delay_seconds', text: F.duration(r.replacement_delay_seconds) }),
          ' replacement delay); interrupted work running again ' + F.time(r.return_to_work_at) + ' (',
          el('span', { 'data-field': 'return_to_work_seconds', text: F.duration(r.return_to_work_seconds) }),
          ' until useful work resumed). ',
          zoomButton(r),
          F.isNum(r0.tasks_interrupted) ? ' Tasks interrupted: ' + F.count(r0.tasks_interrupted) + (F.isNum(r0.tasks_resumed) ? ', resumed: ' + F.count(r0.tasks_resumed) : '') + '.' : ''
        )
      );
    }
  } catch (e) {
    if (gen === state.generation) errorBox(list, e, 'the reclaim timeline');
  }
}
