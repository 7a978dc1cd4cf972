/**
 * The runs page: a form to start a run, then the runs with filters (status, function, start time,
 * tags, error code), a search by id or key or by content, bulk actions on the selected runs, and pages.
 */
import { api } from './api.js';
import { bulkBar } from './bulk.js';
import { h, replace } from './dom.js';
import { errorBox } from './format.js';
import { runsTable } from './runs-table.js';
import { startRunForm } from './start-form.js';
import { tagParams } from './tags.js';

/** Typing in the search box queries once it pauses this long, ms. */
const SEARCH_PAUSE_MS = 250;

const STATUSES = ['RUNNING', 'QUEUED', 'SUCCEEDED', 'FAILED', 'TIMED_OUT', 'STOPPED', 'CANCELLED'];
const PAGE_SIZE = 25;
/**
 * A content search is read again at most this often while the page is live, ms: each one reads
 * up to 1,000 runs with their payloads (on DynamoDB, read units), where a plain page reads 25.
 */
const CONTENT_EVERY_MS = 15_000;
const MAX_PAGE_SIZE = 100;

export const runHref = (runId) => `#/runs/${encodeURIComponent(runId)}`;

/** The runs list of a function's concurrency key waiting their turn (its queue, in order). */
export const keyHref = (functionName, key) =>
  `#/?${new URLSearchParams({ status: 'QUEUED', function: functionName, key }).toString()}`;

/** Filters kept in the hash's query, in this order. */
const FILTERS = ['status', 'function', 'key', 'search', 'contains', 'after', 'before', 'tags', 'code'];

/** A `datetime-local` value (local time, no zone) as an ISO time for the API; '' when unset or bad. */
function isoOf(local) {
  if (!local) return '';
  const time = new Date(local);
  return Number.isNaN(time.getTime()) ? '' : time.toISOString();
}

/**
 * `params`: the hash's query (`status`, `function`, `key` (a concurrency key), `search` (id or
 * key) or `contains` (text in input, result or error), `after` and `before` (local times of the
 * start), `tags` (`key=value` pairs, space-separated: runs carrying all), `code` (an error code), `limit`).
 */
