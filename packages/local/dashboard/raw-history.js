/**
 * A run's raw history on its page: the exported-run file `durable export` prints (the run record
 * and every operation as stored, `GET /v1/runs/{runId}/export`), shown as JSON under a fold and
 * saved by the Download button as `<runId>.json`, ready for `durable replay` or
 * `LocalDurableTestRunner.replay`. Read only while the fold is open (and again as the run moves).
 */
import { api } from './api.js';
import { h, replace } from './dom.js';
import { errorBox } from './format.js';
import { toWire } from './list.js';

/** Characters shown in the page; a longer file is cut there (the download has it whole). */
const SHOWN_CHARS = 200_000;

/** A file name for the run's export (the API's own rule: anything unusual becomes `_`). */
function fileName(runId) {
  return `${runId.replace(/[^A-Za-z0-9._-]/g, '_').slice(0, 200)}.json`;
}

/** Saves `text` as a file through a temporary link (no server round trip, no new window). */
function save(text, name) {
  const url = URL.createObjectURL(new Blob([text], { type: 'application/json' }));
  const link = h('a', { href: url, download: name, hidden: true });
  document.body.append(link);
  link.click();
  link.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}

/** The panel; `update(run)` is called on each refresh of the page with the run as it stands. */
export function rawHistoryPanel(runId) {
  const body = h('div', { class: 'raw-body' });
  const status = h('span', { class: 'muted count', dataset: { testid: 'raw-status' }, 'aria-live': 'polite' });
  /** The run's `updatedAt` the shown JSON was read at: read again when the run moved on. */
  let readAt;
  let lastRun;
  let text;
  let reading;

  async function read() {
    reading ??= (async () => {
      const version = lastRun?.updatedAt;
      try {
        const file = await api.exportRun(runId);
        text = JSON.stringify(file, null, 2);
        readAt = version;
        const operations = file.operations?.length ?? 0;
        status.textContent = `${operations} operation${operations === 1 ? '' : 's'}, ${(text.length / 1024).toFixed(1)} KB`;
        replace(
          body,
          h(
            'pre',
            {
              class: 'payload raw-json',
              dataset: { testid: 'raw-json' },
              tabindex: '0',
              'aria-label': 'Raw history (JSON)',
            },
            text.length > SHOWN_CHARS ? `${text.slice(0, SHOWN_CHARS)}\n… (cut here: Download has it all)` : text,
          ),
        );
      } catch (error) {
        replace(body, errorBox(toWire(error), 'raw-error'));
      } finally {
        reading = undefined;
      }
    })();
    return reading;
  }

  const download = h(
    'button',
    {
      type: 'button',
      dataset: { testid: 'raw-download' },
      title: 'The file durable export prints, for durable replay',
      onclick: async () => {
        if (text === undefined || readAt !== lastRun?.updatedAt) await read();
        if (text !== undefined) save(text, fileName(runId));
      },
    },
    `Download ${fileName(runId)}`,
  );
  const fold = h(
    'details',
    {
      class: 'raw-fold',
      ontoggle: () => {
        if (fold.open && readAt !== lastRun?.updatedAt) void read();
      },
    },
    h(
      'summary',
      { dataset: { testid: 'raw-summary' } },
      h('h2', { id: 'raw-title' }, 'Raw history'),
      h('span', { class: 'muted count' }, 'the run and its operations as stored, as durable export prints them'),
    ),
    h('p', { class: 'raw-actions' }, download, ' ', status),
    body,
  );
  const el = h('section', { class: 'panel', 'aria-labelledby': 'raw-title', dataset: { testid: 'raw-history' } }, fold);
  return {
    el,
    update(run) {
      lastRun = run;
      if (fold.open && run.updatedAt !== readAt) void read();
    },
  };
}
