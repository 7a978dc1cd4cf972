/**
 * The durable-lambda dashboard: hash routes (`#/` runs, `#/runs/<id>` one run, `#/functions`
 * the functions served), refreshed by
 * polling while live. Plain ES modules, no build step.
 */
import { absolute, tickTimes } from './format.js';
import { functionsView } from './functions.js';
import { listView } from './list.js';
import { runView } from './run.js';

const POLL_MS = 1500;
const root = document.getElementById('app');
const liveStatus = document.querySelector('[data-testid="live-status"]');
const pauseButton = document.querySelector('[data-testid="pause"]');
const refreshButton = document.querySelector('[data-testid="refresh-now"]');

let view;
let paused = remembered() === '1';
let lastUpdate;
let lastOk = true;

/** The paused setting of this tab (storage may be unavailable). */
function remembered(value) {
  try {
    if (value === undefined) return sessionStorage.getItem('durable.paused');
    sessionStorage.setItem('durable.paused', value);
  } catch {
    // Not remembered, then.
  }
  return value;
}

/** The view for the current hash; unknown hashes show the runs list. */
function route() {
  const hash = location.hash || '#/';
  const run = /^#\/runs\/([^/?]+)\/?$/.exec(hash);
  if (run) {
    let runId;
    try {
      runId = decodeURIComponent(run[1]);
    } catch {
      runId = run[1];
    }
    return runView(runId, refresh);
  }
  if (/^#\/functions\/?$/.test(hash)) return functionsView();
  const query = hash.indexOf('?');
  return listView(new URLSearchParams(query === -1 ? '' : hash.slice(query + 1)), refresh);
}

function mount() {
  view?.dispose?.();
  view = route();
  root.replaceChildren(view.el);
  // The top bar says which page is shown.
  for (const link of document.querySelectorAll('.topbar nav a')) {
    const here = link.getAttribute('href') === (location.hash.startsWith('#/functions') ? '#/functions' : '#/');
    if (here) link.setAttribute('aria-current', 'page');
    else link.removeAttribute('aria-current');
  }
  document.title = view.title ? `${view.title} · durable-lambda` : 'durable-lambda';
  root.focus({ preventScroll: true });
  window.scrollTo(0, 0);
  void refresh();
}

/**
 * Refreshes the current view now. One refresh at a time per view; a call during one makes it
 * run once more afterwards, so an action's effect is always fetched.
 */
function refresh() {
  const current = view;
  if (!current) return Promise.resolve();
  if (current.pending) {
    current.again = true;
    return current.pending;
  }
  current.pending = (async () => {
    try {
      do {
        current.again = false;
        let ok = false;
        try {
          ok = (await current.refresh()) !== false;
        } catch (error) {
          console.error('dashboard: refresh failed', error);
        }
        if (current === view) {
          lastOk = ok;
          if (ok) lastUpdate = new Date().toISOString();
          showStatus();
        }
      } while (current.again && current === view);
    } finally {
      current.pending = undefined;
    }
  })();
  return current.pending;
}

/** `Live · updated 14:05:09`, `Paused · …`, or the failure of the last refresh. */
function showStatus() {
  const when = lastUpdate ? `updated ${absolute(lastUpdate).slice(11)}` : 'loading…';
  liveStatus.textContent = `${paused ? 'Paused' : 'Live'} · ${lastOk ? when : `update failed (${when})`}`;
  liveStatus.classList.toggle('stale', !lastOk);
}

function setPaused(value) {
  paused = value;
  remembered(paused ? '1' : '0');
  pauseButton.setAttribute('aria-pressed', String(paused));
  pauseButton.textContent = paused ? 'Resume' : 'Pause';
  pauseButton.title = paused ? 'Resume live refresh' : 'Pause live refresh';
  showStatus();
}

async function poll() {
  try {
    tickTimes(root);
    if (!paused && !document.hidden) await refresh();
  } finally {
    setTimeout(poll, POLL_MS);
  }
}

pauseButton.addEventListener('click', () => {
  setPaused(!paused);
  if (!paused) void refresh();
});
refreshButton.addEventListener('click', () => {
  view?.invalidate?.();
  void refresh();
});
document.addEventListener('visibilitychange', () => {
  if (!document.hidden && !paused) void refresh();
});
window.addEventListener('hashchange', mount);

setPaused(paused);
mount();
setTimeout(poll, POLL_MS);
