/* spotledger dashboard: the tasks table (filters, sorting, cursor paging)
 * and one task's attempts (#task=<uid>). */
import { api } from './api.js';
import { $, clear, DASH, el, errorBox, F, NAMES } from './dom.js';
import { hashFor, state, viewParams } from './state.js';

const PAGE_SIZE = 50;

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

export async function loadTasks(gen) {
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

export function hideTask() {
  $('task-detail').hidden = true;
  $('task-detail').removeAttribute('data-task-uid');
}

export function closeTask() {
  state.task = '';
  hideTask();
  const h = hashFor({ task: '' });
  history.replaceState(null, '', h === '#' ? location.pathname + location.search : h);
  const row = document.querySelector('#tasks-body tr[data-uid]');
  if (row) row.focus();
}

export async function openTask(uid) {
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
