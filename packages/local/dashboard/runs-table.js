/**
 * The table of the runs page: one row a run, with what a running run waits for, what an ended one
 * came to (its error's code and message, or a preview of its result), and a box to select it for
 * the bulk actions (see bulk.js).
 */
import { h } from './dom.js';
import { badge, compact, duration, elapsed, sinceEl, timeEl } from './format.js';
import { keyHref, runHref } from './list.js';
import { tagChips } from './tags.js';

/** Characters of an error message or a result shown in a row (the whole text is in its tooltip). */
const PREVIEW_CHARS = 90;
/** Entries of `waitingFor` named in a row; the rest are counted and listed in the tooltip. */
const SHOWN_WAITS = 2;

/**
 * Where a wait ranks in the row: a callback first (someone outside must act; timers pass on their
 * own), then a child run, then what time ends. Within a rank the API's order (soonest first).
 */
const RANK = { callback: 0, child: 1, invocation: 2, due: 2, retry: 3, wait: 3 };

/** One `waitingFor` entry in a few words (nodes), and as plain text for a tooltip. */
function describeWait(item) {
  const name = item.name ? ` ${item.name}` : '';
  switch (item.kind) {
    case 'invocation':
      return [['running now'], 'running now'];
    case 'due':
      return [['due now'], 'due now'];
    case 'wait':
      return [[`wait${name} · ends `, timeEl(item.at, 'rel')], `wait${name} (ends ${item.at})`];
    case 'retry':
      return [[`retry of${name} · `, timeEl(item.at, 'rel')], `retry of${name} (at ${item.at})`];
    case 'callback':
      return [
        [`callback${name}`, item.at ? [' (times out ', timeEl(item.at, 'rel'), ')'] : ''],
        `callback${name}${item.at ? ` (times out ${item.at})` : ''}`,
      ];
    case 'signal':
      return [
        [`signal${name}`, item.at ? [' (times out ', timeEl(item.at, 'rel'), ')'] : ''],
        `signal${name}${item.at ? ` (times out ${item.at})` : ''}`,
      ];
    case 'child': {
      const label = item.function ?? item.childRunId ?? '';
      return [
        ['child run ', item.childRunId ? h('a', { href: runHref(item.childRunId), class: 'mono' }, label) : label],
        `child run ${label}`,
      ];
    }
    default:
      return [[item.kind], item.kind];
  }
}

/** What waits come first in a row: callbacks, then child runs, then timers (stable within a rank). */
export function rankWaits(list) {
  return list
    .map((item, index) => ({ item, index }))
    .sort((a, b) => (RANK[a.item.kind] ?? 4) - (RANK[b.item.kind] ?? 4) || a.index - b.index)
    .map(({ item }) => item);
}

/** What a running run waits for: the first two (callbacks first), and how many more. */
function waitingCell(run) {
  const list = rankWaits(run.waitingFor ?? []);
  if (list.length === 0) return h('span', { class: 'muted' }, '—');
  const described = list.map(describeWait);
  const shown = described.slice(0, SHOWN_WAITS);
  const rest = list.length - shown.length;
  return h(
    'span',
    {
      class: `waiting waiting-${list[0].kind}`,
      title: described.map(([, text]) => text).join('\n'),
      dataset: { testid: 'run-waiting', kind: list[0].kind, kinds: list.map((w) => w.kind).join(' ') },
    },
    shown.map(([nodes], i) => h('span', { class: 'wait-item' }, i > 0 ? ' · ' : '', nodes)),
    rest > 0 ? h('span', { class: 'muted' }, ` +${rest} more`) : null,
  );
}

/** What a QUEUED run waits for: a slot of its key, its place in the key's queue, since when. */
function queuedCell(run) {
  return h(
    'span',
    {
      class: 'waiting waiting-queued',
      title: `waits for a slot of its concurrency key ${run.concurrencyKey ?? ''}${run.queuedAt ? ` (queued ${run.queuedAt})` : ''}`,
      dataset: {
        testid: 'run-queued',
        key: run.concurrencyKey ?? '',
        position: run.queuePosition === undefined ? '' : String(run.queuePosition),
      },
    },
    run.queuePosition === undefined
      ? 'queued'
      : h('strong', { dataset: { testid: 'run-queue-position' } }, `#${run.queuePosition} in queue`),
    ' · key ',
    run.concurrencyKey
      ? h(
          'a',
          { href: keyHref(run.function, run.concurrencyKey), dataset: { testid: 'run-concurrency-key' } },
          h('code', null, run.concurrencyKey),
        )
      : '?',
    run.queuedAt ? [' · since ', timeEl(run.queuedAt, 'rel')] : '',
  );
}

