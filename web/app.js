/* spotledger dashboard.
 *
 * Talks only to spotledger's REST API (/api/v1/...). Every figure on screen is
 * an API value passed through format.js (display formatting only); the page
 * never derives a cost, count or percentage itself. Comparisons (which card is
 * the cheapest, is the measured overhead above break-even) use the API values
 * as they are.
 *
 * State lives in the URL hash (#window=lastweek&experiment=x&task=<uid>) so a
 * view, or one task's attempts, can be linked. The default window is "Last 7
 * days" (window=7d), the API's own default: 7 days ending at the source clock,
 * i.e. at the latest data. The summary answers with the window it resolved
 * (from, to); every other panel and the "This view" downloads then ask for that
 * exact [from, to), so the window named on screen is the one every number and
 * file comes from. A window with no task says so, with a link to the latest 7
 * days that hold data (GET /api/v1/status data_latest). Auth: on a 401 one token form
 * is shown; the token is kept in sessionStorage and sent as a bearer token on
 * every API call, CSV downloads included (fetch + Blob, never a plain link).
 *
 * Stable hooks for tests: each card is [data-configuration][data-basis]; each
 * figure is [data-card="<configuration>:<basis>"][data-field="<api field>"]
 * with data-value = the exact API value and text = its formatted form;
 * <body data-state="ready" data-first-paint-ms="N"> once the cards are filled,
 * data-panels="ready" once every panel of the current window is; #window-from,
 * #window-to (data-value: the window the API resolved); #empty-window with the
 * link #jump-latest when the window holds no task;
 * the attempts table is #attempts-body with [data-attempt-uid] rows under
 * #task-detail[data-task-uid]. */
'use strict';

