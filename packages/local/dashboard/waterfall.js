/**
 * A run's waterfall: one row per operation, its bar from when its last stretch of work began to
 * its end, on a time axis cut into the run's invocations (shaded, numbered) and the idle gaps
 * between them. A gap longer than a couple of seconds is drawn narrow and labelled with its
 * length, so a 30-minute wait does not squeeze every step into a hairline.
 */
import { h } from './dom.js';
import { absolute, duration } from './format.js';

/** Gaps shorter than this are drawn to scale. */
const SHORT_GAP_MS = 2_000;
/** Share of the axis a long gap takes, whatever its length. */
const GAP_SHARE = 0.1;
/** Least share of the axis an invocation takes, however short. */
const MIN_ACTIVE_SHARE = 0.04;
const ms = (iso) => (iso === undefined ? undefined : new Date(iso).getTime());

/**
 * The axis: segments covering [start, end], each `{ from, to, gap, x0, x1 }` (x in 0..1), and a
 * function from a time to its x. Without invocations it is linear.
 */
export function timeScale(start, end, invocations) {
  const spans = [];
  let cursor = start;
  const sorted = [...invocations].sort((a, b) => a.from - b.from);
  sorted.forEach((inv, i) => {
    const from = Math.max(inv.from, cursor);
    const next = sorted[i + 1]?.from ?? end;
    const to = Math.max(from, Math.min(inv.to ?? next, end));
    if (from > cursor) spans.push({ from: cursor, to: from, gap: true });
    spans.push({ from, to, gap: false, invocation: inv });
    cursor = to;
  });
  if (end > cursor) spans.push({ from: cursor, to: end, gap: sorted.length > 0 });
  for (const span of spans) if (span.gap && span.to - span.from < SHORT_GAP_MS) span.gap = false;
  const longGaps = spans.filter((s) => s.gap).length;
  const activeTotal = spans.filter((s) => !s.gap).reduce((sum, s) => sum + (s.to - s.from), 0);
  const activeShare = Math.max(0, 1 - longGaps * GAP_SHARE);
  const activeSpans = spans.filter((s) => !s.gap).length;
  let x = 0;
  for (const span of spans) {
    const share = span.gap
      ? GAP_SHARE
      : activeTotal > 0
        ? Math.max(MIN_ACTIVE_SHARE, ((span.to - span.from) / activeTotal) * activeShare)
        : activeShare / Math.max(1, activeSpans);
    span.x0 = x;
    x += share;
    span.x1 = x;
  }
  const total = x || 1;
  for (const span of spans) {
    span.x0 /= total;
    span.x1 /= total;
  }
  const at = (t) => {
    if (spans.length === 0) return 0;
    if (t <= spans[0].from) return 0;
    for (const span of spans) {
      if (t <= span.to) {
        const width = span.to - span.from;
        return width <= 0 ? span.x0 : span.x0 + ((t - span.from) / width) * (span.x1 - span.x0);
      }
    }
    return 1;
  };
  return { spans, at };
}

const pct = (x) => `${(Math.max(0, Math.min(1, x)) * 100).toFixed(3)}%`;

/** The operations shown, depth first, without the items of folded batches. */
function rows(operations, isFolded) {
  const visible = operations.filter((op) => op.type !== 'EXECUTION');
  const ids = new Set(visible.map((op) => op.id));
  const children = new Map();
  for (const op of visible) {
    const parent = op.parentId !== undefined && ids.has(op.parentId) ? op.parentId : '';
    if (!children.has(parent)) children.set(parent, []);
    children.get(parent).push(op);
  }
  const out = [];
  const walk = (parent, depth, batch) => {
    for (const op of children.get(parent) ?? []) {
      out.push({ op, depth });
      if (children.has(op.id) && !isFolded(op, batch)) walk(op.id, depth + 1, op.items ? op : undefined);
    }
  };
  walk('', 0, undefined);
  return out;
}

/** The bar of an operation: [from, to] and how it is drawn. */
function barOf(op, end) {
  const from = ms(op.activeFrom) ?? ms(op.startedAt);
  const ended = ms(op.endedAt);
  if (op.abandoned) return { from, to: ended ?? end, kind: 'abandoned' };
  if (op.type === 'WAIT') return { from, to: ended ?? Math.min(ms(op.waitUntil) ?? end, end), kind: 'wait' };
  if (ended !== undefined) return { from, to: ended, kind: op.status === 'SUCCEEDED' ? 'ok' : 'bad' };
  return { from, to: end, kind: op.status === 'PENDING' || op.type === 'CALLBACK' ? 'wait' : 'running' };
}