/** A line of text cut to {@link PREVIEW_CHARS}. */
function cut(text) {
  return text.length > PREVIEW_CHARS ? `${text.slice(0, PREVIEW_CHARS - 1)}…` : text;
}

/** What an ended run came to: its error (code and message) or a preview of its result. */
function outcomeCell(run) {
  if (run.error) {
    const full = `${run.error.code ?? 'error'}: ${run.error.message ?? ''}`;
    // A cancelled or stopped run's error is what someone asked for: said, not alarmed.
    const asked = run.status === 'CANCELLED' || run.status === 'STOPPED';
    return h(
      'span',
      {
        class: `outcome ${asked ? 'muted' : 'outcome-error'}`,
        title: full,
        dataset: { testid: 'run-outcome', kind: 'error' },
      },
      h('code', { class: 'error-code' }, run.error.code ?? 'error'),
      ` ${cut(run.error.message ?? '')}`,
    );
  }
  if (run.omitted?.result !== undefined) {
    const kb = Math.ceil(run.omitted.result / 1024);
    return h(
      'span',
      { class: 'outcome muted', dataset: { testid: 'run-outcome', kind: 'large' } },
      `result of ${kb.toLocaleString('en-US')} KB (on the run's page)`,
    );
  }
  if (run.result !== undefined) {
    const text = compact(run.result, 4000);
    return h(
      'code',
      { class: 'outcome outcome-result', title: text, dataset: { testid: 'run-outcome', kind: 'result' } },
      cut(text),
    );
  }
  if (run.status === 'RUNNING') return null;
  return h('span', { class: 'muted', dataset: { testid: 'run-outcome', kind: 'none' } }, 'no result');
}

/** The state the run published last (`ctx.publish`), on one line under its wait or outcome. */
function publishedLine(published) {
  const text = compact(published.state, 4000);
  return h(
    'div',
    { class: 'muted run-key', title: text, dataset: { testid: 'run-published-preview' } },
    'published ',
    h('code', null, cut(text)),
  );
}

/**
 * A row; `selection` is the set of selected run ids and `onSelect(runId, checked)` is told of a
 * change (bulk actions).
 */
function runRow(run, selection, onSelect) {
  return h(
    'tr',
    { dataset: { testid: 'run-row', runId: run.runId, status: run.status } },
    h(
      'td',
      { class: 'pick' },
      h('input', {
        type: 'checkbox',
        'aria-label': `Select run ${run.runId}`,
        checked: selection.has(run.runId),
        dataset: { testid: 'run-select' },
        onchange: (e) => onSelect(run.runId, e.target.checked),
      }),
    ),
    h(
      'td',
      null,
      h('a', { href: runHref(run.runId), class: 'mono', dataset: { testid: 'run-link' } }, run.runId),
      // A child run's key only names its parent's invoke: the parent is shown instead, linked.
      run.parent
        ? h(
            'div',
            { class: 'muted run-key', dataset: { testid: 'run-parent' } },
            '↳ child of ',
            h('a', { href: runHref(run.parent.runId), class: 'mono' }, run.parent.runId),
          )
        : run.runKey
          ? h('div', { class: 'muted run-key', title: 'run key' }, run.runKey)
          : null,
      run.tags ? h('div', { class: 'run-tags' }, tagChips(run.tags, 'row-tags')) : null,
    ),
    h('td', { title: run.function }, run.function),
    h('td', null, badge(run.status, 'run-status')),
    h(
      'td',
      { class: 'details' },
      run.status === 'QUEUED' ? queuedCell(run) : run.status === 'RUNNING' ? waitingCell(run) : outcomeCell(run),
      run.published ? publishedLine(run.published) : null,
    ),
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

/** The table of a page of runs, with a box to select them all. */
export function runsTable(runs, selection, onSelect) {
  const all = runs.length > 0 && runs.every((run) => selection.has(run.runId));
  return h(
    'table',
    { class: 'runs', dataset: { testid: 'runs-table' } },
    h(
      'thead',
      null,
      h(
        'tr',
        null,
        h(
          'th',
          { scope: 'col', class: 'pick' },
          h('input', {
            type: 'checkbox',
            'aria-label': 'Select every run on this page',
            checked: all,
            dataset: { testid: 'run-select-all' },
            onchange: (e) => {
              for (const run of runs) onSelect(run.runId, e.target.checked);
            },
          }),
        ),
        ['Run', 'Function', 'Status', 'Waiting for · outcome', 'Started', 'Duration', 'Inv.'].map((t) =>
          h('th', { scope: 'col', title: t === 'Inv.' ? 'Invocations' : undefined }, t),
        ),
      ),
    ),
    h(
      'tbody',
      null,
      runs.map((run) => runRow(run, selection, onSelect)),
    ),
  );
}
