/* spotledger dashboard: what the figures are about, in words: the window
 * label, the cost-basis note, and the empty-window notice with its link to
 * the latest window holding data. */
import { $, clear, el, F, msOf } from './dom.js';
import { DAY_MS, state, WINDOW_NAMES } from './state.js';
import { statusOnce } from './status.js';

/* "Last 7 days: 2026-11-09 00:00 UTC → 2026-11-16 00:00 UTC": the picker's
 * name and the exact window the API resolved it to. */
export function renderWindowLabel(summary) {
  const w = summary.window || {};
  const label = $('window-label');
  clear(label);
  const name = WINDOW_NAMES[state.window] || 'Window ' + state.window;
  label.append(
    el('strong', { text: name + ': ' }),
    el('span', { id: 'window-from', 'data-value': w.from || '', text: F.time(w.from) }),
    ' → ',
    el('span', { id: 'window-to', 'data-value': w.to || '', text: F.time(w.to) }),
    ' (end excluded)' + (state.window === '7d' ? ', ending at the latest data spotledger has seen' : '') + (state.experiment ? ' · experiment ' + state.experiment : '') + (state.cluster ? ' · cluster ' + state.cluster.replace(/,/g, ', ') : '')
  );
}

/* Which cost basis the figures are on, in words; the completion basis falls
 * back to accrual (with a note) on a spotledger that does not offer it. */
export function renderBasisNote(summary) {
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

export async function renderEmptyNotice(summary, gen) {
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