/**
 * The waterfall panel. `history`: the operations answer (with `invocations` when the store
 * records them); `isFolded(op, batch)`: whether an operation's children are folded away (as in
 * the timeline; `batch`: the batch it is an item of).
 */
export function renderWaterfall(run, history, isFolded, now = Date.now()) {
  const start = ms(run.createdAt);
  const ops = history.operations ?? [];
  const latest = Math.max(start + 1, ...ops.map((op) => ms(op.endedAt) ?? 0));
  const end = ms(run.endedAt) ?? Math.max(now, latest);
  const invocations = (history.invocations ?? []).map((inv) => ({
    number: inv.number,
    from: ms(inv.startedAt),
    to: ms(inv.endedAt),
    lost: inv.lost === true,
  }));
  const scale = timeScale(start, end, invocations);
  const shown = rows(ops, isFolded);

  const bands = scale.spans.map((span) =>
    h(
      'div',
      {
        class: `wf-span ${span.gap ? 'wf-gap' : span.invocation ? 'wf-invocation' : 'wf-idle'}${span.invocation?.lost ? ' wf-lost' : ''}`,
        style: `left:${pct(span.x0)};width:${pct(span.x1 - span.x0)}`,
        title: span.invocation
          ? `invocation ${span.invocation.number}${span.invocation.lost ? ' (lost)' : ''}: ${absolute(new Date(span.from).toISOString())}, ${duration(span.to - span.from)}`
          : `idle ${duration(span.to - span.from)}`,
        dataset: {
          testid: span.gap ? 'wf-gap' : span.invocation ? 'wf-invocation' : 'wf-idle',
          invocation: span.invocation?.number,
        },
      },
      span.invocation ? h('span', { class: 'wf-span-label' }, `#${span.invocation.number}`) : null,
      span.gap ? h('span', { class: 'wf-span-label' }, `⋯ ${duration(span.to - span.from)} ⋯`) : null,
    ),
  );

  const body = shown.map(({ op, depth }) => {
    const bar = barOf(op, end);
    const x0 = scale.at(bar.from);
    const x1 = Math.max(scale.at(bar.to), x0);
    const took = op.durationMs !== undefined ? duration(op.durationMs) : op.abandoned ? 'abandoned' : 'open';
    const folded = op.items && isFolded(op, undefined) ? ` (${op.items.total} items folded)` : '';
    const failures = (op.failedAttempts ?? []).map((f) =>
      h('span', {
        class: 'wf-failure',
        style: `left:${pct(scale.at(ms(f.at)))}`,
        title: `attempt ${f.attempt} failed: ${f.error.message}`,
        dataset: { testid: 'wf-failure' },
      }),
    );
    return h(
      'div',
      { class: 'wf-row', dataset: { testid: 'wf-row', opId: op.id, opName: op.name ?? '', kind: bar.kind } },
      h(
        'div',
        { class: 'wf-label', style: `padding-left:${depth * 14 + 4}px`, title: `${op.type} ${op.name ?? ''}` },
        h('span', { class: 'wf-name' }, op.name ?? op.type.toLowerCase()),
        h('span', { class: 'wf-took muted' }, `${took}${folded}`),
      ),
      h(
        'div',
        { class: 'wf-track' },
        h('div', {
          class: `wf-bar wf-bar-${bar.kind}`,
          style: `left:${pct(x0)};width:max(3px, ${pct(x1 - x0)})`,
          title: `${op.name ?? op.type}: ${took}`,
          dataset: { testid: 'wf-bar' },
        }),
        failures,
      ),
    );
  });

  return [
    h(
      'h2',
      { id: 'waterfall-title' },
      'Waterfall ',
      h(
        'span',
        { class: 'muted count' },
        invocations.length > 0
          ? `${invocations.length} invocation${invocations.length === 1 ? '' : 's'}, idle time folded`
          : 'to scale',
      ),
    ),
    shown.length === 0
      ? h('p', { class: 'empty' }, 'No operations yet.')
      : h(
          'div',
          { class: 'wf', dataset: { testid: 'waterfall' } },
          h(
            'div',
            { class: 'wf-row wf-axis' },
            h('div', { class: 'wf-label muted' }, 'operation'),
            h('div', { class: 'wf-track' }, bands),
          ),
          h(
            'div',
            { class: 'wf-rows' },
            h(
              'div',
              { class: 'wf-bands' },
              bands.map((b) => b.cloneNode(false)),
            ),
            body,
          ),
        ),
  ];
}
