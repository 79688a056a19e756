/* spotledger dashboard: the overview cards, one per configuration and basis,
 * each figure an API value with its exact value in data-value; the
 * checkpoint advice and the generic key/value rendering of API objects. */
import { $, CARD_ORDER, clear, DASH, el, F, NAMES } from './dom.js';
import { renderWindowLabel } from './notices.js';

function figure(card, field, value, kind) {
  let text;
  let exact = '';
  switch (kind) {
    case 'money':
      text = F.money(value);
      exact = F.moneyExact(value);
      break;
    case 'percent':
      text = F.percent(value);
      break;
    case 'duration':
      text = F.duration(value);
      break;
    default:
      text = F.count(value);
  }
  const attrs = {
    class: 'fig' + (kind === 'percent' && F.isNum(value) && value < 0 ? ' negative' : ''),
    'data-card': card,
    'data-field': field,
    'data-value': F.isNum(value) ? F.decimalString(value) : 'null',
    text,
  };
  if (exact && exact !== text) attrs.title = 'exactly ' + exact;
  return el('span', attrs);
}

function row(label, node, extra) {
  return el('div', { class: 'row' }, el('dt', { text: label }), el('dd', null, node, extra || null));
}

export function renderCards(summary) {
  const cards = $('cards');
  clear(cards);
  const confs = Array.isArray(summary.configurations) ? summary.configurations : [];
  const byKey = new Map(confs.map((c) => [c.configuration + ':' + (c.basis || 'measured'), c]));
  const keys = CARD_ORDER.map(([c, b]) => c + ':' + b);
  for (const k of byKey.keys()) if (!keys.includes(k)) keys.push(k);

  let cheapest = null;
  for (const k of keys) {
    const c = byKey.get(k);
    if (c && F.isNum(c.cost_per_successful_task) && (cheapest === null || c.cost_per_successful_task < cheapest)) cheapest = c.cost_per_successful_task;
  }

  for (const k of keys) {
    const [configuration, basis] = k.split(':');
    const c = byKey.get(k) || { configuration, basis };
    const isCheapest = cheapest !== null && c.cost_per_successful_task === cheapest;
    const headingId = 'card-' + configuration + '-' + basis;
    const card = el('article', {
      class: 'card' + (isCheapest ? ' cheapest' : '') + (basis === 'counterfactual' ? ' counterfactual' : ''),
      'data-configuration': configuration,
      'data-basis': basis,
      'data-cheapest': isCheapest ? 'true' : 'false',
      'aria-labelledby': headingId,
    });
    const head = el('header', { class: 'card-head' }, el('h3', { id: headingId }, NAMES[configuration] || configuration, ' ', el('span', { class: 'basis', text: basis })));
    if (isCheapest) head.append(el('span', { class: 'badge', text: 'Cheapest per successful task' }));
    card.append(head);
    card.append(el('p', { class: 'headline' }, figure(k, 'cost_per_successful_task', c.cost_per_successful_task, 'money'), el('span', { class: 'unit', text: ' per successful task' })));

    const dl = el('dl', { class: 'figures' });
    const has = (f) => f in c;
    dl.append(row('Tasks succeeded', figure(k, 'tasks_succeeded', c.tasks_succeeded, 'count')));
    if (basis !== 'counterfactual' || has('tasks_failed')) dl.append(row('Tasks failed', figure(k, 'tasks_failed', c.tasks_failed, 'count')));
    if (has('tasks_running')) dl.append(row('Tasks still running', figure(k, 'tasks_running', c.tasks_running, 'count')));
    if (basis === 'counterfactual') {
      if (has('tasks_priced')) dl.append(row('Tasks priced', figure(k, 'tasks_priced', c.tasks_priced, 'count')));
      if (has('tasks_unpriced')) dl.append(row('Tasks without an On-Demand price', figure(k, 'tasks_unpriced', c.tasks_unpriced, 'count')));
      if (has('work_seconds')) dl.append(row('Work priced', figure(k, 'work_seconds', c.work_seconds, 'duration')));
    } else {
      dl.append(row('Attempts (pods)', figure(k, 'attempts', c.attempts, 'count')));
      dl.append(row('Retries', figure(k, 'retries', c.retries, 'count')));
      dl.append(row('Interruptions', figure(k, 'interruptions', c.interruptions, 'count')));
      if (has('duplicates')) dl.append(row('Duplicate attempts', figure(k, 'duplicates', c.duplicates, 'count'), has('duplicate_seconds') ? el('span', { class: 'sub' }, ' (', figure(k, 'duplicate_seconds', c.duplicate_seconds, 'duration'), ' held twice)') : null));
      const rs = c.restore_seconds || {};
      dl.append(
        row(
          'Restore time',
          figure(k, 'restore_seconds.total', rs.total, 'duration'),
          el('span', { class: 'sub' }, ' (median ', figure(k, 'restore_seconds.p50', rs.p50, 'duration'), ', p95 ', figure(k, 'restore_seconds.p95', rs.p95, 'duration'), ')')
        )
      );
    }
    dl.append(row('Total cost', figure(k, 'cost', c.cost, 'money')));
    if (configuration !== 'on-demand') dl.append(row('Savings vs On-Demand', figure(k, 'savings_vs_on_demand_percent', c.savings_vs_on_demand_percent, 'percent')));
    card.append(dl);

    if (configuration === 'on-demand' && basis === 'measured' && F.isNum(c.measured_overhead_percent)) {
      // On-Demand is the yardstick: no break-even against itself, only its own overhead
      card.append(
        el(
          'p',
          { class: 'breakeven' },
          'Idle nodes, lost work and restore time added ',
          figure(k, 'measured_overhead_percent', c.measured_overhead_percent, 'percent'),
          ' on top of the useful work in this window.'
        )
      );
    } else if (F.isNum(c.break_even_overhead_percent) || F.isNum(c.measured_overhead_percent)) {
      const name = NAMES[configuration] || configuration;
      const p = el(
        'p',
        { class: 'breakeven' },
        name + ' stays cheaper than On-Demand as long as lost work, idle nodes and restore time add less than ',
        figure(k, 'break_even_overhead_percent', c.break_even_overhead_percent, 'percent'),
        ' on top of the useful work. In this window they added ',
        figure(k, 'measured_overhead_percent', c.measured_overhead_percent, 'percent'),
        '.'
      );
      if (F.isNum(c.break_even_overhead_percent) && F.isNum(c.measured_overhead_percent)) {
        const over = c.measured_overhead_percent > c.break_even_overhead_percent;
        p.classList.add(over ? 'over' : 'under');
        p.append(el('strong', { class: 'verdict', text: over ? ' Above break-even: On-Demand would have been cheaper.' : ' Below break-even.' }));
      }
      card.append(p);
    }
    if (c.basis_description) card.append(el('p', { class: 'basis-desc', text: c.basis_description }));
    if (c.checkpoint_advice && typeof c.checkpoint_advice === 'object') card.append(renderCheckpoint(c.checkpoint_advice));
    if (!byKey.has(k)) card.append(el('p', { class: 'basis-desc', text: 'No data for this configuration in the window.' }));
    cards.append(card);
  }
  cards.setAttribute('aria-busy', 'false');

  const foot = $('unattributed');
  clear(foot);
  if ('unattributed_idle_cost' in summary || 'nodes_total_cost' in summary) {
    foot.append(
      'All nodes in the window cost ',
      figure('all:measured', 'nodes_total_cost', summary.nodes_total_cost, 'money'),
      '; idle time on pools no task used (not charged to any configuration): ',
      figure('all:measured', 'unattributed_idle_cost', summary.unattributed_idle_cost, 'money'),
      '.'
    );
  }
  if (summary.reconciliation && typeof summary.reconciliation === 'object') foot.append(renderAdviceObject('Reconciliation with DigitalOcean billing', summary.reconciliation));

  renderWindowLabel(summary);
}

