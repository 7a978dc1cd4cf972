/**
 * Bulk actions of the runs page: the runs selected in the table (across pages and refreshes) can
 * be cancelled (the running ones) or retried (the failed and timed-out ones) at once, through
 * the same operator routes as one run's buttons, a few requests at a time. What happened to each
 * run is said under the bar; a refusal names the run and the API's error.
 */
import { api, describeError } from './api.js';
import { h, replace } from './dom.js';

/** Requests in flight at once: a hundred selected runs do not flood a deployed API. */
const CONCURRENCY = 4;
const RETRIABLE = new Set(['FAILED', 'TIMED_OUT']);

/** Runs `task` over `items`, {@link CONCURRENCY} at a time; answers each outcome in order. */
async function eachLimited(items, task) {
  const outcomes = new Array(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const i = next++;
      try {
        outcomes[i] = { ok: true, value: await task(items[i]) };
      } catch (error) {
        outcomes[i] = { ok: false, error };
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(CONCURRENCY, items.length) }, worker));
  return outcomes;
}

const plural = (n, one, many = `${one}s`) => `${n} ${n === 1 ? one : many}`;

/**
 * The bar. `statusOf(runId)`: the status of a run on the page shown (undefined when it is not);
 * `redraw()` draws the table again (its boxes follow the selection); `refreshNow()` fetches.
 */
export function bulkBar({ statusOf, refreshNow, redraw }) {
  /** Selected run ids, with the status each was last seen with. */
  const selected = new Map();
  const count = h('span', { class: 'bulk-count', dataset: { testid: 'bulk-count' }, 'aria-live': 'polite' });
  const message = h('div', { class: 'bulk-message', dataset: { testid: 'bulk-message' }, role: 'status' });
  const cancel = h(
    'button',
    { type: 'button', class: 'danger', dataset: { testid: 'bulk-cancel' }, onclick: () => void run('cancel') },
    'Cancel selected',
  );
  const retry = h(
    'button',
    { type: 'button', class: 'primary', dataset: { testid: 'bulk-retry' }, onclick: () => void run('retry') },
    'Retry selected',
  );
  const none = h(
    'button',
    {
      type: 'button',
      dataset: { testid: 'bulk-clear' },
      onclick: () => {
        selected.clear();
        update();
        redraw();
      },
    },
    'Clear selection',
  );
  const el = h(
    'div',
    { class: 'bulk', dataset: { testid: 'bulk-bar' }, role: 'group', 'aria-label': 'Actions on the selected runs' },
    count,
    cancel,
    retry,
    none,
    message,
  );

  function ids(statuses) {
    return [...selected].filter(([, status]) => statuses(status)).map(([id]) => id);
  }

  function update() {
    for (const [id] of selected) {
      const status = statusOf(id);
      if (status !== undefined) selected.set(id, status);
    }
    const running = ids((s) => s === 'RUNNING').length;
    const retriable = ids((s) => RETRIABLE.has(s)).length;
    el.classList.toggle('active', selected.size > 0);
    count.textContent =
      selected.size === 0 ? 'Select runs to cancel or retry them together.' : `${selected.size} selected`;
    cancel.disabled = running === 0;
    cancel.textContent = running > 0 ? `Cancel ${plural(running, 'running run')}` : 'Cancel selected';
    retry.disabled = retriable === 0;
    retry.textContent = retriable > 0 ? `Retry ${plural(retriable, 'failed run')}` : 'Retry selected';
    none.hidden = selected.size === 0;
  }

  async function run(action) {
    const cancelling = action === 'cancel';
    const targets = cancelling ? ids((s) => s === 'RUNNING') : ids((s) => RETRIABLE.has(s));
    if (targets.length === 0) return;
    if (cancelling && !window.confirm(`Cancel ${plural(targets.length, 'run')}?`)) return;
    cancel.disabled = true;
    retry.disabled = true;
    replace(
      message,
      h('p', { class: 'muted' }, `${cancelling ? 'Cancelling' : 'Retrying'} ${plural(targets.length, 'run')}…`),
    );
    const outcomes = await eachLimited(targets, (id) => (cancelling ? api.cancelRun(id) : api.retryRun(id)));
    const refused = [];
    targets.forEach((id, i) => {
      if (outcomes[i].ok) selected.delete(id);
      else refused.push([id, outcomes[i].error]);
    });
    const done = targets.length - refused.length;
    const skipped = selected.size - refused.length;
    replace(
      message,
      h(
        'p',
        { class: refused.length > 0 ? 'bad' : 'ok', dataset: { testid: 'bulk-outcome' } },
        `${cancelling ? 'Cancelled' : 'Retried'} ${plural(done, 'run')}.`,
        refused.length > 0 ? ` ${refused.length} refused.` : '',
        skipped > 0
          ? ` ${plural(skipped, 'other selected run')} left as ${skipped === 1 ? 'it was' : 'they were'}.`
          : '',
      ),
      refused.length > 0
        ? h(
            'ul',
            { class: 'bulk-refusals', dataset: { testid: 'bulk-refusals' } },
            refused.map(([id, error]) => h('li', null, h('code', null, id), ` ${describeError(error)}`)),
          )
        : null,
    );
    update();
    redraw();
    await refreshNow();
  }

  update();
  return {
    el,
    /** The selected run ids (read by the table's boxes). */
    selection: { has: (id) => selected.has(id) },
    /** A box was ticked or cleared. */
    select(id, checked) {
      if (checked) selected.set(id, statusOf(id));
      else selected.delete(id);
      update();
      redraw();
    },
    update,
  };
}
