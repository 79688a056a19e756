/* spotledger dashboard: CSV downloads (fetch + Blob so the bearer token is
 * sent) and the list of weekly files. */
import { API, api, query, request } from './api.js';
import { $, clear, DASH, el, errorBox, F, showBanner } from './dom.js';

export async function loadExports() {
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

export async function downloadCsv(url, filename, button) {
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