/* Young/Daly checkpoint advice, in words, with the data it came from. */
function renderCheckpoint(a) {
  const wrap = el('div', { class: 'checkpoint' });
  if (F.isNum(a.interval_seconds)) {
    const p = el('p', { class: 'advice-line' }, 'Checkpoint about every ', el('strong', { text: F.duration(a.interval_seconds) }));
    if (F.isNum(a.mean_checkpoint_seconds) && F.isNum(a.mean_time_between_reclaims_seconds)) {
      p.append(' (a checkpoint takes ' + F.duration(a.mean_checkpoint_seconds) + '; ' + (a.size ? a.size + ' ' : '') + 'Spot nodes were reclaimed every ' + F.duration(a.mean_time_between_reclaims_seconds) + ' on average)');
    }
    p.append('.');
    wrap.append(p);
  }
  wrap.append(renderAdviceObject(F.isNum(a.interval_seconds) ? 'Checkpoint advice: the data' : 'Checkpoint advice', a));
  return wrap;
}

/* Generic key/value rendering for API objects whose exact shape may grow. */
export function renderAdviceObject(title, obj) {
  const d = el('details', { class: 'kv' }, el('summary', { text: title }));
  const dl = el('dl');
  for (const [key, v] of Object.entries(obj)) {
    let text;
    if (v === null || v === undefined) text = DASH;
    else if (typeof v === 'number') {
      if (/cost|amount|billed|usd|price|difference|delta/.test(key)) text = F.moneyExact(v);
      else if (/percent/.test(key)) text = F.percent(v);
      else if (/seconds/.test(key)) text = F.duration(v);
      else text = F.decimalString(v);
    } else if (typeof v === 'object') text = JSON.stringify(v);
    else if (typeof v === 'string' && /_at$|^t$|time/.test(key)) text = F.time(v);
    else text = String(v);
    dl.append(el('div', { class: 'row' }, el('dt', { text: key.replace(/_/g, ' ') }), el('dd', { text })));
  }
  d.append(dl);
  return d;
}
