/**
 * The functions page (`#/functions`): what this server serves (`GET /v1/functions`), each
 * function with its sample inputs (each one a button that starts a run with it) and how its
 * recent runs went (the statuses of its newest 100 runs, the newest run), linked to its runs,
 * and its execution timeout when the API reports one (a deployed API knows each function's); its
 * flow-control limits as its code recorded them, its RUNNING and QUEUED runs (linked to the runs
 * list filtered so), and the schedules and events route that start it where the server says.
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
const ORDER = ['RUNNING', 'QUEUED', 'SUCCEEDED', 'FAILED', 'TIMED_OUT', 'CANCELLED', 'STOPPED'];

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

/** Periods in words: `1 min`, `2.5 s`. */
const period = (ms) => duration(ms);

/** Each recorded limit as a row of a definition list. */
function limitRows(limits) {
  const rows = [];
  const row = (kind, label, ...value) =>
    rows.push(h('dt', null, label), h('dd', { dataset: { testid: 'function-limit', kind } }, value));
  if (limits.concurrency) row('concurrency', 'Concurrency', `at most ${limits.concurrency.limit} running per key`);
  if (limits.throttle) {
    const { limit, periodMs, burst } = limits.throttle;
    row(
      'throttle',
      'Throttle',
      `${limit} starts per ${period(periodMs)} per key${burst ? `, bursts of ${burst}` : ''}`,
    );
  }
  if (limits.rateLimit) {
    row('rateLimit', 'Rate limit', `${limits.rateLimit.limit} starts per ${period(limits.rateLimit.periodMs)} per key`);
  }
  if (limits.debounce) {
    const { periodMs, timeoutMs } = limits.debounce;
    row(
      'debounce',
      'Debounce',
      `last event in ${period(periodMs)}${timeoutMs ? `, at most ${period(timeoutMs)}` : ''}`,
    );
  }
  if (limits.singleton) row('singleton', 'Singleton', `one run per key (${limits.singleton.mode})`);
  if (limits.priority) row('priority', 'Priority', 'queued runs by priority');
  return rows;
}

/** The function's limits, as its code recorded them (the engine at an admission, the dev server at load). */
function limitsSection(fn) {
  const rows = fn.limits ? limitRows(fn.limits) : [];
  return [
    h('h3', null, 'Limits'),
    rows.length > 0
      ? [
          h('dl', { class: 'function-defaults', dataset: { testid: 'function-limits' } }, rows),
          fn.limitsRecordedAt
            ? h(
                'p',
                { class: 'muted' },
                'As its code declared them, recorded ',
                timeEl(fn.limitsRecordedAt, 'rel'),
                fn.limitsVersion ? ` by version ${fn.limitsVersion}` : '',
                '.',
              )
            : null,
        ]
      : h(
          'p',
          { class: 'muted', dataset: { testid: 'function-no-limits' } },
          fn.limits
            ? 'None: its runs start as they come.'
            : 'None recorded (limits are recorded when the code declaring them admits a run).',
        ),
  ];
}

/** Its RUNNING and QUEUED runs now, each linked to the runs list filtered so. */
function nowSection(fn) {
  if (!fn.counts) return null;
  const count = (status, n, more, testid) =>
    h(
      'a',
      { href: runsOf(fn.name, status), dataset: { testid, count: String(n) } },
      `${n}${more ? '+' : ''} `,
      badge(status),
    );
  return h(
    'p',
    { class: 'function-counts', dataset: { testid: 'function-now' } },
    'Now: ',
    count('RUNNING', fn.counts.running, fn.counts.runningMore, 'function-running'),
    ', ',
    count('QUEUED', fn.counts.queued, fn.counts.queuedMore, 'function-queued'),
    '.',
  );
}

/** What starts its runs besides the API: the schedules fired, the route taking trigger events. */
function startsSection(fn) {
  const starts = fn.starts;
  if (!starts) return null;
  const schedules = starts.schedules ?? [];
  return [
    h('h3', null, 'Schedules and triggers'),
    h(
      'ul',
      { class: 'function-starts' },
      schedules.map((s) =>
        h(
          'li',
          { dataset: { testid: 'function-schedule', name: s.name } },
          h('strong', null, s.name),
          `${s.rateMs === undefined ? ` cron ${s.cron}${s.timezone ? ` (${s.timezone})` : ''}` : ` every ${period(s.rateMs)}`} · overlap ${s.overlap}${s.catchUp ? ' · catches up after downtime' : ''}`,
        ),
      ),
      starts.eventsPath
        ? h(
            'li',
            { dataset: { testid: 'function-events' } },
            'Trigger events (SQS, EventBridge, DynamoDB Streams) and schedule firings: ',
            h('code', null, `POST ${starts.eventsPath}`),
          )
        : null,
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
    nowSection(fn),
    recentRuns(fn.name, page),
    limitsSection(fn),
    startsSection(fn),
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
  /** The last counts read, by function. */
  let counted;

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
      // The counts are read with the runs, at most every RUNS_EVERY_MS (a bounded read of runs each).
      const due = Date.now() - pagesAt >= RUNS_EVERY_MS;
      const { functions } = await api.functions({ counts: due || !counted });
      const names = functions.map((fn) => fn.name).join('\n');
      if (functions.some((fn) => fn.counts)) counted = new Map(functions.map((fn) => [fn.name, fn.counts]));
      for (const fn of functions) if (!fn.counts && counted?.get(fn.name)) fn.counts = counted.get(fn.name);
      if (names !== pagesOf || due) {
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
