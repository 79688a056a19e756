/* spotledger dashboard: "How sure?" (docs/uncertainty.md). The intervals
 * come from a second summary call, made after the cards are painted. */
import { api } from './api.js';
import { $, clear, el, F } from './dom.js';
import { costParams, state, windowParams } from './state.js';

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

export async function loadUncertainty(gen) {
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
