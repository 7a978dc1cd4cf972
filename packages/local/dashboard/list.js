/** The runs page: a form to start a run, then the runs with filters, search and pages. */
import { api } from './api.js';
import { h, replace } from './dom.js';
import { badge, duration, elapsed, errorBox, sinceEl, timeEl } from './format.js';

/** Typing in the search box queries once it pauses this long, ms. */
const SEARCH_PAUSE_MS = 250;

const STATUSES = ['RUNNING', 'SUCCEEDED', 'FAILED', 'TIMED_OUT', 'STOPPED', 'CANCELLED'];
const PAGE_SIZE = 25;
const MAX_PAGE_SIZE = 100;

export const runHref = (runId) => `#/runs/${encodeURIComponent(runId)}`;

/** `params`: the hash's query (`status`, `function`, `search`, `limit`). */
export function listView(params, refreshNow) {
  const filters = {
    status: params.get('status') ?? '',
    function: params.get('function') ?? '',
    search: params.get('search') ?? '',
  };
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
  let searchTimer;
  const searchBox = h('input', {
    id: 'filter-search',
    type: 'search',
    autocomplete: 'off',
    spellcheck: 'false',
    placeholder: 'run id or run key',
    value: filters.search,
    dataset: { testid: 'filter-search' },
    oninput: (e) => {
      clearTimeout(searchTimer);
      const value = e.target.value.trim();
      searchTimer = setTimeout(() => setFilter('search', value), SEARCH_PAUSE_MS);
    },
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
        h('label', { for: 'filter-search' }, 'Search'),
        searchBox,
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
    startForm.setFunctions(list);
  }

  function renderRuns(page) {
    nextCursor = page.nextCursor;
    prev.disabled = cursors.length <= 1;
    next.disabled = !nextCursor;
    pageLabel.textContent = filters.search ? 'Search results' : `Page ${cursors.length}`;
    const key = JSON.stringify(page);
    if (key === shown) return;
    shown = key;
    if (page.runs.length === 0) {
      const filtered = filters.status || filters.function || filters.search;
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
            ['Run', 'Function', 'Status', 'Waiting for', 'Started', 'Duration', 'Inv.'].map((t) =>
              h('th', { scope: 'col', title: t === 'Inv.' ? 'Invocations' : undefined }, t),
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
          search: filters.search,
          include: 'waitingFor',
          limit,
          cursor: filters.search ? undefined : cursors.at(-1),
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

/** What a running run waits for, in a few words (the first thing, and how many more). */
function waitingCell(run) {
  const list = run.waitingFor ?? [];
  if (run.status !== 'RUNNING' || list.length === 0) return h('span', { class: 'muted' }, '—');
  const [first] = list;
  const name = first.name ? ` ${first.name}` : '';
  let what;
  if (first.kind === 'invocation') what = ['running now'];
  else if (first.kind === 'due') what = ['due now'];
  else if (first.kind === 'wait') what = [`wait${name} · ends `, timeEl(first.at, 'rel')];
  else if (first.kind === 'retry') what = [`retry of${name} · `, timeEl(first.at, 'rel')];
  else if (first.kind === 'callback')
    what = [`callback${name}`, first.at ? [' (times out ', timeEl(first.at, 'rel'), ')'] : ''];
  else if (first.kind === 'child') {
    what = [
      'child run ',
      first.childRunId
        ? h('a', { href: runHref(first.childRunId), class: 'mono' }, first.function ?? first.childRunId)
        : '',
    ];
  } else what = [first.kind];
  return h(
    'span',
    { class: `waiting waiting-${first.kind}`, dataset: { testid: 'run-waiting', kind: first.kind } },
    what,
    list.length > 1 ? h('span', { class: 'muted' }, ` +${list.length - 1} more`) : null,
  );
}

function runRow(run) {
  return h(
    'tr',
    { dataset: { testid: 'run-row', runId: run.runId, status: run.status } },
    h(
      'td',
      null,
      h('a', { href: runHref(run.runId), class: 'mono', dataset: { testid: 'run-link' } }, run.runId),
      run.runKey ? h('div', { class: 'muted run-key', title: 'run key' }, run.runKey) : null,
    ),
    h('td', null, run.function),
    h('td', null, badge(run.status, 'run-status')),
    h('td', null, waitingCell(run)),
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
    rows: 5,
    spellcheck: 'false',
    placeholder: '{"order": 1}',
    dataset: { testid: 'start-input' },
  });
  input.value = '{}';
  /** The samples of each function, by name. */
  let samplesOf = new Map();
  const sample = h('select', {
    id: 'start-sample',
    dataset: { testid: 'start-sample' },
    onchange: () => useSample(Number(sample.value)),
  });
  const sampleField = h(
    'div',
    { class: 'field', hidden: true },
    h('label', { for: 'start-sample' }, 'Sample input'),
    sample,
  );
  /** The text last put in the input from a sample: replaced freely, unlike what the user typed. */
  let fromSample = '{}';

  function useSample(index) {
    const chosen = samplesOf.get(select.value)?.[index];
    if (!chosen) return;
    fromSample = JSON.stringify(chosen.input, null, 2);
    input.value = fromSample;
  }

  /** Offers the chosen function's samples, and puts the first in the input unless the user typed. */
  function showSamples() {
    const list = samplesOf.get(select.value) ?? [];
    replace(
      sample,
      list.map((s, i) => h('option', { value: String(i) }, s.name)),
    );
    sampleField.hidden = list.length === 0;
    const untouched = input.value.trim() === fromSample.trim() || input.value.trim() === '';
    if (list.length > 0 && untouched) useSample(0);
    else if (list.length === 0 && untouched) {
      fromSample = '{}';
      input.value = '{}';
    }
  }
  select.addEventListener('change', showSamples);
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
      sampleField,
      h('div', { class: 'field grow' }, h('label', { for: 'start-input' }, 'Input (JSON)'), input),
      h('div', { class: 'field' }, h('label', { for: 'start-run-key' }, 'Run key (optional)'), runKey),
      h('div', { class: 'field actions' }, submit),
    ),
    message,
  );

  return {
    el,
    /** `functions`: `GET /v1/functions`' list, `{ name, samples? }` each. */
    setFunctions(functions) {
      const chosen = select.value;
      const names = functions.map((f) => f.name);
      samplesOf = new Map(functions.map((f) => [f.name, f.samples ?? []]));
      replace(
        select,
        names.length === 0 ? h('option', { value: '' }, 'No functions') : null,
        names.map((n) => h('option', { value: n, selected: n === chosen }, n)),
      );
      submit.disabled = names.length === 0;
      if (select.value !== chosen || sample.options.length !== (samplesOf.get(select.value) ?? []).length)
        showSamples();
    },
  };
}
