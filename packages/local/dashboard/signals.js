/**
 * Named signals on a run's page (issue 27): a panel listing the run's signals (each delivered to
 * an operation or pending for the next wait of its name) and its waits still open, with a form to
 * send a signal (a name and a JSON payload); and, in the timeline, a `waitForSignal`'s details
 * with a form to send the signal it waits for. Sent through `POST /v1/runs/{id}/signals/{name}`.
 */
import { api } from './api.js';
import { h, rerender } from './dom.js';
import { payload, renderNote, timeEl } from './format.js';

/** Parses the payload field: undefined when empty, else JSON (a thrown error names the field). */
function parsePayload(text) {
  const trimmed = text.trim();
  if (!trimmed) return undefined;
  try {
    return JSON.parse(trimmed);
  } catch (error) {
    throw { code: 'invalid_json', message: `payload: not valid JSON (${error.message})` };
  }
}

/** A payload field and a send button, sending signal `name()` to `runId`; `done` after each send. */
function sendForm(runId, { base, name, note, act, key, done }) {
  const field = h('textarea', {
    id: `${base}-payload`,
    class: 'signal-payload',
    rows: 2,
    spellcheck: 'false',
    placeholder: '{"approved": true}',
    // Named by itself too: while the page re-renders, a label's `for` may find the old field first.
    'aria-label': 'Payload (JSON)',
    dataset: { keep: `${base}-payload`, testid: 'signal-payload' },
  });
  const submit = (event) => {
    event.preventDefault();
    void act(
      key,
      async () => {
        const sent = await api.sendSignal(runId, name(), parsePayload(field.value));
        done?.();
        return sent;
      },
      'Signal sent.',
    );
  };
  return { field, submit, pending: note?.pending === true };
}

/** A `waitForSignal` in the timeline: the signal it waits for and, while it waits, a form to send it. */
export function signalWaitDetails(op, note, act, runId) {
  const meta = h(
    'p',
    { class: 'meta' },
    'Waits for signal ',
    h('code', { dataset: { testid: 'signal-wait-name' } }, op.name ?? '?'),
    op.status === 'STARTED' && !op.abandoned && op.timeoutAt ? [' · times out ', timeEl(op.timeoutAt, 'both')] : '',
  );
  if (op.status !== 'STARTED' || op.abandoned) return [meta, renderNote(note, 'signal-message')];
  const form = sendForm(runId, { base: `sig-${op.id}`, name: () => op.name, note, act, key: op.id });
  return [
    meta,
    h(
      'form',
      { class: 'inline-form', onsubmit: form.submit, dataset: { testid: 'signal-wait-form' } },
      h('label', { for: form.field.id }, 'Payload (JSON)'),
      form.field,
      h(
        'button',
        { type: 'submit', class: 'primary', disabled: form.pending, dataset: { testid: 'signal-wait-send' } },
        'Send signal',
      ),
    ),
    renderNote(note, 'signal-message'),
  ];
}

function signalRow(s) {
  return h(
    'tr',
    { dataset: { testid: 'signal-row', seq: String(s.seq), state: s.state } },
    h('td', { class: 'mono' }, `#${s.seq}`),
    h('td', null, h('code', null, s.name)),
    // The run statuses' colours: green once taken, amber while kept for a wait.
    h(
      'td',
      null,
      h(
        'span',
        {
          class: `badge badge-${s.state === 'delivered' ? 'succeeded' : 'pending'}`,
          dataset: { testid: 'signal-state' },
        },
        s.state.toUpperCase(),
      ),
    ),
    h('td', { class: 'muted' }, s.operationId ? `operation ${s.operationId}` : '—'),
    h('td', null, timeEl(s.sentAt)),
    h('td', null, s.payload === undefined ? h('span', { class: 'muted' }, 'none') : payload(s.payload)),
  );
}

