/** The runs page: a form to start a run, then the runs with filters and pages. */
import { api } from './api.js';
import { h, replace } from './dom.js';
import { badge, duration, elapsed, errorBox, sinceEl, timeEl } from './format.js';

const STATUSES = ['RUNNING', 'SUCCEEDED', 'FAILED', 'TIMED_OUT', 'STOPPED', 'CANCELLED'];
const PAGE_SIZE = 25;
const MAX_PAGE_SIZE = 100;

export const runHref = (runId) => `#/runs/${encodeURIComponent(runId)}`;

/** `params`: the hash's query (`status`, `function`, `limit`). */
export function listView(params, refreshNow) {
  const filters = { status: params.get('status') ?? '', function: params.get('function') ?? '' };
  const asked = Number(params.get('limit'));
  const limit = Number.isInteger(asked) && asked >= 1 ? Math.min(asked, MAX_PAGE_SIZE) : PAGE_SIZE;
  /** Cursors of the pages seen so far; the last one is the page shown. */
  let cursors = [undefined];
  let nextCursor;
  let functions;
  let shown;
  /** Bumped when the filters or the page change: answers to older queries are dropped. */
  let query = 0;

  const startForm = startRunForm();
  const statusSelect = h(
    'select',
    { id: 'filter-status', dataset: { testid: 'filter-status' }, onchange: (e) => setFilter('status', e.target.value) },
    h('option', { value: '' }, 'All statuses'),
    STATUSES.map((s) => h('option', { value: s, selected: s === filters.status }, s)),
  );
  const functionSelect = h('select', {
    id: 'filter-function',
    dataset: { testid: 'filter-function' },
    onchange: (e) => setFilter('function', e.target.value),
  });
  const errorSlot = h('div', { dataset: { testid: 'runs-error' }, role: 'alert' });
  const body = h('div', { class: 'runs-body' });
  const prev = h('button', { type: 'button', dataset: { testid: 'page-prev' }, onclick: () => turn(-1) }, '← Newer');
  const next = h('button', { type: 'button', dataset: { testid: 'page-next' }, onclick: () => turn(1) }, 'Older →');
  const pageLabel = h('span', { class: 'page-label', dataset: { testid: 'page-label' } });

  const el = h(
    'div',
    { class: 'page' },
    startForm.el,
    h(
      'section',
      { class: 'panel', 'aria-labelledby': 'runs-title' },
      h(
        'div',
        { class: 'toolbar' },
        h('h2', { id: 'runs-title' }, 'Runs'),
        h('label', { for: 'filter-status' }, 'Status'),
        statusSelect,
        h('label', { for: 'filter-function' }, 'Function'),
        functionSelect,
      ),
      errorSlot,
      body,
      h('nav', { class: 'pager', 'aria-label': 'Pages of runs' }, prev, pageLabel, next),
    ),
  );

  function setFilter(name, value) {
    filters[name] = value;
    cursors = [undefined];
    const shownFilters = { ...filters, limit: limit === PAGE_SIZE ? '' : String(limit) };
    const search = new URLSearchParams(Object.entries(shownFilters).filter(([, v]) => v)).toString();
    history.replaceState(null, '', search ? `#/?${search}` : '#/');
    reset();
  }

  function turn(step) {
    if (step > 0 && nextCursor) cursors.push(nextCursor);
    else if (step < 0 && cursors.length > 1) cursors.pop();
    else return;
    reset();
  }

  function reset() {
    query++;
    shown = undefined;
    replace(body, h('p', { class: 'empty', dataset: { testid: 'runs-loading' } }, 'Loading…'));
    prev.disabled = true;
    next.disabled = true;
    void refreshNow();
  }

  function renderFunctions(list) {
    const names = list.map((f) => f.name);
    if (filters.function && !names.includes(filters.function)) names.push(filters.function);
    const key = names.join('\n');
    if (key === functions) return;
    functions = key;
    replace(
      functionSelect,
      h('option', { value: '' }, 'All functions'),
      names.map((n) => h('option', { value: n, selected: n === filters.function }, n)),
    );
    startForm.setFunctions(list.map((f) => f.name));
  }

  function renderRuns(page) {
    nextCursor = page.nextCursor;
    prev.disabled = cursors.length <= 1;
    next.disabled = !nextCursor;
    pageLabel.textContent = `Page ${cursors.length}`;
    const key = JSON.stringify(page);
    if (key === shown) return;
    shown = key;
    if (page.runs.length === 0) {
      const filtered = filters.status || filters.function;
      replace(
        body,
        h(
          'p',
          { class: 'empty', dataset: { testid: 'runs-empty' } },
          filtered ? 'No runs match these filters.' : 'No runs yet. Start one above.',
        ),
      );
      return;
    }
    replace(
      body,
      h(
        'table',
        { class: 'runs', dataset: { testid: 'runs-table' } },
        h(
          'thead',
          null,
          h(
            'tr',
            null,
            ['Run', 'Function', 'Status', 'Started', 'Duration', 'Invocations'].map((t) =>
              h('th', { scope: 'col' }, t),
            ),
          ),
        ),
        h('tbody', null, page.runs.map(runRow)),
      ),
    );
  }

  return {
    el,
    title: 'Runs',
    async refresh() {
      const asked = query;
      const [fns, page] = await Promise.allSettled([
        api.functions(),
        api.listRuns({
          status: filters.status,
          function: filters.function,
          limit,
          cursor: cursors.at(-1),
        }),
      ]);
      if (fns.status === 'fulfilled') renderFunctions(fns.value.functions);
      if (asked !== query) return true;
      if (page.status === 'fulfilled') renderRuns(page.value);
      const failed = [fns, page].find((r) => r.status === 'rejected');
      replace(errorSlot, failed ? errorBox(toWire(failed.reason), 'runs-error-message') : null);
      return !failed;
    },
  };
}