(function () {
  const F = window.SLFormat;
  const DASH = F.DASH;
  const API = '/api/v1/';
  const TOKEN_KEY = 'spotledger.token';
  const PAGE_SIZE = 50;

  const NAMES = { spot: 'Spot', fallback: 'Spot + fallback', 'on-demand': 'On-Demand' };
  const WINDOW_NAMES = { '7d': 'Last 7 days', week: 'This week', lastweek: 'Last week', '30d': 'Last 30 days', custom: 'Custom window' };
  const DAY_MS = 86400000;
  const CARD_ORDER = [
    ['spot', 'measured'],
    ['fallback', 'measured'],
    ['on-demand', 'measured'],
    ['on-demand', 'counterfactual'],
  ];
  const COLORS = {
    'spot:measured': '#1f77b4',
    'fallback:measured': '#9467bd',
    'on-demand:measured': '#2ca02c',
    'on-demand:counterfactual': '#7f7f7f',
  };
  const POOL_COLORS = ['#1f77b4', '#ff7f0e', '#2ca02c', '#d62728', '#9467bd', '#8c564b', '#e377c2', '#17becf'];

  const state = {
    window: '7d',
    from: '',
    to: '',
    experiment: '',
    basis: 'accrual', /* cost basis: accrual (the API's default) or completion */
    basisUnsupported: false, /* the API refused basis= (an older spotledger) */
    basisApplied: false, /* the current figures were asked for on the completion basis */
    step: 'auto',
    tasks: { configuration: '', outcome: '', sort: 'completed_at', order: 'desc', cursors: [null], page: 0 },
    task: '',
    resolved: null, /* {from, to} of the window the summary answered for */
    generation: 0, /* bumps on every reload so late answers of an older view are dropped */
  };
  const charts = {};
  let firstPaintDone = false;

  /* ---------- small DOM helpers ---------- */

  const $ = (id) => document.getElementById(id);

  function el(tag, attrs, ...children) {
    const e = document.createElement(tag);
    if (attrs) {
      for (const [k, v] of Object.entries(attrs)) {
        if (v === undefined || v === null || v === false) continue;
        if (k === 'class') e.className = v;
        else if (k === 'text') e.textContent = v;
        else if (k === 'value') e.value = v;
        else e.setAttribute(k, v === true ? '' : String(v));
      }
    }
    for (const c of children) {
      if (c === null || c === undefined || c === false) continue;
      e.append(c instanceof Node ? c : document.createTextNode(String(c)));
    }
    return e;
  }

  function clear(node) {
    while (node.firstChild) node.removeChild(node.firstChild);
  }

  function configName(configuration, basis) {
    const n = NAMES[configuration] || configuration || DASH;
    return basis === 'counterfactual' ? n + ' (counterfactual)' : n;
  }

  function get(obj, path) {
    let o = obj;
    for (const p of path.split('.')) {
      if (o === null || o === undefined || typeof o !== 'object') return undefined;
      o = o[p];
    }
    return o;
  }

  /* ---------- API and auth ---------- */

  class ApiError extends Error {
    constructor(status, code, message) {
      super(message || code || 'HTTP ' + status);
      this.status = status;
      this.code = code;
    }
  }

  let token = '';
  try {
    token = sessionStorage.getItem(TOKEN_KEY) || '';
  } catch (_) {
    token = '';
  }
  let authPending = null; /* one prompt shared by every request that met a 401 */

  function askToken(rejected) {
    if (authPending) return authPending;
    authPending = new Promise((resolve) => {
      const overlay = $('auth-overlay');
      const form = $('auth-form');
      const input = $('auth-token');
      const err = $('auth-error');
      err.hidden = !rejected;
      err.textContent = rejected ? 'That token was not accepted. Try again.' : '';
      overlay.hidden = false;
      input.value = '';
      input.focus();
      const onSubmit = (ev) => {
        ev.preventDefault();
        const t = input.value.trim();
        if (!t) return;
        form.removeEventListener('submit', onSubmit);
        token = t;
        try {
          sessionStorage.setItem(TOKEN_KEY, t);
        } catch (_) {
          /* private mode: keep it in memory for this page */
        }
        overlay.hidden = true;
        authPending = null;
        resolve();
      };
      form.addEventListener('submit', onSubmit);
    });
    return authPending;
  }

  function query(params) {
    const q = new URLSearchParams();
    for (const [k, v] of Object.entries(params || {})) {
      if (v !== undefined && v !== null && v !== '') q.set(k, v);
    }
    const s = q.toString();
    return s ? '?' + s : '';
  }

  async function request(url, asBlob) {
    for (let tries = 0; ; tries++) {
      const headers = { Accept: asBlob ? 'text/csv' : 'application/json' };
      if (token) headers.Authorization = 'Bearer ' + token;
      const sentToken = token;
      let res;
      try {
        res = await fetch(url, { headers, cache: 'no-store', credentials: 'omit' });
      } catch (e) {
        throw new ApiError(0, 'network', 'spotledger did not answer (' + e.message + ')');
      }
      if (res.status === 401 && tries < 5) {
        /* another request may already have obtained a newer token */
        if (token === sentToken || !token) await askToken(Boolean(sentToken));
        continue;
      }
      if (!res.ok) {
        let code = 'http_' + res.status;
        let message = res.statusText || 'HTTP ' + res.status;
        try {
          const body = await res.json();
          if (body && body.error) {
            code = body.error.code || code;
            message = body.error.message || message;
          }
        } catch (_) {
          /* not JSON */
        }
        throw new ApiError(res.status, code, message);
      }
      if (asBlob) return { blob: await res.blob(), disposition: res.headers.get('Content-Disposition') };
      return res.json();
    }
  }

  function api(path, params) {
    return request(API + path + query(params), false);
  }

  /* The window the summary answered for, as from/to, once it is known. */
  function viewParams() {
    if (!state.resolved) return windowParams();
    const p = { from: state.resolved.from, to: state.resolved.to };
    if (state.experiment) p.experiment = state.experiment;
    return p;
  }

  // the cards ask for the intervals too (summary?uncertainty=true), on windows the API
  // resamples (35 days at most): a longer custom window asks for the summary alone, so
  // its answer is the one already cached for it (the bootstrap is not run there anyway)
  const UNC_MAX_DAYS = 35;
  function uncParams(params) {
    if (params.from && params.to) {
      const days = (Date.parse(params.to) - Date.parse(params.from)) / 86400000;
      if (!(days <= UNC_MAX_DAYS)) return params;
    } else if (params.window && params.window.includes(',')) {
      const [a, b] = params.window.split(',');
      const days = (Date.parse(b) - Date.parse(a)) / 86400000;
      if (!(days <= UNC_MAX_DAYS)) return params;
    }
    params.uncertainty = 'true';
    return params;
  }

  /* basis= goes only to the summary (the only route that takes it; the trend
   * and the CSV stay on the accrual basis), and only when it is not the API's
   * default (accrual). */
  function costParams(params) {
    if (state.basis === 'completion' && !state.basisUnsupported) params.basis = 'completion';
    return params;
  }

  function windowParams() {
    const p = {};
    if (state.window === 'custom' && state.from && state.to) {
      p.from = state.from + 'T00:00:00Z';
      p.to = state.to + 'T00:00:00Z';
    } else {
      p.window = state.window === 'custom' ? '7d' : state.window;
    }
    if (state.experiment) p.experiment = state.experiment;
    return p;
  }

  function errorBox(target, e, what) {
    clear(target);
    target.append(el('p', { class: 'panel-error', role: 'alert', text: 'Could not load ' + what + ': ' + (e && e.message ? e.message : String(e)) }));
  }

  /* ---------- URL hash ---------- */

  function readHash() {
    const h = new URLSearchParams(location.hash.replace(/^#/, ''));
    const w = h.get('window');
    /* any window the API understands may be linked (e.g. 2026-W48, 7d); the picker gains it */
    if (w && /^[A-Za-z0-9:,.+-]{1,80}$/.test(w)) state.window = w;
    if (h.get('from')) state.from = h.get('from');
    if (h.get('to')) state.to = h.get('to');
    if (state.window === 'custom' && !(state.from && state.to)) state.window = '7d';
    if (!w) state.window = '7d';
    state.experiment = h.get('experiment') || '';
    state.basis = h.get('basis') === 'completion' ? 'completion' : 'accrual';
    state.task = h.get('task') || '';
  }

  function hashFor(overrides) {
    const h = new URLSearchParams();
    if (state.window !== '7d') h.set('window', state.window);
    if (state.window === 'custom') {
      h.set('from', state.from);
      h.set('to', state.to);
    }
    if (state.experiment) h.set('experiment', state.experiment);
    if (state.basis === 'completion') h.set('basis', 'completion');
    const task = overrides && 'task' in overrides ? overrides.task : state.task;
    if (task) h.set('task', task);
    const s = h.toString();
    return s ? '#' + s : '#';
  }

  function writeHash() {
    const h = hashFor();
    if (h !== location.hash && !(h === '#' && location.hash === '')) history.replaceState(null, '', h === '#' ? location.pathname + location.search : h);
  }

  /* ---------- controls ---------- */

  function syncControls() {
    const ws = $('window-select');
    if (![...ws.options].some((o) => o.value === state.window)) {
      ws.insertBefore(el('option', { value: state.window, text: state.window }), ws.querySelector('option[value="custom"]'));
    }
    ws.value = state.window;
    $('from-input').value = state.from;
    $('to-input').value = state.to;
    const custom = state.window === 'custom';
    $('custom-range').hidden = !custom;
    $('custom-range-to').hidden = !custom;
    const exp = $('experiment-select');
    if (state.experiment && ![...exp.options].some((o) => o.value === state.experiment)) {
      exp.append(el('option', { value: state.experiment, text: state.experiment }));
    }
    exp.value = state.experiment;
    $('basis-select').value = state.basis;
    $('step-select').value = state.step;
    $('filter-configuration').value = state.tasks.configuration;
    $('filter-outcome').value = state.tasks.outcome;
  }

  function bindControls() {
    $('window-select').addEventListener('change', () => {
      const custom = $('window-select').value === 'custom';
      $('custom-range').hidden = !custom;
      $('custom-range-to').hidden = !custom;
      if (custom) $('from-input').focus();
      else applyControls();
    });
    $('experiment-select').addEventListener('change', applyControls);
    $('basis-select').addEventListener('change', applyControls);
    $('controls').addEventListener('submit', (ev) => {
      ev.preventDefault();
      applyControls();
    });
    $('step-select').addEventListener('change', () => {
      state.step = $('step-select').value;
      loadTrend(state.generation);
    });
    for (const id of ['filter-configuration', 'filter-outcome']) {
      $(id).addEventListener('change', () => {
        state.tasks.configuration = $('filter-configuration').value;
        state.tasks.outcome = $('filter-outcome').value;
        resetPages();
        loadTasks(state.generation);
      });
    }
    $('task-filters').addEventListener('submit', (ev) => ev.preventDefault());
    for (const b of document.querySelectorAll('.sort-button')) {
      b.addEventListener('click', () => {
        const key = b.dataset.sort;
        if (state.tasks.sort === key) state.tasks.order = state.tasks.order === 'desc' ? 'asc' : 'desc';
        else {
          state.tasks.sort = key;
          state.tasks.order = 'desc';
        }
        resetPages();
        loadTasks(state.generation);
      });
    }
    $('next-page').addEventListener('click', () => {
      const t = state.tasks;
      if (t.cursors[t.page + 1] === undefined) return;
      t.page++;
      loadTasks(state.generation);
    });
    $('prev-page').addEventListener('click', () => {
      if (state.tasks.page === 0) return;
      state.tasks.page--;
      loadTasks(state.generation);
    });
    $('close-task').addEventListener('click', closeTask);
    window.addEventListener('hashchange', () => {
      const before = JSON.stringify([state.window, state.from, state.to, state.experiment, state.basis]);
      readHash();
      syncControls();
      if (JSON.stringify([state.window, state.from, state.to, state.experiment, state.basis]) !== before) reloadAll();
      if (state.task) openTask(state.task);
      else hideTask();
    });
    for (const b of document.querySelectorAll('button.download')) {
      b.addEventListener('click', () => {
        const p = Object.assign(viewParams(), { kind: b.dataset.kind });
        downloadCsv(API + 'export.csv' + query(p), 'spotledger-' + viewName() + '-' + b.dataset.kind + '.csv', b);
      });
    }
    $('status-toggle').addEventListener('click', () => {
      const d = $('status-detail');
      d.hidden = !d.hidden;
      $('status-toggle').setAttribute('aria-expanded', String(!d.hidden));
    });
    document.addEventListener('keydown', (ev) => {
      if (ev.key === 'Escape' && !$('task-detail').hidden && $('auth-overlay').hidden) closeTask();
    });
  }

  function applyControls() {
    const w = $('window-select').value;
    if (w === 'custom') {
      const from = $('from-input').value;
      const to = $('to-input').value;
      if (!from || !to) {
        showBanner('Choose both a start and an end date for the custom window.');
        return;
      }
      if (to <= from) {
        showBanner('The end date must be after the start date.');
        return;
      }
      state.from = from;
      state.to = to;
    }
    state.window = w;
    state.experiment = $('experiment-select').value;
    state.basis = $('basis-select').value === 'completion' ? 'completion' : 'accrual';
    showBanner('');
    writeHash();
    reloadAll();
  }

  function viewName() {
    if (state.resolved) return (state.resolved.from + '_' + state.resolved.to).replace(/:/g, '');
    if (state.window === 'custom') return state.from + '_' + state.to;
    return state.window;
  }

  function showBanner(msg) {
    const b = $('global-error');
    b.textContent = msg;
    b.hidden = !msg;
  }

  function resetPages() {
    state.tasks.cursors = [null];
    state.tasks.page = 0;
  }

  /* ---------- overview cards ---------- */

  function figure(card, field, value, kind) {
    let text;
    let exact = '';
    switch (kind) {
      case 'money':
        text = F.money(value);
        exact = F.moneyExact(value);
        break;
      case 'percent':
        text = F.percent(value);
        break;
      case 'duration':
        text = F.duration(value);
        break;
      default:
        text = F.count(value);
    }
    const attrs = {
      class: 'fig' + (kind === 'percent' && F.isNum(value) && value < 0 ? ' negative' : ''),
      'data-card': card,
      'data-field': field,
      'data-value': F.isNum(value) ? F.decimalString(value) : 'null',
      text,
    };
    if (exact && exact !== text) attrs.title = 'exactly ' + exact;
    return el('span', attrs);
  }

  function row(label, node, extra) {
    return el('div', { class: 'row' }, el('dt', { text: label }), el('dd', null, node, extra || null));
  }

  // The 95% interval under a card's headline (docs/uncertainty.md), or why there is none.
  function renderInterval(k, iv) {
    if (F.isNum(iv.lo) && F.isNum(iv.hi))
      return el('p', { class: 'interval', 'data-interval': k, 'data-lo': F.decimalString(iv.lo), 'data-hi': F.decimalString(iv.hi), title: 'exactly ' + F.moneyExact(iv.lo) + ' – ' + F.moneyExact(iv.hi), text: '95% interval ' + F.money(iv.lo) + ' – ' + F.money(iv.hi) });
    return el('p', { class: 'interval none', 'data-interval': k, text: 'No interval yet: ' + (iv.reason || 'not computed') });
  }

  // "How sure?": each measured card's interval under its headline, and the
  // comparisons' verdicts as the API words them. Fetched after the cards are
  // painted (the bootstrap must not delay the first screen).
  function renderUncertainty(summary) {
    const box = $('uncertainty');
    if (!box) return;
    clear(box);
    const u = summary.uncertainty;
    if (!u) return;
    const per = u.cost_per_successful_task || {};
    for (const [configuration, iv] of Object.entries(per)) {
      const card = document.querySelector('article.card[data-configuration="' + configuration + '"][data-basis="measured"]');
      const head = card && card.querySelector('p.headline');
      if (!head || !iv) continue;
      const old = card.querySelector('p.interval');
      if (old) old.remove();
      head.after(renderInterval(configuration + ':measured', iv));
    }
    if (!Array.isArray(u.comparisons)) {
      box.append(el('p', { class: 'footnote', text: 'How sure: ' + (u.reason || 'no intervals for this window') }));
      return;
    }
    const ul = el('ul', { class: 'verdicts' });
    for (const c of u.comparisons) ul.append(el('li', { 'data-comparison': c.name, 'data-verdict': c.verdict || 'none', text: c.text }));
    box.append(el('h3', { text: 'How sure?' }), ul, el('p', { class: 'hint', text: '95% intervals by a block bootstrap over tasks (' + u.resamples + ' resamples; tasks hit by one reclaim move together).' }));
  }

  function renderCards(summary) {
    const cards = $('cards');
    clear(cards);
    const confs = Array.isArray(summary.configurations) ? summary.configurations : [];
    const byKey = new Map(confs.map((c) => [c.configuration + ':' + (c.basis || 'measured'), c]));
    const keys = CARD_ORDER.map(([c, b]) => c + ':' + b);
    for (const k of byKey.keys()) if (!keys.includes(k)) keys.push(k);

    let cheapest = null;
    for (const k of keys) {
      const c = byKey.get(k);
      if (c && F.isNum(c.cost_per_successful_task) && (cheapest === null || c.cost_per_successful_task < cheapest)) cheapest = c.cost_per_successful_task;
    }

    for (const k of keys) {
      const [configuration, basis] = k.split(':');
      const c = byKey.get(k) || { configuration, basis };
      const isCheapest = cheapest !== null && c.cost_per_successful_task === cheapest;
      const headingId = 'card-' + configuration + '-' + basis;
      const card = el('article', {
        class: 'card' + (isCheapest ? ' cheapest' : '') + (basis === 'counterfactual' ? ' counterfactual' : ''),
        'data-configuration': configuration,
        'data-basis': basis,
        'data-cheapest': isCheapest ? 'true' : 'false',
        'aria-labelledby': headingId,
      });
      const head = el('header', { class: 'card-head' }, el('h3', { id: headingId }, NAMES[configuration] || configuration, ' ', el('span', { class: 'basis', text: basis })));
      if (isCheapest) head.append(el('span', { class: 'badge', text: 'Cheapest per successful task' }));
      card.append(head);
      card.append(el('p', { class: 'headline' }, figure(k, 'cost_per_successful_task', c.cost_per_successful_task, 'money'), el('span', { class: 'unit', text: ' per successful task' })));

      const dl = el('dl', { class: 'figures' });
      const has = (f) => f in c;
      dl.append(row('Tasks succeeded', figure(k, 'tasks_succeeded', c.tasks_succeeded, 'count')));
      if (basis !== 'counterfactual' || has('tasks_failed')) dl.append(row('Tasks failed', figure(k, 'tasks_failed', c.tasks_failed, 'count')));
      if (has('tasks_running')) dl.append(row('Tasks still running', figure(k, 'tasks_running', c.tasks_running, 'count')));
      if (basis === 'counterfactual') {
        if (has('tasks_priced')) dl.append(row('Tasks priced', figure(k, 'tasks_priced', c.tasks_priced, 'count')));
        if (has('tasks_unpriced')) dl.append(row('Tasks without an On-Demand price', figure(k, 'tasks_unpriced', c.tasks_unpriced, 'count')));
        if (has('work_seconds')) dl.append(row('Work priced', figure(k, 'work_seconds', c.work_seconds, 'duration')));
      } else {
        dl.append(row('Attempts (pods)', figure(k, 'attempts', c.attempts, 'count')));
        dl.append(row('Retries', figure(k, 'retries', c.retries, 'count')));
        dl.append(row('Interruptions', figure(k, 'interruptions', c.interruptions, 'count')));
        if (has('duplicates')) dl.append(row('Duplicate attempts', figure(k, 'duplicates', c.duplicates, 'count'), has('duplicate_seconds') ? el('span', { class: 'sub' }, ' (', figure(k, 'duplicate_seconds', c.duplicate_seconds, 'duration'), ' held twice)') : null));
        const rs = c.restore_seconds || {};
        dl.append(
          row(
            'Restore time',
            figure(k, 'restore_seconds.total', rs.total, 'duration'),
            el('span', { class: 'sub' }, ' (median ', figure(k, 'restore_seconds.p50', rs.p50, 'duration'), ', p95 ', figure(k, 'restore_seconds.p95', rs.p95, 'duration'), ')')
          )
        );
      }
      dl.append(row('Total cost', figure(k, 'cost', c.cost, 'money')));
      if (configuration !== 'on-demand') dl.append(row('Savings vs On-Demand', figure(k, 'savings_vs_on_demand_percent', c.savings_vs_on_demand_percent, 'percent')));
      card.append(dl);

      if (configuration === 'on-demand' && basis === 'measured' && F.isNum(c.measured_overhead_percent)) {
        // On-Demand is the yardstick: no break-even against itself, only its own overhead
        card.append(
          el(
            'p',
            { class: 'breakeven' },
            'Idle nodes, lost work and restore time added ',
            figure(k, 'measured_overhead_percent', c.measured_overhead_percent, 'percent'),
            ' on top of the useful work in this window.'
          )
        );
      } else if (F.isNum(c.break_even_overhead_percent) || F.isNum(c.measured_overhead_percent)) {
        const name = NAMES[configuration] || configuration;
        const p = el(
          'p',
          { class: 'breakeven' },
          name + ' stays cheaper than On-Demand as long as lost work, idle nodes and restore time add less than ',
          figure(k, 'break_even_overhead_percent', c.break_even_overhead_percent, 'percent'),
          ' on top of the useful work. In this window they added ',
          figure(k, 'measured_overhead_percent', c.measured_overhead_percent, 'percent'),
          '.'
        );
        if (F.isNum(c.break_even_overhead_percent) && F.isNum(c.measured_overhead_percent)) {
          const over = c.measured_overhead_percent > c.break_even_overhead_percent;
          p.classList.add(over ? 'over' : 'under');
          p.append(el('strong', { class: 'verdict', text: over ? ' Above break-even: On-Demand would have been cheaper.' : ' Below break-even.' }));
        }
        card.append(p);
      }
      if (c.basis_description) card.append(el('p', { class: 'basis-desc', text: c.basis_description }));
      if (c.checkpoint_advice && typeof c.checkpoint_advice === 'object') card.append(renderCheckpoint(c.checkpoint_advice));
      if (!byKey.has(k)) card.append(el('p', { class: 'basis-desc', text: 'No data for this configuration in the window.' }));
      cards.append(card);
    }
    cards.setAttribute('aria-busy', 'false');

    const foot = $('unattributed');
    clear(foot);
    if ('unattributed_idle_cost' in summary || 'nodes_total_cost' in summary) {
      foot.append(
        'All nodes in the window cost ',
        figure('all:measured', 'nodes_total_cost', summary.nodes_total_cost, 'money'),
        '; idle time on pools no task used (not charged to any configuration): ',
        figure('all:measured', 'unattributed_idle_cost', summary.unattributed_idle_cost, 'money'),
        '.'
      );
    }
    if (summary.reconciliation && typeof summary.reconciliation === 'object') foot.append(renderAdviceObject('Reconciliation with DigitalOcean billing', summary.reconciliation));

    renderWindowLabel(summary);
  }

  /* "Last 7 days: 2026-11-09 00:00 UTC → 2026-11-16 00:00 UTC": the picker's
   * name and the exact window the API resolved it to. */
  function renderWindowLabel(summary) {
    const w = summary.window || {};
    const label = $('window-label');
    clear(label);
    const name = WINDOW_NAMES[state.window] || 'Window ' + state.window;
    label.append(
      el('strong', { text: name + ': ' }),
      el('span', { id: 'window-from', 'data-value': w.from || '', text: F.time(w.from) }),
      ' → ',
      el('span', { id: 'window-to', 'data-value': w.to || '', text: F.time(w.to) }),
      ' (end excluded)' + (state.window === '7d' ? ', ending at the latest data spotledger has seen' : '') + (state.experiment ? ' · experiment ' + state.experiment : '')
    );
  }

  /* Which cost basis the figures are on, in words; the completion basis falls
   * back to accrual (with a note) on a spotledger that does not offer it. */
  function renderBasisNote(summary) {
    const note = $('basis-note');
    const answered = typeof summary.basis === 'string' ? summary.basis : typeof summary.cost_basis === 'string' ? summary.cost_basis : null;
    let text = '';
    if (state.basis === 'completion' && state.basisUnsupported) text = 'This spotledger does not offer the completion basis yet: the figures are on the accrual basis (money counted in the window where it was spent).';
    else if (state.basis === 'completion' && answered !== null && answered !== 'completion') text = 'The completion basis was asked for, but the API answered on the ' + answered + ' basis: the figures are ' + answered + '.';
    else if (state.basis === 'completion') text = 'Completion basis: each task’s whole cost counts in the window where it completed.';
    else text = 'Accrual basis: money counts in the window where it was spent.';
    if (summary.partial === true) text += ' Partial window: it cuts tasks in two, so the two bases differ.';
    else if (summary.partial === false) text += ' No task is cut by this window: both bases agree.';
    note.textContent = text;
    if (typeof summary.partial === 'boolean') note.setAttribute('data-partial', String(summary.partial));
    note.setAttribute('data-basis', state.basisUnsupported || (answered && answered !== state.basis) ? 'accrual' : state.basis);
  }

  /* A window is empty when no task succeeded, failed, ran or made an attempt in it. */
  function windowIsEmpty(summary) {
    const confs = Array.isArray(summary.configurations) ? summary.configurations : [];
    for (const c of confs) {
      if ((c.basis || 'measured') !== 'measured') continue;
      for (const f of ['tasks_succeeded', 'tasks_failed', 'tasks_running', 'attempts']) if (F.isNum(c[f]) && c[f] > 0) return false;
    }
    return true;
  }

  function isoDay(ms) {
    return new Date(ms).toISOString().slice(0, 10);
  }

  /* The latest 7 whole UTC days holding data: they end at the midnight after
   * the latest task completion or attempt start (status.data_latest). */
  function latestDataWindow(st) {
    const last = msOf(st && st.data_latest);
    if (last === null) return null;
    const end = Math.floor(last / DAY_MS) * DAY_MS + DAY_MS;
    return { from: isoDay(end - 7 * DAY_MS), to: isoDay(end) };
  }

  async function renderEmptyNotice(summary, gen) {
    const box = $('empty-window');
    if (!windowIsEmpty(summary)) {
      box.hidden = true;
      clear(box);
      return;
    }
    let st = null;
    try {
      st = await statusOnce();
    } catch (_) {
      st = null;
    }
    if (gen !== state.generation) return;
    clear(box);
    const w = summary.window || {};
    box.append(el('strong', { text: 'No tasks in this window' }), ' (' + F.time(w.from) + ' → ' + F.time(w.to) + '). ');
    const target = latestDataWindow(st);
    const same = target && state.resolved && state.resolved.from === target.from + 'T00:00:00Z' && state.resolved.to === target.to + 'T00:00:00Z';
    if (target && !same) {
      const href = '#' + new URLSearchParams({ window: 'custom', from: target.from, to: target.to }).toString();
      box.append(el('a', { id: 'jump-latest', href, 'data-from': target.from, 'data-to': target.to, text: 'Show the latest 7 days with data (' + target.from + ' → ' + target.to + ')' }));
    } else if (!target) {
      box.append('spotledger has not recorded any task yet; figures appear after the first poll that sees a Job.');
    }
    box.hidden = false;
  }

  /* Young/Daly checkpoint advice, in words, with the data it came from. */
  function renderCheckpoint(a) {
    const wrap = el('div', { class: 'checkpoint' });
    if (F.isNum(a.interval_seconds)) {
      const p = el('p', { class: 'advice-line' }, 'Checkpoint about every ', el('strong', { text: F.duration(a.interval_seconds) }));
      if (F.isNum(a.mean_checkpoint_seconds) && F.isNum(a.mean_time_between_reclaims_seconds)) {
        p.append(' (a checkpoint takes ' + F.duration(a.mean_checkpoint_seconds) + '; ' + (a.size ? a.size + ' ' : '') + 'Spot nodes were reclaimed every ' + F.duration(a.mean_time_between_reclaims_seconds) + ' on average)');
      }
      p.append('.');
      wrap.append(p);
    }
    wrap.append(renderAdviceObject(F.isNum(a.interval_seconds) ? 'Checkpoint advice: the data' : 'Checkpoint advice', a));
    return wrap;
  }

  /* Generic key/value rendering for API objects whose exact shape may grow. */
  function renderAdviceObject(title, obj) {
    const d = el('details', { class: 'kv' }, el('summary', { text: title }));
    const dl = el('dl');
    for (const [key, v] of Object.entries(obj)) {
      let text;
      if (v === null || v === undefined) text = DASH;
      else if (typeof v === 'number') {
        if (/cost|amount|billed|usd|price|difference|delta/.test(key)) text = F.moneyExact(v);
        else if (/percent/.test(key)) text = F.percent(v);
        else if (/seconds/.test(key)) text = F.duration(v);
        else text = F.decimalString(v);
      } else if (typeof v === 'object') text = JSON.stringify(v);
      else if (typeof v === 'string' && /_at$|^t$|time/.test(key)) text = F.time(v);
      else text = String(v);
      dl.append(el('div', { class: 'row' }, el('dt', { text: key.replace(/_/g, ' ') }), el('dd', { text })));
    }
    d.append(dl);
    return d;
  }

  /* ---------- charts ---------- */

  function chartsAvailable() {
    return typeof window.Chart === 'function';
  }

  const reduceMotion = window.matchMedia && window.matchMedia('(prefers-reduced-motion: reduce)').matches;

  function makeChart(id, config) {
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

  async function loadTrend(gen) {
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

  function renderSplit(summary) {
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

  function msOf(t) {
    const v = typeof t === 'string' ? Date.parse(t) : NaN;
    return Number.isFinite(v) ? v : null;
  }

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

  async function loadReclaims(gen) {
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

  /* ---------- tasks ---------- */

  function outcomeBadge(o) {
    return el('span', { class: 'outcome outcome-' + (o || 'unknown'), text: o || DASH });
  }

  function updateSortHeaders() {
    for (const th of document.querySelectorAll('#tasks-table th[data-sort]')) {
      const active = th.dataset.sort === state.tasks.sort;
      th.setAttribute('aria-sort', active ? (state.tasks.order === 'asc' ? 'ascending' : 'descending') : 'none');
      const b = th.querySelector('button');
      b.dataset.dir = active ? state.tasks.order : '';
    }
  }

  async function loadTasks(gen) {
    const body = $('tasks-body');
    const t = state.tasks;
    updateSortHeaders();
    body.setAttribute('aria-busy', 'true');
    try {
      const params = Object.assign(viewParams(), {
        configuration: t.configuration,
        outcome: t.outcome,
        limit: PAGE_SIZE,
        sort: t.sort,
        order: t.order,
        cursor: t.cursors[t.page] || '',
      });
      const res = await api('tasks', params);
      if (gen !== state.generation) return;
      const tasks = Array.isArray(res.tasks) ? res.tasks : [];
      clear(body);
      if (!tasks.length) {
        body.append(el('tr', null, el('td', { colspan: 11, class: 'placeholder', text: 'No tasks match.' })));
      }
      for (const task of tasks) {
        const link = el('a', { href: hashFor({ task: task.uid }), text: (task.namespace ? task.namespace + '/' : '') + (task.name || task.uid) });
        const tr = el(
          'tr',
          { tabindex: 0, 'data-uid': task.uid, class: 'clickable', 'aria-label': 'Task ' + (task.name || task.uid) + ', press Enter for its attempts' },
          el('th', { scope: 'row' }, link),
          el('td', { text: NAMES[task.configuration] || task.configuration || DASH }),
          el('td', { class: 'hide-narrow', text: task.experiment || DASH }),
          el('td', null, outcomeBadge(task.outcome)),
          el('td', { class: 'num', text: F.count(task.attempts) }),
          el('td', { class: 'num hide-narrow', text: F.count(task.retries) }),
          el('td', { class: 'num hide-narrow', text: F.count(task.interruptions) }),
          el('td', { class: 'num hide-narrow', text: F.duration(task.restore_seconds) }),
          el('td', { class: 'num', title: F.moneyExact(task.cost), text: F.money(task.cost) }),
          el('td', { class: 'num hide-narrow', title: F.moneyExact(task.wasted_cost), text: F.money(task.wasted_cost) }),
          el('td', { text: F.time(task.completed_at) })
        );
        tr.addEventListener('click', (ev) => {
          if (ev.target.closest('a')) return;
          location.hash = hashFor({ task: task.uid });
        });
        tr.addEventListener('keydown', (ev) => {
          if ((ev.key === 'Enter' || ev.key === ' ') && ev.target === tr) {
            ev.preventDefault();
            location.hash = hashFor({ task: task.uid });
          }
        });
        body.append(tr);
      }
      if (res.next_cursor) t.cursors[t.page + 1] = res.next_cursor;
      else t.cursors.length = t.page + 1;
      $('next-page').disabled = !res.next_cursor;
      $('prev-page').disabled = t.page === 0;
      $('page-label').textContent = 'Page ' + (t.page + 1);
    } catch (e) {
      if (gen !== state.generation) return;
      clear(body);
      const td = el('td', { colspan: 11 });
      errorBox(td, e, 'tasks');
      body.append(el('tr', null, td));
    } finally {
      body.setAttribute('aria-busy', 'false');
    }
  }

  function hideTask() {
    $('task-detail').hidden = true;
    $('task-detail').removeAttribute('data-task-uid');
  }

  function closeTask() {
    state.task = '';
    hideTask();
    const h = hashFor({ task: '' });
    history.replaceState(null, '', h === '#' ? location.pathname + location.search : h);
    const row = document.querySelector('#tasks-body tr[data-uid]');
    if (row) row.focus();
  }

  async function openTask(uid) {
    state.task = uid;
    const panel = $('task-detail');
    const body = $('attempts-body');
    const summary = $('task-summary');
    panel.hidden = false;
    panel.setAttribute('data-task-uid', uid);
    panel.setAttribute('data-loaded', 'false');
    $('task-detail-heading').textContent = 'Attempts of task ' + uid;
    clear(body);
    clear(summary);
    try {
      const res = await api('tasks/' + encodeURIComponent(uid));
      if (state.task !== uid) return;
      const task = res.task || {};
      $('task-detail-heading').textContent = 'Attempts of ' + (task.namespace ? task.namespace + '/' : '') + (task.name || uid);
      const kv = [
        ['Configuration', NAMES[task.configuration] || task.configuration || DASH],
        ['Experiment', task.experiment || DASH],
        ['Outcome', task.outcome || DASH],
        ['Attempts', F.count(Array.isArray(task.attempts) ? task.attempts.length : task.attempts)],
        ['Retries', F.count(task.retries)],
        ['Interruptions', F.count(task.interruptions)],
        ['Restore time', F.duration(task.restore_seconds)],
        ['Cost', F.money(task.cost)],
        ['Wasted', F.money(task.wasted_cost)],
        ['Completed', F.time(task.completed_at)],
      ];
      for (const [k, v] of kv) summary.append(el('div', { class: 'row' }, el('dt', { text: k }), el('dd', { text: v })));
      const attempts = Array.isArray(task.attempts) ? task.attempts : [];
      if (!attempts.length) body.append(el('tr', null, el('td', { colspan: 11, class: 'placeholder', text: 'No attempts recorded.' })));
      attempts.forEach((a, i) => {
        body.append(
          el(
            'tr',
            { 'data-attempt-uid': a.uid || '', class: 'attempt-' + (a.outcome || 'unknown') },
            el('td', { class: 'num', text: String(i + 1) }),
            el('td', { class: 'mono', text: a.name || a.uid || DASH }),
            el('td', { class: 'mono', text: a.node || DASH }),
            el('td', null, (a.pool || a.pool_id || DASH) + (a.capacity_type ? ' (' + a.capacity_type + ')' : '')),
            el('td', { text: F.time(a.scheduled_at) }),
            el('td', { text: F.time(a.started_at) }),
            el('td', { text: F.time(a.ended_at) }),
            el('td', null, outcomeBadge(a.outcome)),
            el('td', { text: [a.reason, a.exit_code !== null && a.exit_code !== undefined ? 'exit ' + a.exit_code : ''].filter(Boolean).join(', ') || DASH }),
            el('td', { class: 'num', title: F.moneyExact(a.cost), text: F.money(a.cost) }),
            el('td', { class: 'num', text: F.duration(a.restore_gap_seconds) })
          )
        );
      });
      panel.setAttribute('data-loaded', 'true');
      $('task-detail-heading').focus({ preventScroll: true });
    } catch (e) {
      if (state.task !== uid) return;
      const td = el('td', { colspan: 11 });
      errorBox(td, e, 'task ' + uid);
      body.append(el('tr', null, td));
      panel.setAttribute('data-loaded', 'error');
    }
  }

  /* ---------- advice, experiments, exports, status ---------- */

  async function loadAdvice(gen) {
    try {
      const res = await api('advice', viewParams());
      if (gen !== state.generation) return;
      const list = $('advice-list');
      clear(list);
      const findings = Array.isArray(res.findings) ? res.findings : [];
      const rank = { critical: 0, warning: 1, info: 2 };
      findings.sort((a, b) => (rank[a.severity] ?? 3) - (rank[b.severity] ?? 3));
      for (const f of findings) {
        const li = el('li', { class: 'finding severity-' + (f.severity || 'info'), 'data-rule': f.rule || '' });
        li.append(el('p', { class: 'finding-title' }, el('span', { class: 'severity', text: f.severity || 'info' }), ' ', f.title || f.rule || ''));
        if (f.why) li.append(el('p', { text: f.why }));
        if (f.fix) li.append(el('p', { class: 'fix' }, el('strong', { text: 'Fix: ' }), f.fix));
        if (f.evidence && typeof f.evidence === 'object' && Object.keys(f.evidence).length) li.append(renderAdviceObject('Evidence', f.evidence));
        list.append(li);
      }
      $('advice-panel').hidden = findings.length === 0;
    } catch (e) {
      /* advice is optional: a spotledger without the advisor simply shows no panel */
      $('advice-panel').hidden = true;
    }
  }

  async function loadExperiments() {
    try {
      const res = await api('experiments');
      const sel = $('experiment-select');
      const have = new Set([...sel.options].map((o) => o.value));
      for (const name of Array.isArray(res.experiments) ? res.experiments : []) {
        if (!have.has(name)) sel.append(el('option', { value: name, text: name }));
      }
      sel.value = state.experiment;
    } catch (_) {
      /* the picker keeps "All experiments" */
    }
  }

  async function loadExports() {
    const list = $('exports-list');
    try {
      const res = await api('exports');
      clear(list);
      const ex = Array.isArray(res.exports) ? res.exports : [];
      if (!ex.length) list.append(el('li', { class: 'placeholder', text: 'No weekly files written yet.' }));
      for (const x of ex) {
        const url = typeof x.url === 'string' && x.url.startsWith('/') ? x.url : API + 'export.csv' + query({ week: x.week, kind: x.kind });
        const name = x.file ? String(x.file).split('/').pop() : 'spotledger-' + x.week + '-' + x.kind + '.csv';
        const b = el('button', { type: 'button', class: 'download' }, (x.week || DASH) + ' ' + (x.kind || ''));
        b.addEventListener('click', () => downloadCsv(url, name, b));
        list.append(el('li', null, b, el('span', { class: 'sub', text: ' ' + F.count(x.rows) + ' rows · ' + F.count(x.bytes) + ' bytes · written ' + F.time(x.written_at) })));
      }
    } catch (e) {
      errorBox(list, e, 'the weekly files');
    }
  }

  async function downloadCsv(url, filename, button) {
    if (button) button.disabled = true;
    try {
      const { blob, disposition } = await request(url, true);
      const m = disposition && /filename="?([^";]+)"?/.exec(disposition);
      const a = el('a', { href: URL.createObjectURL(blob) });
      a.download = m ? m[1] : filename;
      document.body.append(a);
      a.click();
      a.remove();
      setTimeout(() => URL.revokeObjectURL(a.href), 10000);
    } catch (e) {
      showBanner('Download failed: ' + e.message);
    } finally {
      if (button) button.disabled = false;
    }
  }

  let statusPromise = null;
  /* One /api/v1/status answer shared by the pill and the empty-window notice;
   * refreshed by loadStatus. */
  function statusOnce() {
    if (!statusPromise) statusPromise = api('status');
    return statusPromise;
  }

  async function loadStatus(refresh) {
    if (refresh) statusPromise = null;
    const dot = $('status-dot');
    const text = $('status-text');
    const detail = $('status-detail');
    try {
      const st = await statusOnce();
      const watching = st.watching || {};
      $('nokube-banner').hidden = watching.no_kube !== true;
      const sources = (Array.isArray(st.sources) ? st.sources : []).filter((s) => !(s.source === 'k8s' && watching.no_kube === true));
      // billing insights are optional (a token without billing:read / account:read
      // degrades quietly): listed below, never the headline state
      const core = sources.filter((s) => s.source !== 'do_insights');
      const anyError = core.some((s) => s.status === 'error');
      const allOk = core.length > 0 && core.every((s) => s.status === 'ok');
      let last = null;
      for (const s of sources) if (s.last_poll && (last === null || (msOf(s.last_poll) || 0) > (msOf(last) || 0))) last = s.last_poll;
      dot.className = 'dot ' + (anyError ? 'dot-error' : allOk ? 'dot-ok' : 'dot-idle');
      text.textContent = (anyError ? 'Source error' : allOk ? 'Sources OK' : 'Waiting for first poll') + (last ? ' · last poll ' + F.time(last) : '');
      clear(detail);
      const dl = el('dl');
      for (const s of sources) {
        const label = { do: 'DigitalOcean', do_billing: 'DigitalOcean billing', do_insights: 'DigitalOcean billing insights (optional)', k8s: 'Kubernetes' }[s.source] || s.source;
        dl.append(
          el(
            'div',
            { class: 'row', 'data-source': s.source },
            el('dt', null, el('span', { class: 'dot ' + (s.status === 'ok' ? 'dot-ok' : s.status === 'error' ? 'dot-error' : 'dot-idle') }), label),
            el('dd', null, (s.status || DASH) + ' · last poll ' + F.time(s.last_poll) + ' · last success ' + F.time(s.last_success) + ' · lag ' + F.duration(s.lag_seconds), s.error ? el('span', { class: 'form-error', text: ' ' + s.error }) : null)
          )
        );
      }
      detail.append(dl, el('p', { class: 'sub', text: 'spotledger ' + (st.version || '') + ' · source clock ' + F.time(st.now) }));
    } catch (e) {
      statusPromise = null;
      dot.className = 'dot dot-error';
      text.textContent = 'Status unavailable';
      clear(detail);
      detail.append(el('p', { text: e.message }));
    }
  }

  /* ---------- orchestration ---------- */

  async function loadUncertainty(gen) {
    const params = uncParams(costParams(windowParams()));
    const box = $('uncertainty');
    if (!params.uncertainty) {
      if (box) clear(box);
      return;
    }
    try {
      const u = await api('summary', params);
      if (gen !== state.generation) return;
      renderUncertainty(u);
    } catch (e) {
      if (gen !== state.generation) return;
      if (box) clear(box);
    }
  }

  async function loadSummary(gen) {
    const cards = $('cards');
    cards.setAttribute('aria-busy', 'true');
    try {
      let summary;
      try {
        summary = await api('summary', costParams(windowParams()));
        state.basisApplied = state.basis === 'completion' && !state.basisUnsupported;
      } catch (e) {
        // an older spotledger refuses basis= (unknown parameters are errors): say so, show accrual
        if (!(e.status === 400 && state.basis === 'completion' && /basis/.test(e.message || ''))) throw e;
        state.basisUnsupported = true;
        state.basisApplied = false;
        summary = await api('summary', windowParams());
      }
      if (gen !== state.generation) return;
      renderBasisNote(summary);
      const w = summary.window || {};
      state.resolved = w.from && w.to ? { from: w.from, to: w.to } : null;
      renderCards(summary);
      loadUncertainty(gen);
      renderEmptyNotice(summary, gen);
      if (!firstPaintDone) {
        firstPaintDone = true;
        performance.mark('spotledger-cards');
        document.body.setAttribute('data-first-paint-ms', String(Math.round(performance.now())));
      }
      document.body.setAttribute('data-state', 'ready');
      renderSplit(summary);
    } catch (e) {
      if (gen !== state.generation) return;
      errorBox(cards, e, 'the summary');
      cards.setAttribute('aria-busy', 'false');
      document.body.setAttribute('data-state', 'error');
    }
  }

  function reloadAll() {
    const gen = ++state.generation;
    state.resolved = null;
    resetPages();
    // The cards first: on two cores the other panels' queries would compete with
    // the one figure finance opens the page for. The rest follows at once.
    document.body.setAttribute('data-panels', 'loading');
    const rest = () =>
      Promise.all([loadTrend(gen), loadReclaims(gen), loadTasks(gen), loadAdvice(gen)]).then(() => {
        if (gen === state.generation) document.body.setAttribute('data-panels', 'ready');
      });
    return loadSummary(gen).then(rest, rest);
  }

  function start() {
    readHash();
    syncControls();
    bindControls();
    const first = reloadAll();
    loadExperiments();
    loadExports();
    loadStatus();
    setInterval(() => loadStatus(true), 30000);
    if (state.task) openTask(state.task);
    return first;
  }

  if (document.readyState === 'loading') document.addEventListener('DOMContentLoaded', start);
  else start();
})();
