/* spotledger dashboard: the "What if" panel (GET /api/v1/whatif, issue 21).
 *
 * The planner answers the expected cost per successful task of Spot, Spot with
 * fallback and On-Demand for the window's measured reclaim rate, replacement
 * delay, checkpoint interval, prices and task length, or for values the user
 * supplies. Each slider starts at the value the API measured and is marked
 * "measured"; a slider the user moved is sent (debounced) and marked
 * "supplied". Every figure shown is the API's: the bars' lengths are only
 * their cost scaled to the widest whisker, the numbers are the response's.
 *
 * The panel is fetched after the cards and the other panels and never holds
 * them up; a spotledger without the route (404) keeps the panel hidden.
 *
 * Test hooks: #whatif-panel[data-state="loading|ready|error|absent"] with
 * data-query = the query string of the answer shown; each bar is
 * .wi-bar[data-configuration] with data-value / data-low / data-high = the
 * API's exact numbers ("null" when absent); each slider is
 * input#wi-<parameter> with its mark [data-source-for="<parameter>"];
 * #wi-break-even[data-value] and #wi-best[data-young-daly][data-simulated]. */
import { api } from './api.js';
import { $, clear, DASH, el, F, NAMES } from './dom.js';
import { state } from './state.js';

const DEBOUNCE_MS = 300;
const ORDER = ['spot', 'fallback', 'on-demand'];

/* A number the API sent, rounded for reading (half away from zero, on the digits). */
function dec(v, places) {
  return F.isNum(v) ? F.roundDecimal(F.decimalString(v), places) : DASH;
}

function price(v) {
  return F.isNum(v) ? F.moneyExact(v) + ' per node-hour' : DASH;
}

/* The sliders: API parameter, label, step, lowest value, highest value given
 * the measured one (and the answer: the reclaims slider reaches past the
 * break-even rate), and how a value reads. */
const SLIDERS = [
  { key: 'reclaims_per_day', label: 'Spot reclaims per day', step: 0.1, min: 0, top: (v, res) => Math.max(5, 3 * v, F.isNum(res.break_even_reclaims_per_day) ? Math.ceil(1.25 * res.break_even_reclaims_per_day) : 0), show: (v) => dec(v, 2) + ' per day' },
  { key: 'replacement_delay', label: 'Replacement delay', step: 10, min: 0, top: (v) => Math.max(1800, 3 * v), show: (v) => F.duration(v) },
  { key: 'checkpoint_interval', label: 'Checkpoint interval', step: 60, min: 0, top: (v) => Math.max(7200, 3 * v), show: (v) => (v === 0 ? 'no checkpoints' : F.duration(v)) },
  { key: 'spot_price', label: 'Spot price', step: 0.01, min: 0.01, top: (v) => Math.max(1, 3 * v), show: price },
  { key: 'on_demand_price', label: 'On-Demand price', step: 0.01, min: 0.01, top: (v) => Math.max(1, 3 * v), show: price },
  { key: 'task_hours', label: 'Task length', step: 0.1, min: 0.1, top: (v) => Math.max(12, 3 * v), show: (v) => dec(v, 1) + ' h' },
];

const wi = {
  gen: -1, /* the view generation the controls were built for */
  supplied: {}, /* parameter -> value text the user chose */
  timer: 0,
  seq: 0, /* bumps on every request; only the latest answer is shown */
  max: {}, /* slider key -> its highest value */
};

/* The value text a slider sends: its value with the step's decimals. */
function sliderText(s, input) {
  const places = String(s.step).includes('.') ? String(s.step).split('.')[1].length : 0;
  return Number(input.value).toFixed(places);
}

function sourceMark(key, p) {
  const source = (p && p.source) || 'default';
  const mark = $('wi-src-' + key);
  if (!mark) return;
  mark.textContent = source;
  mark.dataset.source = source;
  mark.title = p && p.detail ? p.detail : '';
}

function pos(value, min, max) {
  return max > min ? Math.min(1, Math.max(0, (value - min) / (max - min))) : 0;
}

/* One labelled slider with its value, its measured/supplied mark and the
 * measurement it came from. */
function buildSlider(s, p, res) {
  const v = p && F.isNum(p.value) ? p.value : s.min;
  const max = s.top(v, res);
  wi.max[s.key] = max;
  const id = 'wi-' + s.key;
  const input = el('input', { type: 'range', id, name: s.key, min: s.min, max, step: s.step, 'aria-describedby': id + '-out ' + id + '-detail' });
  input.value = String(v);
  const out = el('output', { id: id + '-out', for: id, text: s.show(v) });
  input.setAttribute('aria-valuetext', s.show(v));
  input.addEventListener('input', () => {
    const text = sliderText(s, input);
    wi.supplied[s.key] = text;
    out.textContent = s.show(Number(text));
    input.setAttribute('aria-valuetext', out.textContent);
    const mark = $('wi-src-' + s.key);
    mark.textContent = 'supplied';
    mark.dataset.source = 'supplied';
    schedule();
  });
  const head = el('div', { class: 'wi-head' }, el('label', { for: id, text: s.label }), out, el('span', { class: 'wi-src', id: 'wi-src-' + s.key, 'data-source-for': s.key }));
  const track = el('div', { class: 'wi-track-wrap' }, input);
  const field = el('div', { class: 'wi-field', 'data-parameter': s.key }, head, track, el('p', { class: 'wi-detail', id: id + '-detail', text: (p && p.detail) || '' }));
  return field;
}

