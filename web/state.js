/* spotledger dashboard: the view state (window, experiment, cluster, basis,
 * task filters, the open task), kept in the URL hash so a view can be linked, and
 * the query parameters every panel of the view asks with. */
import { $ } from './dom.js';

export const WINDOW_NAMES = { '7d': 'Last 7 days', week: 'This week', lastweek: 'Last week', '30d': 'Last 30 days', custom: 'Custom window' };
export const DAY_MS = 86400000;

export const state = {
  window: '7d',
  from: '',
  to: '',
  experiment: '',
  cluster: '', /* '' = every cluster, else 'a' or 'a,b' (the API's cluster=, docs/fleet.md) */
  clusterNames: null, /* the service's clusters (status clusters[]), once known */
  accrualSummary: null, /* the fleet summary of this view on the accrual basis, when the cards asked for it */
  basis: 'accrual', /* cost basis: accrual (the API's default) or completion */
  basisUnsupported: false, /* the API refused basis= (an older spotledger) */
  basisApplied: false, /* the current figures were asked for on the completion basis */
  step: 'auto',
  tasks: { configuration: '', outcome: '', sort: 'completed_at', order: 'desc', cursors: [null], page: 0 },
  task: '',
  resolved: null, /* {from, to} of the window the summary answered for */
  generation: 0, /* bumps on every reload so late answers of an older view are dropped */
};

/* The window the summary answered for, as from/to, once it is known. */
export function viewParams() {
  if (!state.resolved) return windowParams();
  const p = { from: state.resolved.from, to: state.resolved.to };
  if (state.experiment) p.experiment = state.experiment;
  if (state.cluster) p.cluster = state.cluster;
  return p;
}

/* basis= goes only to the summary (the only route that takes it; the trend
 * and the CSV stay on the accrual basis), and only when it is not the API's
 * default (accrual). */
export function costParams(params) {
  if (state.basis === 'completion' && !state.basisUnsupported) params.basis = 'completion';
  return params;
}

export function windowParams() {
  const p = {};
  if (state.window === 'custom' && state.from && state.to) {
    p.from = state.from + 'T00:00:00Z';
    p.to = state.to + 'T00:00:00Z';
  } else {
    p.window = state.window === 'custom' ? '7d' : state.window;
  }
  if (state.experiment) p.experiment = state.experiment;
  if (state.cluster) p.cluster = state.cluster;
  return p;
}

/* cluster names as the API takes them (docs/fleet.md): 1-63 letters, digits, . _ -, comma-separated */
export const CLUSTER_LIST = /^[A-Za-z0-9._-]{1,63}(,[A-Za-z0-9._-]{1,63}){0,31}$/;

/* ---------- URL hash ---------- */

export function readHash() {
  const h = new URLSearchParams(location.hash.replace(/^#/, ''));
  const w = h.get('window');
  /* any window the API understands may be linked (e.g. 2026-W48, 7d); the picker gains it */
  if (w && /^[A-Za-z0-9:,.+-]{1,80}$/.test(w)) state.window = w;
  if (h.get('from')) state.from = h.get('from');
  if (h.get('to')) state.to = h.get('to');
  if (state.window === 'custom' && !(state.from && state.to)) state.window = '7d';
  if (!w) state.window = '7d';
  state.experiment = h.get('experiment') || '';
  const cl = h.get('cluster') || '';
  state.cluster = CLUSTER_LIST.test(cl) ? cl : '';
  state.basis = h.get('basis') === 'completion' ? 'completion' : 'accrual';
  state.task = h.get('task') || '';
}

export function hashFor(overrides) {
  const h = new URLSearchParams();
  if (state.window !== '7d') h.set('window', state.window);
  if (state.window === 'custom') {
    h.set('from', state.from);
    h.set('to', state.to);
  }
  if (state.experiment) h.set('experiment', state.experiment);
  if (state.cluster) h.set('cluster', state.cluster);
  if (state.basis === 'completion') h.set('basis', 'completion');
  const task = overrides && 'task' in overrides ? overrides.task : state.task;
  if (task) h.set('task', task);
  const s = h.toString();
  return s ? '#' + s : '#';
}

export function writeHash() {
  const h = hashFor();
  if (h !== location.hash && !(h === '#' && location.hash === '')) history.replaceState(null, '', h === '#' ? location.pathname + location.search : h);
}

export function viewName() {
  if (state.resolved) return (state.resolved.from + '_' + state.resolved.to).replace(/:/g, '');
  if (state.window === 'custom') return state.from + '_' + state.to;
  return state.window;
}

export function resetPages() {
  state.tasks.cursors = [null];
  state.tasks.page = 0;
}