function runRow(run) {
  return h(
    'tr',
    { dataset: { testid: 'run-row', runId: run.runId, status: run.status } },
    h('td', null, h('a', { href: runHref(run.runId), class: 'mono', dataset: { testid: 'run-link' } }, run.runId)),
    h('td', null, run.function),
    h('td', null, badge(run.status, 'run-status')),
    h('td', null, timeEl(run.createdAt, 'both')),
    h(
      'td',
      null,
      run.endedAt
        ? duration(elapsed(run.createdAt, run.endedAt))
        : h('span', { class: 'muted', title: 'still running' }, sinceEl(run.createdAt)),
    ),
    h('td', { class: 'num' }, run.invocations),
  );
}

/** An error as `{code, message}` for {@link errorBox}. */
export function toWire(error) {
  return { code: error?.code ?? 'error', message: error?.message ?? String(error) };
}

/** The "Start a run" form; on success it opens the new run's page. */
function startRunForm() {
  const select = h('select', {
    id: 'start-function',
    name: 'function',
    required: true,
    dataset: { testid: 'start-function' },
  });
  const input = h('textarea', {
    id: 'start-input',
    name: 'input',
    rows: 3,
    spellcheck: 'false',
    placeholder: '{"order": 1}',
    dataset: { testid: 'start-input' },
  });
  input.value = '{}';
  const runKey = h('input', {
    id: 'start-run-key',
    name: 'runKey',
    autocomplete: 'off',
    dataset: { testid: 'start-run-key' },
  });
  const submit = h('button', { type: 'submit', class: 'primary', dataset: { testid: 'start-submit' } }, 'Start');
  const message = h('div', { class: 'form-message', role: 'alert', dataset: { testid: 'start-error' } });

  async function onSubmit(event) {
    event.preventDefault();
    replace(message);
    let value;
    const text = input.value.trim();
    if (text) {
      try {
        value = JSON.parse(text);
      } catch (error) {
        replace(message, errorBox({ code: 'invalid_json', message: `input: ${error.message}` }, 'start-error-message'));
        input.focus();
        return;
      }
    }
    if (!select.value) {
      replace(message, errorBox({ code: 'invalid_argument', message: 'function: choose one' }, 'start-error-message'));
      return;
    }
    submit.disabled = true;
    try {
      const run = await api.startRun({
        function: select.value,
        ...(value === undefined ? {} : { input: value }),
        ...(runKey.value.trim() ? { runKey: runKey.value.trim() } : {}),
      });
      location.hash = runHref(run.runId);
    } catch (error) {
      replace(message, errorBox(toWire(error), 'start-error-message'));
    } finally {
      submit.disabled = false;
    }
  }

  const el = h(
    'section',
    { class: 'panel start', 'aria-labelledby': 'start-title' },
    h('h2', { id: 'start-title' }, 'Start a run'),
    h(
      'form',
      { dataset: { testid: 'start-form' }, onsubmit: onSubmit, novalidate: true },
      h('div', { class: 'field' }, h('label', { for: 'start-function' }, 'Function'), select),
      h('div', { class: 'field grow' }, h('label', { for: 'start-input' }, 'Input (JSON)'), input),
      h('div', { class: 'field' }, h('label', { for: 'start-run-key' }, 'Run key (optional)'), runKey),
      h('div', { class: 'field actions' }, submit),
    ),
    message,
  );

  return {
    el,
    setFunctions(names) {
      const chosen = select.value;
      replace(
        select,
        names.length === 0 ? h('option', { value: '' }, 'No functions') : null,
        names.map((n) => h('option', { value: n, selected: n === chosen }, n)),
      );
      submit.disabled = names.length === 0;
    },
  };
}
