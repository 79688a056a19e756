/* spotledger dashboard: DOM helpers and the names, order and colours of the
 * configurations that every panel shares. */
export const F = window.SLFormat;
export const DASH = F.DASH;

export const NAMES = { spot: 'Spot', fallback: 'Spot + fallback', 'on-demand': 'On-Demand' };

export const CARD_ORDER = [
  ['spot', 'measured'],
  ['fallback', 'measured'],
  ['on-demand', 'measured'],
  ['on-demand', 'counterfactual'],
];
export const COLORS = {
  'spot:measured': '#1f77b4',
  'fallback:measured': '#9467bd',
  'on-demand:measured': '#2ca02c',
  'on-demand:counterfactual': '#7f7f7f',
};

/* ---------- small DOM helpers ---------- */

export const $ = (id) => document.getElementById(id);

export function el(tag, attrs, ...children) {
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

export function clear(node) {
  while (node.firstChild) node.removeChild(node.firstChild);
}

export function configName(configuration, basis) {
  const n = NAMES[configuration] || configuration || DASH;
  return basis === 'counterfactual' ? n + ' (counterfactual)' : n;
}

export function errorBox(target, e, what) {
  clear(target);
  target.append(el('p', { class: 'panel-error', role: 'alert', text: 'Could not load ' + what + ': ' + (e && e.message ? e.message : String(e)) }));
}

export function showBanner(msg) {
  const b = $('global-error');
  b.textContent = msg;
  b.hidden = !msg;
}

export function msOf(t) {
  const v = typeof t === 'string' ? Date.parse(t) : NaN;
  return Number.isFinite(v) ? v : null;
}
