/**
 * The operator-actions panel of a run's page: cancel the run's whole tree, retry it from a chosen
 * step or child context, skip a failed step with a given result, and the run's record of these
 * actions (who, when, what). A module of its own, loaded next to the dashboard (the dev server
 * and the console add it to index.html): it finds the run page by its `run-id` element and adds
 * the panel below the run's summary (what the run is comes first, what one may do to it next),
 * refreshing it when the run's status changes. It is folded on runs no action applies to
 * (succeeded, cancelled, stopped); a failed run keeps it open, since retry and skip are for it.
 */

const seg = encodeURIComponent;
const ACTOR_KEY = 'durable-lambda.actor';
/** Statuses of a run that a retry from an operation or a skip may repair. */
const REPAIRABLE = new Set(['FAILED', 'TIMED_OUT', 'RUNNING']);
const SKIPPABLE = new Set(['FAILED', 'PENDING', 'READY']);
/** Ended statuses no action here applies to: the panel is folded on them. */
const SETTLED = new Set(['SUCCEEDED', 'CANCELLED', 'STOPPED']);

function uuid() {
  if (typeof crypto.randomUUID === 'function') return crypto.randomUUID();
  return [...crypto.getRandomValues(new Uint8Array(16))].map((x) => x.toString(16).padStart(2, '0')).join('');
}

/** One API call (same origin, paths relative to the page); rejects with `code: message`. */
async function call(method, path, body) {
  const headers = { accept: 'application/json' };
  if (method === 'POST') {
    headers['content-type'] = 'application/json';
    headers['idempotency-key'] = uuid();
    const actor = localStorage.getItem(ACTOR_KEY);
    if (actor) headers['x-durable-actor'] = actor;
  }
  const response = await fetch(new URL(path, document.baseURI), {
    method,
    headers,
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const data = await response.json().catch(() => undefined);
  if (!response.ok) throw new Error(`${data?.error?.code ?? 'error'}: ${data?.error?.message ?? response.status}`);
  return data;
}

/** A run's operations, every page. */
async function operations(runId) {
  const all = [];
  let cursor;
  do {
    const query = cursor === undefined ? '' : `?cursor=${seg(cursor)}`;
    const page = await call('GET', `v1/runs/${seg(runId)}/operations${query}`);
    all.push(...page.operations);
    cursor = page.nextCursor;
  } while (cursor !== undefined);
  return all;
}

function el(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs)) {
    if (key === 'testid') node.dataset.testid = value;
    else if (key.startsWith('on')) node.addEventListener(key.slice(2), value);
    else if (value !== undefined && value !== false) node.setAttribute(key, value === true ? '' : value);
  }
  for (const child of children.flat()) if (child != null) node.append(child);
  return node;
}

const label = (op) => `${op.id}${op.name ? ` ${op.name}` : ''} (${op.type.toLowerCase()}, ${op.status})`;

