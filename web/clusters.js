/* spotledger dashboard: the fleet (docs/fleet.md, issue 22). The cluster
 * picker (all clusters, one, or several), shown only when the service watches
 * more than one cluster (GET /api/v1/status clusters[]), and the by-cluster
 * comparison table: one group of rows per cluster from
 * GET /api/v1/summary?aggregate=cluster, then the fleet total, which is the
 * API's own summary of the same selection (the page adds nothing up itself).
 *
 * Test hooks: #cluster-field (hidden with one cluster), #cluster-select,
 * #cluster-checks input[value=NAME]; #clusters-panel[data-state] (loading,
 * ready, error, single); each cluster is a tbody[data-cluster=NAME], the total
 * tbody[data-total="fleet"]; rows tr[data-configuration][data-basis]; figures
 * td[data-field] with data-value = the exact API value. */
import { api } from './api.js';
import { $, CARD_ORDER, clear, configName, DASH, el, errorBox, F } from './dom.js';
import { state, viewParams } from './state.js';
import { statusOnce } from './status.js';

export const SEVERAL = '*several'; /* never a cluster name: '*' is not allowed in one */

/* The service's cluster names from the status answer (once per status load). */
export async function clusterNames() {
  try {
    const st = await statusOnce();
    const list = Array.isArray(st.clusters) ? st.clusters : [];
    state.clusterNames = list.map((c) => c && c.name).filter((n) => typeof n === 'string' && n);
  } catch (_) {
    if (state.clusterNames === null) state.clusterNames = [];
  }
  return state.clusterNames;
}

function selected() {
  return state.cluster ? state.cluster.split(',') : [];
}

/* Fill the picker from the status answer and show it when there is more than
 * one cluster. Returns true when a linked selection was dropped because this
 * service has a single cluster (the caller reloads the view). */
export async function renderClusterPicker() {
  const names = await clusterNames();
  const field = $('cluster-field');
  const sel = $('cluster-select');
  if (names.length <= 1) {
    field.hidden = true;
    $('cluster-several').hidden = true;
    if (state.cluster) {
      state.cluster = '';
      return true;
    }
    return false;
  }
  const chosen = selected();
  // a linked cluster this service does not list still shows (its figures are empty)
  const all = names.concat(chosen.filter((n) => !names.includes(n)));
  // the status refresh (every 30 s) rebuilds nothing while the list is the same,
  // so boxes being ticked are not reset under the user
  if (field.dataset.names === all.join(',') && !field.hidden) return false;
  field.dataset.names = all.join(',');
  for (const o of [...sel.options]) if (o.value !== '' && o.value !== SEVERAL) o.remove();
  const several = sel.querySelector('option[value="' + SEVERAL + '"]');
  for (const n of all) sel.insertBefore(el('option', { value: n, text: n }), several);
  const checks = $('cluster-checks');
  clear(checks);
  for (const n of all) {
    const id = 'cluster-check-' + n;
    checks.append(el('div', { class: 'check' }, el('input', { type: 'checkbox', id, name: 'cluster-check', value: n, checked: chosen.length === 0 || chosen.includes(n) }), el('label', { for: id, text: n })));
  }
  field.hidden = false;
  syncClusterPicker();
  return false;
}

/* The picker shows state.cluster: '' all, one name, or "Several…" with its boxes. */
export function syncClusterPicker() {
  const sel = $('cluster-select');
  const chosen = selected();
  if (chosen.length > 1) sel.value = SEVERAL;
  else sel.value = chosen.length === 1 && [...sel.options].some((o) => o.value === chosen[0]) ? chosen[0] : '';
  const checks = [...document.querySelectorAll('#cluster-checks input')];
  for (const c of checks) c.checked = chosen.length === 0 || chosen.includes(c.value);
  $('cluster-several').hidden = sel.value !== SEVERAL || $('cluster-field').hidden;
}

