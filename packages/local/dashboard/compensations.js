/**
 * A run's compensations (sagas) on its page: the steps that registered an undo, each round's
 * plan with each compensation's status and attempts, and what the run's error says was undone.
 * Read from `GET /v1/runs/{id}/compensations`, which derives it all from the run's operations.
 */
import { api } from './api.js';
import { h, replace } from './dom.js';
import { badge, errorBox } from './format.js';

/** The panel; hidden until the run has a round or a summary. */
export function compensationsPanel(runId) {
  const el = h('section', {
    class: 'panel',
    'aria-labelledby': 'compensations-title',
    hidden: true,
    dataset: { testid: 'run-compensations' },
  });
  let shown;
  return {
    el,
    /**
     * Reads the run's compensations again, only for a run whose history (`operations`, read by
     * the page already) has a round: the route reads every operation, which a run without sagas
     * need not pay for. An API without the route leaves the panel hidden.
     */
    async update(operations) {
      if (!operations?.some((op) => op.type === 'STEP' && op.name === 'saga plan')) {
        el.hidden = true;
        return;
      }
      let answer;
      try {
        answer = await api.compensations(runId);
      } catch (error) {
        if (error?.code === 'route_not_found' || error?.status === 404) return;
        throw error;
      }
      const key = JSON.stringify(answer);
      if (key === shown) return;
      shown = key;
      const any = answer.rounds.length > 0 || answer.summary !== undefined;
      el.hidden = !any;
      if (any) replace(el, ...renderCompensations(answer));
    },
  };
}

function renderCompensations(c) {
  return [
    h('h2', { id: 'compensations-title' }, 'Compensations'),
    c.summary ? renderSummary(c.summary) : null,
    c.registered.length > 0
      ? h(
          'p',
          { class: 'muted', dataset: { testid: 'compensations-registered' } },
          'Undo registered by: ',
          ...c.registered.flatMap((r, i) => [i > 0 ? ', ' : '', h('code', null, r.step)]),
        )
      : null,
    ...c.rounds.map(renderRound),
  ];
}

/** The run's final word: what was undone, what failed to be. */
function renderSummary(summary) {
  return h(
    'div',
    { class: 'compensation-summary', dataset: { testid: 'compensations-summary' } },
    h(
      'p',
      { dataset: { testid: 'compensations-undone' } },
      h('strong', null, 'Undone: '),
      summary.compensated.length > 0 ? summary.compensated.join(', ') : 'nothing',
    ),
    h(
      'p',
      { dataset: { testid: 'compensations-failed' } },
      h('strong', null, 'Failed to undo: '),
      summary.failed.length > 0 ? summary.failed.map((f) => `${f.step} (${f.error})`).join(', ') : 'nothing',
    ),
  );
}

function renderRound(round) {
  const where = round.contextId === undefined ? 'in the handler' : `in context ${round.contextId}`;
  return h(
    'div',
    { class: 'compensation-round', dataset: { testid: 'compensation-round', planId: round.planId } },
    h(
      'p',
      { class: 'muted' },
      `Saga plan (operation ${round.planId}) ${where}: `,
      round.status === 'planning' ? 'planning…' : `${round.compensations.length} to undo, last step first`,
    ),
    round.compensations.length === 0
      ? null
      : h(
          'ol',
          { class: 'compensation-list' },
          ...round.compensations.map((x) =>
            h(
              'li',
              { class: 'compensation-item', dataset: { testid: 'compensation', step: x.step, status: x.status } },
              h('code', null, `compensate ${x.step}`),
              ' ',
              badge(x.status, 'compensation-status'),
              h(
                'span',
                { class: 'muted', dataset: { testid: 'compensation-attempts' } },
                ` ${x.attempts} attempt${x.attempts === 1 ? '' : 's'}`,
              ),
              x.error && x.status !== 'succeeded' ? errorBox(x.error, 'compensation-error') : null,
            ),
          ),
        ),
  );
}
