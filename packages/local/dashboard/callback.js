/** A callback's forms in the timeline: complete it with a result, fail it, or send a heartbeat. */
import { api } from './api.js';
import { h } from './dom.js';
import { renderNote, timeEl } from './format.js';

/** A callback's id and deadlines and, while it waits, the forms to complete or fail it. */
export function callbackDetails(op, note, act) {
  const meta = h(
    'p',
    { class: 'meta' },
    'Callback id ',
    h('code', { class: 'callback-id', dataset: { testid: 'callback-id' } }, op.callbackId ?? '?'),
    op.status === 'STARTED' && !op.abandoned && op.timeoutAt ? [' · times out ', timeEl(op.timeoutAt, 'both')] : '',
    op.status === 'STARTED' && !op.abandoned && op.heartbeatDeadline
      ? [' · heartbeat due ', timeEl(op.heartbeatDeadline, 'both')]
      : '',
  );
  if (op.status !== 'STARTED' || !op.callbackId || op.abandoned) return [meta, renderNote(note, 'callback-message')];
  const id = op.callbackId;
  const base = `cb-${op.id}`;
  const result = h('textarea', {
    id: `${base}-result`,
    class: 'callback-result',
    rows: 2,
    spellcheck: 'false',
    placeholder: '{"approved": true}',
    dataset: { keep: `${base}-result`, testid: 'callback-result' },
  });
  const message = h('input', {
    id: `${base}-message`,
    autocomplete: 'off',
    placeholder: 'Rejected by reviewer',
    dataset: { keep: `${base}-message`, testid: 'callback-fail-message' },
  });
  const code = h('input', {
    id: `${base}-code`,
    autocomplete: 'off',
    placeholder: 'rejected',
    size: 12,
    dataset: { keep: `${base}-code`, testid: 'callback-fail-code' },
  });
  const invalid = (text) => act(op.id, () => Promise.reject({ code: 'invalid_argument', message: text }));

  const complete = (event) => {
    event.preventDefault();
    const text = result.value.trim();
    let value;
    if (text) {
      try {
        value = JSON.parse(text);
      } catch (error) {
        void invalid(`result: not valid JSON (${error.message})`);
        return;
      }
    }
    void act(op.id, () => api.succeedCallback(id, value), 'Callback completed.');
  };
  const fail = (event) => {
    event.preventDefault();
    if (!message.value.trim()) {
      void invalid('message: write why the callback failed');
      return;
    }
    const error = { message: message.value.trim(), ...(code.value.trim() ? { code: code.value.trim() } : {}) };
    void act(op.id, () => api.failCallback(id, error), 'Callback failed.');
  };
  const pending = note?.pending === true;
  return [
    meta,
    h(
      'div',
      { class: 'callback-actions', dataset: { testid: 'callback-actions' } },
      h(
        'form',
        { class: 'inline-form', onsubmit: complete, dataset: { testid: 'callback-complete-form' } },
        h('label', { for: result.id }, 'Result (JSON)'),
        result,
        h(
          'button',
          { type: 'submit', class: 'primary', disabled: pending, dataset: { testid: 'callback-complete' } },
          'Complete',
        ),
      ),
      h(
        'form',
        { class: 'inline-form', onsubmit: fail, dataset: { testid: 'callback-fail-form' } },
        h('label', { for: message.id }, 'Error message'),
        message,
        h('label', { for: code.id }, 'Code'),
        code,
        h(
          'button',
          { type: 'submit', class: 'danger', disabled: pending, dataset: { testid: 'callback-fail' } },
          'Fail',
        ),
      ),
      op.heartbeatDeadline
        ? h(
            'button',
            {
              type: 'button',
              disabled: pending,
              dataset: { testid: 'callback-heartbeat' },
              onclick: () => void act(op.id, () => api.heartbeatCallback(id), 'Heartbeat sent.'),
            },
            'Heartbeat',
          )
        : null,
    ),
    renderNote(note, 'callback-message'),
  ];
}
