/* spotledger dashboard: the source status pill and its detail. */
import { api } from './api.js';
import { $, clear, DASH, el, F, msOf } from './dom.js';

let statusPromise = null;
/* One /api/v1/status answer shared by the pill and the empty-window notice;
 * refreshed by loadStatus. */
export function statusOnce() {
  if (!statusPromise) statusPromise = api('status');
  return statusPromise;
}

export async function loadStatus(refresh) {
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