/** The panel; `update(run)` on each refresh of the page. */
export function signalsPanel(runId, act, notes) {
  const body = h('div', { dataset: { testid: 'signals' } });
  const el = h(
    'section',
    { class: 'panel', 'aria-labelledby': 'signals-title' },
    h('h2', { id: 'signals-title' }, 'Signals ', h('span', { class: 'muted count' }, 'sent, delivered, waiting')),
    body,
  );
  let view;
  /** The run's signal count and update time the list was read at. */
  let readFor;
  /** The refresh that came while a read was under way. */
  let later;
  let shown;
  let busy = false;
  let running = false;

  function render() {
    const note = notes.get('signal');
    const key = JSON.stringify([view, note, running]);
    if (key === shown) return;
    shown = key;
    const name = h('input', {
      id: 'signal-name',
      autocomplete: 'off',
      placeholder: 'approved',
      size: 16,
      dataset: { keep: 'signal-name', testid: 'signal-name' },
    });
    const form = sendForm(runId, {
      base: 'signal',
      name: () => name.value.trim(),
      note,
      act,
      key: 'signal',
      done: () => {
        readFor = undefined;
      },
    });
    const signals = view?.signals ?? [];
    const waiting = view?.waiting ?? [];
    rerender(body, () => [
      signals.length === 0
        ? h('p', { class: 'muted', dataset: { testid: 'signals-empty' } }, 'No signal sent to this run yet.')
        : h(
            'table',
            { class: 'signals' },
            h(
              'thead',
              null,
              h(
                'tr',
                null,
                ['Seq', 'Name', 'State', 'Taken by', 'Sent', 'Payload'].map((t) => h('th', null, t)),
              ),
            ),
            h('tbody', null, signals.map(signalRow)),
          ),
      waiting.length > 0
        ? h(
            'ul',
            { class: 'signal-waits', dataset: { testid: 'signal-waits' } },
            waiting.map((w) =>
              h(
                'li',
                { dataset: { testid: 'signal-wait', name: w.name } },
                `Operation ${w.operationId} waits for `,
                h('code', null, w.name),
                w.timeoutAt ? [' · times out ', timeEl(w.timeoutAt, 'both')] : '',
              ),
            ),
          )
        : null,
      running
        ? h(
            'form',
            { class: 'inline-form', onsubmit: form.submit, dataset: { testid: 'signal-form' } },
            h('label', { for: name.id }, 'Name'),
            name,
            h('label', { for: form.field.id }, 'Payload (JSON)'),
            form.field,
            h(
              'button',
              { type: 'submit', class: 'primary', disabled: form.pending, dataset: { testid: 'signal-send' } },
              'Send signal',
            ),
          )
        : null,
      renderNote(note, 'signal-form-message'),
    ]);
  }

  return {
    el,
    /**
     * On each refresh: the open waits come from the history the page read anyway; the list of
     * signals is asked for only when the run has had signals and has changed since it was read
     * (the route reads the run's inbox and operations), or right after a send from this page.
     */
    async update(run, operations) {
      if (!run) return;
      if (busy) {
        // A read is under way: this newer refresh is taken in once it is done (the last one counts).
        later = [run, operations];
        return;
      }
      running = run.status === 'RUNNING' || run.status === 'QUEUED';
      const waiting = (operations ?? [])
        .filter((op) => op.subType === 'WaitForSignal' && op.status === 'STARTED' && !op.abandoned)
        .map((op) => ({ operationId: op.id, name: op.name, ...(op.timeoutAt ? { timeoutAt: op.timeoutAt } : {}) }));
      const version = `${run.signals ?? 0}@${run.updatedAt}`;
      if ((run.signals ?? 0) === 0) {
        view = { signals: [], waiting };
      } else if (version !== readFor) {
        busy = true;
        try {
          const read = await api.getSignals(runId);
          view = { signals: read.signals, waiting };
          readFor = version;
        } finally {
          busy = false;
        }
        if (later) {
          const [next, nextOps] = later;
          later = undefined;
          await this.update(next, nextOps);
          return;
        }
      } else {
        view = { signals: view?.signals ?? [], waiting };
      }
      render();
    },
  };
}
