import { API, api, query } from './api.js';
import { loadTrend } from './charts.js';
import { pickedClusters, SEVERAL, syncClusterPicker } from './clusters.js';
import { $, el, showBanner } from './dom.js';
import { downloadCsv } from './exports.js';
import { readHash, resetPages, state, viewName, viewParams, writeHash } from './state.js';
import { closeTask, hideTask, loadTasks, openTask } from './tasks.js';

/* The pickers above the cards (window, experiment, cluster, cost basis), the trend's
 * step, the task filters, sorting and paging, the downloads of this view and
 * the status toggle; a change of view goes through the reload function that
 * app.js hands to bindControls. */

let reloadAll = () => {};
export function syncControls() {
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
  syncClusterPicker();
  $('step-select').value = state.step;
  $('filter-configuration').value = state.tasks.configuration;
  $('filter-outcome').value = state.tasks.outcome;
}

/* Wire every control; reload() reloads every panel of the view (app.js). */
export function bindControls(reload) {
  reloadAll = reload;
  $('window-select').addEventListener('change', () => {
    const custom = $('window-select').value === 'custom';
    $('custom-range').hidden = !custom;
    $('custom-range-to').hidden = !custom;
    if (custom) $('from-input').focus();
    else applyControls();
  });
  $('experiment-select').addEventListener('change', applyControls);
  $('cluster-select').addEventListener('change', () => {
    // several clusters: tick them, then Apply (one reload, not one per box)
    const several = $('cluster-select').value === SEVERAL;
    $('cluster-several').hidden = !several;
    if (several) document.querySelector('#cluster-checks input')?.focus();
    else applyControls();
  });
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
    const view = () => JSON.stringify([state.window, state.from, state.to, state.experiment, state.cluster, state.basis]);
    const before = view();
    readHash();
    syncControls();
    if (view() !== before) reloadAll();
    if (state.task) openTask(state.task);
    else hideTask();
  });
  for (const b of document.querySelectorAll('button.download')) {
    b.addEventListener('click', () => {
      const p = Object.assign(viewParams(), { kind: b.dataset.kind });
      if (b.dataset.aggregate) p.aggregate = b.dataset.aggregate; /* the by-cluster table's rows (docs/fleet.md) */
      const name = 'spotledger-' + viewName() + '-' + b.dataset.kind + (b.dataset.aggregate ? '-by-' + b.dataset.aggregate : '') + '.csv';
      downloadCsv(API + 'export.csv' + query(p), name, b);
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
  // the cluster picker is hidden until the status lists more than one cluster:
  // a linked cluster= is kept until then
  if (!$('cluster-field').hidden) {
    const picked = pickedClusters();
    if (picked.error) {
      showBanner(picked.error);
      return;
    }
    state.cluster = picked.cluster;
    syncClusterPicker(); /* one box ticked reads as that cluster, every box as all */
  }
  state.window = w;
  state.experiment = $('experiment-select').value;
  state.basis = $('basis-select').value === 'completion' ? 'completion' : 'accrual';
  showBanner('');
  writeHash();
  reloadAll();
}

/* The experiment picker: the experiments of the view's clusters
 * (experiments?cluster= alone answers the names only, docs/fleet.md), the
 * chosen one kept even when those clusters have none of its tasks. */
let experimentsAsked = 0;
export async function loadExperiments() {
  const asked = ++experimentsAsked;
  try {
    const res = await api('experiments', state.cluster ? { cluster: state.cluster } : {});
    if (asked !== experimentsAsked) return; /* a later cluster's list is on its way */
    const sel = $('experiment-select');
    const names = Array.isArray(res.experiments) ? res.experiments : [];
    for (const o of [...sel.options]) if (o.value) o.remove();
    for (const name of names) sel.append(el('option', { value: name, text: name }));
    if (state.experiment && !names.includes(state.experiment)) {
      sel.append(el('option', { value: state.experiment, text: state.experiment }));
    }
    sel.value = state.experiment;
    sel.dataset.cluster = state.cluster; /* whose list it is (tests/e2e/e2e_dashboard_fleet.sh) */
  } catch (_) {
    /* the picker keeps what it lists */
  }
}