/* The break-even reclaim rate (where Spot with fallback costs as much per
 * successful task as On-Demand) as a line across the reclaims slider. */
function renderBreakEven(be) {
  const box = $('wi-break-even');
  clear(box);
  box.dataset.value = F.isNum(be) ? F.decimalString(be) : 'null';
  const wrap = document.querySelector('#wi-controls [data-parameter="reclaims_per_day"] .wi-track-wrap');
  const old = wrap && wrap.querySelector('.wi-line');
  if (old) old.remove();
  if (wrap) wrap.classList.remove('has-line');
  if (!F.isNum(be)) {
    box.append('No break-even reclaim rate: Spot with fallback and On-Demand do not cross in the range the planner scans.');
    return;
  }
  box.append('Break-even: ', el('strong', { text: dec(be, 2) + ' reclaims per day' }), '. Above it, On-Demand costs less per successful task than Spot with fallback.');
  if (wrap && be <= wi.max.reclaims_per_day) {
    const line = el('span', { class: 'wi-line', title: 'break-even ' + dec(be, 2) + ' per day', 'aria-hidden': 'true' });
    line.style.setProperty('--pos', String(pos(be, 0, wi.max.reclaims_per_day)));
    line.append(el('span', { class: 'wi-line-label', text: 'break-even' }));
    wrap.append(line);
    wrap.classList.add('has-line');
  }
}

function renderBest(best) {
  const box = $('wi-best');
  clear(box);
  const b = best || {};
  box.dataset.youngDaly = F.isNum(b.young_daly_seconds) ? F.decimalString(b.young_daly_seconds) : 'null';
  box.dataset.simulated = F.isNum(b.simulated_seconds) ? F.decimalString(b.simulated_seconds) : 'null';
  box.append('Best checkpoint interval: ', el('strong', { text: F.duration(b.young_daly_seconds) }), ' (Young/Daly), ', el('strong', { text: F.duration(b.simulated_seconds) }), ' (simulated).');
}

/* Three horizontal bars, each with its 95% interval as a whisker, scaled to the
 * highest number shown. */
function renderBars(confs) {
  const box = $('wi-bars');
  clear(box);
  const byName = new Map(confs.map((c) => [c.configuration, c]));
  const names = ORDER.filter((n) => byName.has(n)).concat(confs.map((c) => c.configuration).filter((n) => !ORDER.includes(n)));
  let top = 0;
  for (const c of confs) {
    for (const v of [c.cost_per_successful_task, c.interval && c.interval.high]) if (F.isNum(v) && v > top) top = v;
  }
  for (const n of names) {
    const c = byName.get(n);
    const iv = c.interval && typeof c.interval === 'object' ? c.interval : null;
    const has = (v) => F.isNum(v);
    const row = el('div', {
      class: 'wi-bar',
      role: 'listitem',
      'data-configuration': n,
      'data-value': has(c.cost_per_successful_task) ? F.decimalString(c.cost_per_successful_task) : 'null',
      'data-low': iv && has(iv.low) ? F.decimalString(iv.low) : 'null',
      'data-high': iv && has(iv.high) ? F.decimalString(iv.high) : 'null',
    });
    const track = el('span', { class: 'wi-barbox', 'aria-hidden': 'true' });
    if (has(c.cost_per_successful_task) && top > 0) {
      const fill = el('span', { class: 'wi-fill wi-fill-' + n });
      fill.style.width = (100 * pos(c.cost_per_successful_task, 0, top)).toFixed(2) + '%';
      track.append(fill);
      if (iv && has(iv.low) && has(iv.high)) {
        const w = el('span', { class: 'wi-whisker' });
        w.style.left = (100 * pos(iv.low, 0, top)).toFixed(2) + '%';
        w.style.width = (100 * (pos(iv.high, 0, top) - pos(iv.low, 0, top))).toFixed(2) + '%';
        track.append(w);
      }
    }
    const text = el('span', { class: 'wi-num' }, el('strong', { title: 'exactly ' + F.moneyExact(c.cost_per_successful_task), text: F.money(c.cost_per_successful_task) }), ' per successful task');
    if (iv && has(iv.low) && has(iv.high)) text.append(el('span', { class: 'sub', text: ' (95%: ' + F.money(iv.low) + ' – ' + F.money(iv.high) + ')' }));
    else if (c.interval_reason) text.append(el('span', { class: 'sub', text: ' (no interval: ' + c.interval_reason + ')' }));
    row.append(el('span', { class: 'wi-name', text: NAMES[n] || n }), track, text);
    box.append(row);
  }
}