/* The selection the picker asks for: {cluster} or {error}. */
export function pickedClusters() {
  const v = $('cluster-select').value;
  if (v !== SEVERAL) return { cluster: v };
  const boxes = [...document.querySelectorAll('#cluster-checks input')];
  const on = boxes.filter((b) => b.checked).map((b) => b.value);
  if (!on.length) return { error: 'Choose at least one cluster.' };
  return { cluster: on.length === boxes.length ? '' : on.join(',') };
}

function cell(field, value, kind) {
  const text = kind === 'money' ? F.money(value) : F.count(value);
  const attrs = { class: 'num', 'data-field': field, 'data-value': F.isNum(value) ? F.decimalString(value) : 'null', text };
  if (kind === 'money' && F.isNum(value) && F.moneyExact(value) !== text) attrs.title = 'exactly ' + F.moneyExact(value);
  return el('td', attrs);
}

/* One tbody: a heading row naming the group, then a row per configuration. */
function group(label, attrs, summary) {
  const body = el('tbody', attrs);
  body.append(el('tr', { class: 'group-head' }, el('th', { scope: 'rowgroup', colspan: '5', text: label })));
  const confs = Array.isArray(summary && summary.configurations) ? summary.configurations : [];
  const byKey = new Map(confs.map((c) => [c.configuration + ':' + (c.basis || 'measured'), c]));
  const keys = CARD_ORDER.map(([c, b]) => c + ':' + b);
  for (const k of byKey.keys()) if (!keys.includes(k)) keys.push(k);
  for (const k of keys) {
    const c = byKey.get(k);
    if (!c) continue;
    const [configuration, basis] = k.split(':');
    body.append(
      el(
        'tr',
        { 'data-configuration': configuration, 'data-basis': basis },
        el('th', { scope: 'row', text: configName(configuration, basis) }),
        cell('cost_per_successful_task', c.cost_per_successful_task, 'money'),
        cell('tasks_succeeded', c.tasks_succeeded, 'count'),
        cell('cost', c.cost, 'money'),
        cell('idle_cost', c.idle_cost, 'money')
      )
    );
  }
  if (!byKey.size) body.append(el('tr', null, el('td', { colspan: '5', class: 'placeholder', text: 'No data in this window.' })));
  return body;
}

/* The comparison table of the view of generation gen (after the cards: the
 * fleet total reuses their summary when it is on the accrual basis). */
export async function loadClusterTable(gen) {
  const panel = $('clusters-panel');
  const names = state.clusterNames === null ? await clusterNames() : state.clusterNames;
  if (gen !== state.generation) return;
  if (names.length <= 1) {
    panel.hidden = true;
    panel.dataset.state = 'single';
    return;
  }
  panel.hidden = false;
  panel.dataset.state = 'loading';
  panel.setAttribute('aria-busy', 'true');
  const table = $('clusters-table');
  const note = $('clusters-note');
  try {
    const params = viewParams();
    const [byCluster, fleet] = await Promise.all([
      api('summary', Object.assign({}, params, { aggregate: 'cluster' })),
      state.accrualSummary ? Promise.resolve(state.accrualSummary) : api('summary', params),
    ]);
    if (gen !== state.generation) return;
    for (const b of [...table.tBodies]) b.remove();
    const list = Array.isArray(byCluster.clusters) ? byCluster.clusters : [];
    for (const c of list) table.append(group(c.cluster || DASH, { 'data-cluster': c.cluster }, c.summary));
    table.append(group(state.cluster ? 'Total of the selected clusters' : 'Fleet total', { 'data-total': 'fleet', class: 'total' }, fleet));
    note.textContent = list.length ? '' : 'No cluster has data in this window.';
    panel.dataset.state = 'ready';
  } catch (e) {
    if (gen !== state.generation) return;
    for (const b of [...table.tBodies]) b.remove();
    errorBox(note, e, 'the figures by cluster');
    panel.dataset.state = 'error';
  } finally {
    if (gen === state.generation) panel.setAttribute('aria-busy', 'false');
  }
}
