/* spotledger dashboard.
 *
 * Talks only to spotledger's REST API (/api/v1/...). Every figure on screen is
 * an API value passed through format.js (display formatting only); the page
 * never derives a cost, count or percentage itself. Comparisons (which card is
 * the cheapest, is the measured overhead above break-even) use the API values
 * as they are.
 *
 * State lives in the URL hash (#window=lastweek&experiment=x&cluster=a,b&task=<uid>) so a
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
 * #task-detail[data-task-uid].
 *
 * Modules (plain ES modules, no build step; each file one concern):
 *   app.js          this file: start-up and the order panels load in
 *   state.js        the view state, the URL hash, the query parameters of a view
 *   api.js          fetch of /api/v1/..., API errors, the bearer-token prompt
 *   dom.js          DOM helpers and the names and colours every panel shares
 *   controls.js     the window / experiment / cluster / basis pickers and other controls
 *   clusters.js     the fleet: the cluster picker and the by-cluster table
 *   cards.js        the overview cards (one per configuration and basis)
 *   notices.js      the window label, the cost-basis note, the empty-window notice
 *   uncertainty.js  "How sure?": the intervals, fetched after the cards
 *   charts.js       Chart.js set-up, the cost trend and the cost split
 *   reclaims.js     the node-count chart with its reclaim markers and list
 *   tasks.js        the tasks table and one task's attempts
 *   advice.js       the setup advisor's findings
 *   exports.js      CSV downloads and the weekly files
 *   status.js       the source status pill
 *   whatif.js       the "What if" planner panel (GET /api/v1/whatif)
 * format.js (classic script, window.SLFormat) holds the display formatting. */
import { loadAdvice } from './advice.js';
import { api } from './api.js';
import { renderCards } from './cards.js';
import { loadTrend, renderSplit } from './charts.js';
import { loadClusterTable, renderClusterPicker } from './clusters.js';
import { bindControls, loadExperiments, syncControls } from './controls.js';
import { $, errorBox } from './dom.js';
import { loadExports } from './exports.js';
import { renderBasisNote, renderEmptyNotice } from './notices.js';
import { loadReclaims } from './reclaims.js';
import { costParams, readHash, resetPages, state, windowParams, writeHash } from './state.js';
import { loadStatus } from './status.js';
import { loadTasks, openTask } from './tasks.js';
import { loadUncertainty } from './uncertainty.js';
import { loadWhatif } from './whatif.js';

let firstPaintDone = false;

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
    state.accrualSummary = state.basisApplied ? null : summary;
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

let experimentsOf = null; /* the cluster= the experiment picker lists */

function reloadAll() {
  const gen = ++state.generation;
  if (state.cluster !== experimentsOf) {
    experimentsOf = state.cluster;
    loadExperiments();
  }
  state.resolved = null;
  state.accrualSummary = null;
  resetPages();
  // The cards first: on two cores the other panels' queries would compete with
  // the one figure finance opens the page for. The rest follows at once.
  document.body.setAttribute('data-panels', 'loading');
  const rest = () =>
    Promise.all([loadClusterTable(gen), loadTrend(gen), loadReclaims(gen), loadTasks(gen), loadAdvice(gen)]).then(() => {
      if (gen !== state.generation) return;
      document.body.setAttribute('data-panels', 'ready');
      // the planner last: its simulation must not hold up the cards or the panels above
      if (state.resolved) loadWhatif(gen);
    });
  return loadSummary(gen).then(rest, rest);
}

function start() {
  readHash();
  syncControls();
  bindControls(reloadAll);
  const first = reloadAll();
  loadExports();
  loadStatus();
  // a linked cluster= on a service with one cluster is dropped (its picker is hidden)
  const clusters = () =>
    renderClusterPicker().then((dropped) => {
      if (!dropped) return;
      writeHash();
      reloadAll();
    });
  clusters();
  setInterval(() => loadStatus(true).then(clusters), 30000);
  if (state.task) openTask(state.task);
  return first;
}

if (document.readyState === 'loading') document.addEventListener('DOMContentLoaded', start);
else start();
