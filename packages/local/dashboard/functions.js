/**
 * The functions page (`#/functions`): what this server serves (`GET /v1/functions`), each
 * function with its sample inputs (each one a button that starts a run with it) and how its
 * recent runs went (the statuses of its newest 100 runs, the newest run), linked to its runs,
 * and its execution timeout when the API reports one (a deployed API knows each function's).
 * Retries are a step's own setting in the handler's code: the page says so rather than guess.
 */
import { api } from './api.js';
import { h, replace } from './dom.js';
import { badge, compact, duration, errorBox, timeEl } from './format.js';
import { runHref, toWire } from './list.js';

/** Runs read per function for its recent statuses. */
const RECENT = 100;
/** The runs are read again at most this often, ms (the page refreshes every 1.5 s while live). */
const RUNS_EVERY_MS = 10_000;
const ORDER = ['RUNNING', 'SUCCEEDED', 'FAILED', 'TIMED_OUT', 'CANCELLED', 'STOPPED'];

const runsOf = (name, status) =>
  `#/?${new URLSearchParams({ function: name, ...(status ? { status } : {}) }).toString()}`;

/** The statuses of a function's newest runs, as links to the runs list filtered so. */
function recentRuns(name, page) {
  if (!page) return h('p', { class: 'muted' }, 'Reading its runs…');
  if (page.runs.length === 0)
    return h('p', { class: 'muted', dataset: { testid: 'function-no-runs' } }, 'No runs yet.');
  const counts = new Map();
  for (const run of page.runs) counts.set(run.status, (counts.get(run.status) ?? 0) + 1);
  const newest = page.runs[0];
  const of = page.nextCursor
    ? `its newest ${page.runs.length} runs`
    : `its ${page.runs.length} run${page.runs.length === 1 ? '' : 's'}`;
  return [
    h(
      'p',
      { class: 'function-counts', dataset: { testid: 'function-counts' } },
      `Of ${of}: `,
      ORDER.filter((s) => counts.has(s)).map((status, i) => [
        i > 0 ? ', ' : '',
        h(
          'a',
          { href: runsOf(name, status), dataset: { testid: 'function-count', status } },
          `${counts.get(status)} `,
          badge(status),
        ),
      ]),
      '.',
    ),
    h(
      'p',
      { class: 'muted' },
      'Newest: ',
      h('a', { href: runHref(newest.runId), class: 'mono' }, newest.runId),
      ' ',
      badge(newest.status),
      ', started ',
      timeEl(newest.createdAt, 'rel'),
      '. ',
      h('a', { href: runsOf(name), dataset: { testid: 'function-runs-link' } }, `All runs of ${name} →`),
    ),
  ];
}

function card(fn, page, start) {
  const samples = fn.samples ?? [];
  return h(
    'section',
    {
      class: 'panel function-card',
      'aria-labelledby': `fn-${fn.name}`,
      dataset: { testid: 'function', name: fn.name },
    },
    h('h2', { id: `fn-${fn.name}` }, fn.name),
    recentRuns(fn.name, page),
    h('h3', null, 'Sample inputs'),
    samples.length === 0
      ? h(
          'p',
          { class: 'muted', dataset: { testid: 'function-no-samples' } },
          'None. A handler module may export ',
          h('code', null, 'samples'),
          ', a list of { name, input }, to offer some here and in the start form.',
        )
      : h(
          'ul',
          { class: 'samples' },
          samples.map((sample) =>
            h(
              'li',
              { dataset: { testid: 'function-sample' } },
              h(
                'button',
                {
                  type: 'button',
                  'aria-label': `Start ${fn.name} with the sample ${sample.name}`,
                  dataset: { testid: 'function-sample-start' },
                  onclick: () => void start(fn.name, sample.input),
                },
                'Start',
              ),
              ' ',
              h('strong', null, sample.name),
              ' ',
              h('code', { class: 'sample-input', title: compact(sample.input, 4000) }, compact(sample.input, 160)),
            ),
          ),
        ),
    h('h3', null, 'Defaults'),
    h(
      'dl',
      { class: 'function-defaults' },
      h('dt', null, 'Execution timeout'),
      h(
        'dd',
        { dataset: { testid: 'function-timeout' } },
        fn.executionTimeoutSeconds === undefined
          ? h('span', { class: 'muted' }, 'none reported: runs have no deadline unless they set one')
          : [
              duration(fn.executionTimeoutSeconds * 1000),
              h('span', { class: 'muted' }, ' (a run past it ends TIMED_OUT; a start may set its own)'),
            ],
      ),
      h('dt', null, 'Retries'),
      h('dd', { class: 'muted' }, 'per step, in the handler (a step’s retry strategy); the API does not report them'),
    ),
  );
}

export function functionsView() {
  const errorSlot = h('div', { role: 'alert', dataset: { testid: 'functions-error' } });
  const list = h('div', { class: 'functions', dataset: { testid: 'functions' } });
  const el = h(
    'div',
    { class: 'page' },
    h(
      'div',
      { class: 'page-intro' },
      h('h1', null, 'Functions'),
      h('p', { class: 'muted' }, 'The durable functions served here: start one from a sample, or open its runs.'),
    ),
    errorSlot,
    list,
  );
  let shown;
  let pages = [];
  let pagesAt = 0;
  let pagesOf = '';

  async function start(name, input) {
    try {
      const run = await api.startRun({ function: name, ...(input === undefined ? {} : { input }) });
      location.hash = runHref(run.runId);
    } catch (error) {
      replace(errorSlot, errorBox(toWire(error), 'functions-error-message'));
    }
  }

  return {
    el,
    title: 'Functions',
    async refresh() {
      const { functions } = await api.functions();
      const names = functions.map((fn) => fn.name).join('\n');
      if (names !== pagesOf || Date.now() - pagesAt >= RUNS_EVERY_MS) {
        pages = await Promise.all(
          functions.map((fn) => api.listRuns({ function: fn.name, limit: RECENT }).catch(() => undefined)),
        );
        pagesAt = Date.now();
        pagesOf = names;
      }
      const key = JSON.stringify([functions, pages]);
      if (key === shown) return true;
      shown = key;
      replace(
        list,
        functions.length === 0
          ? h('p', { class: 'empty' }, 'No functions are served.')
          : functions.map((fn, i) => card(fn, pages[i], start)),
      );
      return true;
    },
  };
}