/** The panel for one run as it stands. */
function renderPanel(panel, runId, status, ops, actions) {
  const message = el('p', { class: 'muted', testid: 'operator-message', 'aria-live': 'polite' });
  const act = async (what, run) => {
    message.textContent = `${what}…`;
    try {
      const answer = await run();
      message.textContent = `${what}: the run is now ${answer.status}.`;
      panel.dataset.status = '';
      void refreshPanel(panel, runId, answer.status);
    } catch (error) {
      message.textContent = `${what} refused: ${error.message}`;
    }
  };
  const actor = el('input', {
    id: 'operator-actor',
    testid: 'operator-actor',
    autocomplete: 'off',
    placeholder: 'name or e-mail (recorded)',
    value: localStorage.getItem(ACTOR_KEY) ?? '',
    onchange: (e) => localStorage.setItem(ACTOR_KEY, e.target.value.trim()),
  });
  const controls = [
    el('span', { class: 'operator-control' }, el('label', { for: 'operator-actor' }, 'Acting as'), actor),
  ];
  if (status === 'RUNNING') {
    controls.push(
      el(
        'button',
        {
          type: 'button',
          class: 'danger',
          testid: 'cancel-tree',
          onclick: () => {
            if (window.confirm(`Cancel run ${runId} and all its child runs?`)) {
              void act('Cancel tree', () => call('POST', `v1/runs/${seg(runId)}/cancel`, { tree: true }));
            }
          },
        },
        'Cancel run and its child runs',
      ),
    );
  }
  if (REPAIRABLE.has(status)) {
    const restartable = ops.filter((op) => op.type === 'STEP' || op.type === 'CONTEXT');
    if (restartable.length > 0) {
      const from = el(
        'select',
        { id: 'retry-from-op', testid: 'retry-from-op' },
        ...restartable.map((op) => el('option', { value: op.id }, label(op))),
      );
      controls.push(
        el(
          'span',
          { class: 'operator-control' },
          el('label', { for: 'retry-from-op' }, 'Retry the run from operation'),
          from,
          el(
            'button',
            {
              type: 'button',
              testid: 'retry-from',
              onclick: () =>
                void act(`Retry from ${from.value}`, () =>
                  call('POST', `v1/runs/${seg(runId)}/retry`, { fromOperation: from.value }),
                ),
            },
            'Retry from here',
          ),
        ),
      );
    }
    const failed = ops.filter((op) => op.type === 'STEP' && SKIPPABLE.has(op.status));
    if (failed.length > 0) {
      const step = el(
        'select',
        { id: 'skip-op', testid: 'skip-op' },
        ...failed.map((op) => el('option', { value: op.id }, label(op))),
      );
      // Empty by default (a skip with no result gives the step `null`): a field showing a bare
      // `null` read as a value the run had.
      const result = el('input', {
        id: 'skip-result',
        testid: 'skip-result',
        autocomplete: 'off',
        spellcheck: 'false',
        placeholder: '{"id": 7}; empty: no result',
      });
      controls.push(
        el(
          'span',
          { class: 'operator-control' },
          el('label', { for: 'skip-op' }, 'Skip the failed step'),
          step,
          el('label', { for: 'skip-result' }, 'with the result (JSON)'),
          result,
          el(
            'button',
            {
              type: 'button',
              testid: 'skip-step',
              onclick: () => {
                let value = null;
                try {
                  if (result.value.trim() !== '') value = JSON.parse(result.value);
                } catch {
                  message.textContent = 'Skip refused: the result must be JSON.';
                  return;
                }
                void act(`Skip ${step.value}`, () =>
                  call('POST', `v1/runs/${seg(runId)}/operations/${seg(step.value)}/skip`, { result: value }),
                );
              },
            },
            'Skip with this result',
          ),
        ),
      );
    }
  }
  const history =
    actions.length === 0
      ? el('p', { class: 'muted', testid: 'operator-history-empty' }, 'No operator actions yet.')
      : el(
          'table',
          { testid: 'operator-history' },
          el('tr', {}, ...['When', 'Action', 'Who', 'Operation', 'Run was'].map((t) => el('th', {}, t))),
          ...actions.map((a) =>
            el(
              'tr',
              { testid: 'operator-action' },
              el('td', {}, a.at),
              el('td', {}, a.action),
              el('td', {}, a.actor),
              el('td', {}, a.operationId ?? ''),
              el('td', {}, `${a.fromStatus}${a.viaRunId ? ` (with ${a.viaRunId})` : ''}`),
            ),
          ),
        );
  const open = panel.dataset.userOpen === undefined ? !SETTLED.has(status) : panel.dataset.userOpen === '1';
  const fold = el(
    'details',
    { class: 'operator-fold', open },
    el(
      'summary',
      { testid: 'operator-summary' },
      el('h2', {}, 'Operator actions'),
      el('span', { class: 'muted count' }, summaryText(status, actions.length)),
    ),
    el('div', { class: 'actions operator-controls' }, controls),
    message,
    history,
  );
  // A fold the user opened or closed stays so across the panel's re-renders.
  fold.addEventListener('toggle', () => {
    panel.dataset.userOpen = fold.open ? '1' : '0';
  });
  panel.replaceChildren(fold);
}

/** What the folded panel says of itself: what it offers on this run, and how many actions were taken. */
function summaryText(status, taken) {
  const record = taken === 0 ? 'no actions taken yet' : `${taken} action${taken === 1 ? '' : 's'} taken`;
  if (SETTLED.has(status)) return `the run ${status.toLowerCase()} · ${record}`;
  return `cancel, retry from an operation, skip a step · ${record}`;
}

async function refreshPanel(panel, runId, status) {
  try {
    const [ops, record] = await Promise.all([operations(runId), call('GET', `v1/runs/${seg(runId)}/actions`)]);
    if (panel.dataset.runId !== runId) return;
    renderPanel(panel, runId, status, ops, record.actions);
    panel.dataset.status = status;
  } catch (error) {
    panel.replaceChildren(el('h2', {}, 'Operator actions'), el('p', { class: 'muted' }, error.message));
  }
}

/** Adds (or refreshes) the panel on a run page: below the run's summary, once per run and status. */
function ensurePanel() {
  const idNode = document.querySelector('[data-testid="run-id"]');
  const header = idNode?.closest('.run-header');
  if (!idNode || !header) return;
  const anchor = header.parentElement.querySelector(':scope > .run-summary') ?? header;
  const runId = idNode.textContent.trim();
  const status = document.querySelector('[data-testid="run-status"]')?.textContent.trim() ?? '';
  let panel = header.parentElement.querySelector(':scope > [data-testid="operator-actions"]');
  if (!panel) {
    panel = el('section', {
      class: 'panel operator-panel',
      testid: 'operator-actions',
      'aria-label': 'Operator actions',
    });
    anchor.after(panel);
  } else if (panel.previousElementSibling !== anchor) {
    anchor.after(panel);
  }
  if (panel.dataset.runId !== runId) delete panel.dataset.userOpen;
  if (panel.dataset.runId === runId && panel.dataset.status === status) return;
  panel.dataset.runId = runId;
  panel.dataset.status = status;
  void refreshPanel(panel, runId, status);
}

let scheduled = false;
new MutationObserver(() => {
  if (scheduled) return;
  scheduled = true;
  queueMicrotask(() => {
    scheduled = false;
    ensurePanel();
  });
}).observe(document.documentElement, { childList: true, subtree: true, characterData: true });