export function listView(params, refreshNow) {
  const filters = Object.fromEntries(FILTERS.map((name) => [name, params.get(name) ?? '']));
  // The API finds by id or key, or by content, not both: content wins when a hash names both.
  if (filters.contains) filters.search = '';
  const asked = Number(params.get('limit'));
  const limit = Number.isInteger(asked) && asked >= 1 ? Math.min(asked, MAX_PAGE_SIZE) : PAGE_SIZE;
  /** Cursors of the pages seen so far; the last one is the page shown. */
  let cursors = [undefined];
  let nextCursor;
  let functions;
  let shown;
  /** The runs of the page shown (for the bulk actions' statuses). */
  let pageRuns = [];
  /** Bumped when the filters or the page change: answers to older queries are dropped. */
  let query = 0;
  /** The last content search's page, its query number and when it was read. */
  let lastContent;
  const bulk = bulkBar({
    statusOf: (id) => pageRuns.find((r) => r.runId === id)?.status,
    // After an action the runs are read anew, a content search too.
    refreshNow: () => {
      lastContent = undefined;
      return refreshNow();
    },
    redraw,
  });

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
  const searchIn = h(
    'select',
    { id: 'filter-search-in', dataset: { testid: 'filter-search-in' }, onchange: () => searchChanged(0) },
    h('option', { value: 'search', selected: !filters.contains }, 'id or run key'),
    h('option', { value: 'contains', selected: Boolean(filters.contains) }, 'input, result, error'),
  );
  const searchBox = h('input', {
    id: 'filter-search',
    type: 'search',
    autocomplete: 'off',
    spellcheck: 'false',
    placeholder: 'text to find',
    value: filters.contains || filters.search,
    dataset: { testid: 'filter-search' },
    oninput: () => searchChanged(SEARCH_PAUSE_MS),
  });
  /** Runs the search as the box and its "in" choice say, once typing pauses for `pause` ms. */
  function searchChanged(pause) {
    clearTimeout(searchTimer);
    searchTimer = setTimeout(() => {
      const value = searchBox.value.trim();
      const content = searchIn.value === 'contains';
      setFilters({ search: content ? '' : value, contains: content ? value : '' });
    }, pause);
  }
  let keyTimer;
  const keyBox = h('input', {
    id: 'filter-key',
    type: 'search',
    autocomplete: 'off',
    spellcheck: 'false',
    placeholder: 'concurrency key',
    value: filters.key,
    dataset: { testid: 'filter-key' },
    oninput: () => {
      clearTimeout(keyTimer);
      keyTimer = setTimeout(() => setFilter('key', keyBox.value.trim()), SEARCH_PAUSE_MS);
    },
  });
  /** A text filter applied once typing pauses (tags, error code). */
  const textFilter = (name, placeholder) => {
    let timer;
    const box = h('input', {
      id: `filter-${name}`,
      type: 'search',
      autocomplete: 'off',
      spellcheck: 'false',
      placeholder,
      value: filters[name],
      dataset: { testid: `filter-${name}` },
      oninput: () => {
        clearTimeout(timer);
        timer = setTimeout(() => setFilter(name, box.value.trim()), SEARCH_PAUSE_MS);
      },
    });
    return box;
  };
  const tagsBox = textFilter('tags', 'customer=c-1 region=eu');
  const codeBox = textFilter('code', 'error code');
  const timeInput = (name, label) => [
    h('label', { for: `filter-${name}` }, label),
    h('input', {
      id: `filter-${name}`,
      type: 'datetime-local',
      step: '1',
      value: filters[name],
      dataset: { testid: `filter-${name}` },
      onchange: (e) => setFilter(name, e.target.value),
    }),
  ];
  const clear = h(
    'button',
    {
      type: 'button',
      dataset: { testid: 'filter-clear' },
      onclick: () => {
        searchBox.value = '';
        keyBox.value = '';
        tagsBox.value = '';
        codeBox.value = '';
        for (const input of el.querySelectorAll('input[type="datetime-local"]')) input.value = '';
        statusSelect.value = '';
        functionSelect.value = '';
        setFilters(Object.fromEntries(FILTERS.map((name) => [name, ''])));
      },
    },
    'Clear filters',
  );
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
        h('label', { for: 'filter-key', title: 'Runs of one concurrency key (flow control per key)' }, 'Key'),
        keyBox,
        clear,
      ),
      h(
        'div',
        { class: 'toolbar filters', role: 'search', 'aria-label': 'Find runs' },
        h('label', { for: 'filter-search' }, 'Search'),
        searchBox,
        h('label', { for: 'filter-search-in' }, 'in'),
        searchIn,
        timeInput('after', 'Started from'),
        timeInput('before', 'to'),
      ),
      h(
        'div',
        { class: 'toolbar filters', role: 'search', 'aria-label': 'Find runs by tags and error' },
        h('label', { for: 'filter-tags', title: 'Runs carrying every tag given (ctx.tag), key=value' }, 'Tags'),
        tagsBox,
        h('label', { for: 'filter-code', title: 'Runs whose error has exactly this code' }, 'Error code'),
        codeBox,
      ),
      bulk.el,
      errorSlot,
      body,
      h('nav', { class: 'pager', 'aria-label': 'Pages of runs' }, prev, pageLabel, next),
    ),
  );

  const setFilter = (name, value) => setFilters({ [name]: value });

  function setFilters(changed) {
    Object.assign(filters, changed);
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

  /** Draws the page again (a selection changed). */
  function redraw() {
    shown = undefined;
    renderRuns({ runs: pageRuns, nextCursor });
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
    pageRuns = page.runs;
    prev.disabled = cursors.length <= 1;
    next.disabled = !nextCursor;
    const queue = filters.key && filters.function && filters.status === 'QUEUED';
    pageLabel.textContent = filters.search
      ? 'Search results'
      : queue
        ? `The queue of ${filters.key}, next to start first`
        : `Page ${cursors.length}`;
    bulk.update();
    const key = JSON.stringify(page);
    if (key === shown) return;
    shown = key;
    if (page.runs.length === 0) {
      const filtered = FILTERS.some((name) => filters[name]);
      const scanning = filters.contains && nextCursor;
      replace(
        body,
        h(
          'p',
          { class: 'empty', dataset: { testid: 'runs-empty' } },
          scanning
            ? 'No runs match among the newest 1,000 read. Older → reads further back.'
            : filtered
              ? 'No runs match these filters.'
              : 'No runs yet. Start one above.',
        ),
      );
      return;
    }
    replace(body, runsTable(page.runs, bulk.selection, bulk.select));
  }

  return {
    el,
    title: 'Runs',
    /** The Refresh button: read everything anew, a content search too. */
    invalidate() {
      lastContent = undefined;
    },
    async refresh() {
      const asked = query;
      // The same content search read moments ago: its page stands (a new query reads at once).
      const reuse = filters.contains && lastContent?.query === asked && Date.now() - lastContent.at < CONTENT_EVERY_MS;
      const [fns, page] = await Promise.allSettled([
        api.functions(),
        reuse
          ? lastContent.page
          : api.listRuns({
              status: filters.status,
              function: filters.function,
              concurrencyKey: filters.key,
              search: filters.search,
              contains: filters.contains,
              createdAfter: isoOf(filters.after),
              createdBefore: isoOf(filters.before),
              tag: tagParams(filters.tags),
              errorCode: filters.code,
              include: 'waitingFor',
              limit,
              cursor: filters.search ? undefined : cursors.at(-1),
            }),
      ]);
      if (fns.status === 'fulfilled') renderFunctions(fns.value.functions);
      if (asked !== query) return true;
      if (page.status === 'fulfilled') {
        if (filters.contains && !reuse) lastContent = { query: asked, at: Date.now(), page: page.value };
        renderRuns(page.value);
      }
      const failed = [fns, page].find((r) => r.status === 'rejected');
      replace(errorSlot, failed ? errorBox(toWire(failed.reason), 'runs-error-message') : null);
      return !failed;
    },
  };
}

/** An error as `{code, message}` for {@link errorBox}. */
export function toWire(error) {
  return { code: error?.code ?? 'error', message: error?.message ?? String(error) };
}