function renderAnswer(res, query) {
  const params = res.parameters || {};
  for (const s of SLIDERS) {
    const p = params[s.key];
    sourceMark(s.key, p);
    const out = $('wi-' + s.key + '-out');
    if (out && p && F.isNum(p.value)) {
      out.textContent = s.show(p.value);
      $('wi-' + s.key).setAttribute('aria-valuetext', out.textContent);
    }
    const detail = $('wi-' + s.key + '-detail');
    if (detail) detail.textContent = (p && p.detail) || '';
  }
  const fb = params.fallback;
  sourceMark('fallback', fb);
  const fixed = [];
  for (const [k, label] of [
    ['restore_seconds', 'restore'],
    ['checkpoint_seconds', 'checkpoint'],
  ]) {
    const p = params[k];
    if (p && F.isNum(p.value)) fixed.push(label + ' ' + F.duration(p.value) + ' (' + (p.source || 'default') + ')');
  }
  const th = params.task_hours;
  if (th && th.distribution) fixed.push('task lengths ' + (th.distribution === 'measured' ? 'as measured' : 'fixed'));
  $('wi-fixed').textContent = fixed.length ? 'Also from the window: ' + fixed.join(', ') + '.' : '';
  renderBars(Array.isArray(res.configurations) ? res.configurations : []);
  renderBreakEven(res.break_even_reclaims_per_day);
  renderBest(res.best_checkpoint_interval);
  const m = res.model || {};
  const runs = (F.isNum(m.runs) ? F.count(m.runs) + ' simulated runs' : '') + (F.isNum(m.seed) ? ', seed ' + m.seed : '');
  $('wi-model').textContent = [m.description, runs].filter(Boolean).map((t) => t.replace(/\.?$/, '.')).join(' ');
  const panel = $('whatif-panel');
  panel.dataset.query = query;
  panel.dataset.state = 'ready';
}

function buildControls(res) {
  const params = res.parameters || {};
  const box = $('wi-controls');
  clear(box);
  wi.supplied = {};
  for (const s of SLIDERS) box.append(buildSlider(s, params[s.key], res));
  const fb = params.fallback || {};
  const cb = el('input', { type: 'checkbox', id: 'wi-fallback', name: 'fallback' });
  cb.checked = fb.value !== false;
  cb.addEventListener('change', () => {
    wi.supplied.fallback = cb.checked ? 'on' : 'off';
    const mark = $('wi-src-fallback');
    mark.textContent = 'supplied';
    mark.dataset.source = 'supplied';
    schedule();
  });
  box.append(el('div', { class: 'wi-field wi-toggle', 'data-parameter': 'fallback' }, el('div', { class: 'wi-head' }, cb, el('label', { for: 'wi-fallback', text: 'Fall back to On-Demand nodes when Spot is reclaimed' }), el('span', { class: 'wi-src', id: 'wi-src-fallback', 'data-source-for': 'fallback' }))));
}

function baseParams() {
  const p = state.resolved ? { from: state.resolved.from, to: state.resolved.to } : {};
  if (state.cluster) p.cluster = state.cluster;
  return p;
}

async function ask(params, gen) {
  const seq = ++wi.seq;
  const panel = $('whatif-panel');
  panel.dataset.state = 'loading';
  panel.setAttribute('aria-busy', 'true');
  const query = new URLSearchParams(params).toString();
  try {
    const res = await api('whatif', params);
    if (seq !== wi.seq || gen !== state.generation) return;
    if (wi.gen !== gen) {
      buildControls(res);
      wi.gen = gen;
    }
    $('wi-error').hidden = true;
    panel.hidden = false;
    renderAnswer(res, query);
  } catch (e) {
    if (seq !== wi.seq || gen !== state.generation) return;
    if (e.status === 404 && e.code === 'not_found') {
      /* a spotledger without the planner: no panel */
      panel.hidden = true;
      panel.dataset.state = 'absent';
    } else {
      const box = $('wi-error');
      box.textContent = 'Could not load the what-if answer: ' + (e && e.message ? e.message : String(e));
      box.hidden = false;
      panel.hidden = false;
      panel.dataset.state = 'error';
    }
  } finally {
    if (seq === wi.seq) panel.setAttribute('aria-busy', 'false');
  }
}

/* A moved slider asks again once the user pauses (DEBOUNCE_MS). */
function schedule() {
  clearTimeout(wi.timer);
  const gen = state.generation;
  wi.timer = setTimeout(() => ask(Object.assign(baseParams(), wi.supplied), gen), DEBOUNCE_MS);
}

function resetToMeasured() {
  clearTimeout(wi.timer);
  wi.gen = -1;
  ask(baseParams(), state.generation);
}

let bound = false;

/* Load the panel for the view of generation gen, every slider at its measured
 * value. Called once the cards and the other panels are in (state.resolved is
 * known), so the planner's simulation never holds up the first screen. */
export function loadWhatif(gen) {
  if (!bound) {
    bound = true;
    $('wi-reset').addEventListener('click', resetToMeasured);
  }
  clearTimeout(wi.timer);
  return ask(baseParams(), gen);
}
