/* spotledger dashboard: the setup advisor's findings (optional panel). */
import { api } from './api.js';
import { renderAdviceObject } from './cards.js';
import { $, clear, el } from './dom.js';
import { state, viewParams } from './state.js';

export async function loadAdvice(gen) {
  try {
    const res = await api('advice', viewParams());
    if (gen !== state.generation) return;
    const list = $('advice-list');
    clear(list);
    const findings = Array.isArray(res.findings) ? res.findings : [];
    const rank = { critical: 0, warning: 1, info: 2 };
    findings.sort((a, b) => (rank[a.severity] ?? 3) - (rank[b.severity] ?? 3));
    for (const f of findings) {
      const li = el('li', { class: 'finding severity-' + (f.severity || 'info'), 'data-rule': f.rule || '' });
      /* on a fleet each finding names its cluster (the advisor runs per cluster) */
      const where = f.cluster ? [el('span', { class: 'finding-cluster', text: f.cluster }), ' '] : [];
      li.append(el('p', { class: 'finding-title' }, el('span', { class: 'severity', text: f.severity || 'info' }), ' ', ...where, f.title || f.rule || ''));
      if (f.why) li.append(el('p', { text: f.why }));
      if (f.fix) li.append(el('p', { class: 'fix' }, el('strong', { text: 'Fix: ' }), f.fix));
      if (f.evidence && typeof f.evidence === 'object' && Object.keys(f.evidence).length) li.append(renderAdviceObject('Evidence', f.evidence));
      list.append(li);
    }
    $('advice-panel').hidden = findings.length === 0;
  } catch (e) {
    /* advice is optional: a spotledger without the advisor simply shows no panel */
    $('advice-panel').hidden = true;
  }
}
