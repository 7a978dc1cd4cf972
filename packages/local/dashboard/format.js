/** Formatting of times, durations, statuses and payloads. */
import { h } from './dom.js';

const pad = (n, width = 2) => String(n).padStart(width, '0');

/** `2026-01-31 14:05:09` in local time. */
export function absolute(iso) {
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return String(iso);
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())} ${pad(d.getHours())}:${pad(d.getMinutes())}:${pad(d.getSeconds())}`;
}

/** `850 ms`, `3.2 s`, `4 min 3 s`, `2 h 5 min`, `3 d 4 h`. */
export function duration(ms) {
  if (!Number.isFinite(ms)) return '';
  const abs = Math.abs(ms);
  if (abs < 1000) return `${Math.round(abs)} ms`;
  const s = abs / 1000;
  if (s < 10) return `${s.toFixed(1)} s`;
  if (s < 60) return `${Math.round(s)} s`;
  const m = Math.floor(s / 60);
  if (m < 60) return `${m} min${Math.round(s % 60) ? ` ${Math.round(s % 60)} s` : ''}`;
  const hours = Math.floor(m / 60);
  if (hours < 24) return `${hours} h${m % 60 ? ` ${m % 60} min` : ''}`;
  const days = Math.floor(hours / 24);
  return `${days} d${hours % 24 ? ` ${hours % 24} h` : ''}`;
}

/** `just now`, `12 s ago`, `in 3 min`. */
export function relative(iso, now = Date.now()) {
  const diff = new Date(iso).getTime() - now;
  if (!Number.isFinite(diff)) return '';
  if (Math.abs(diff) < 1000) return diff > 0 ? 'in a moment' : 'just now';
  const text = coarse(Math.abs(diff));
  return diff > 0 ? `in ${text}` : `${text} ago`;
}

function coarse(ms) {
  const s = Math.floor(ms / 1000);
  if (s < 60) return `${s} s`;
  if (s < 3600) return `${Math.floor(s / 60)} min`;
  if (s < 86400) return `${Math.floor(s / 3600)} h`;
  return `${Math.floor(s / 86400)} d`;
}

/**
 * A `<time>` showing a relative time (`mode: 'rel'`) or the absolute time followed by the
 * relative one (`'both'`); the absolute time is always in its tooltip. {@link tickTimes} keeps
 * the relative part current.
 */
export function timeEl(iso, mode = 'rel') {
  const el = h('time', { datetime: iso, title: absolute(iso), dataset: { rel: mode } });
  el.textContent = timeText(iso, mode);
  return el;
}

function timeText(iso, mode) {
  return mode === 'both' ? `${absolute(iso)} (${relative(iso)})` : relative(iso);
}

/** The time gone by since `iso`, kept current by {@link tickTimes}: `running for 3.2 s`. */
export function sinceEl(iso, prefix = '') {
  return h('span', { dataset: { since: iso, prefix } }, `${prefix}${duration(elapsed(iso))}`);
}

/** Updates every relative time and running duration under `root`. */
export function tickTimes(root) {
  for (const el of root.querySelectorAll('time[data-rel]')) {
    const text = timeText(el.getAttribute('datetime'), el.dataset.rel);
    if (el.textContent !== text) el.textContent = text;
  }
  for (const el of root.querySelectorAll('[data-since]')) {
    el.textContent = `${el.dataset.prefix ?? ''}${duration(elapsed(el.dataset.since))}`;
  }
}

/** The time between two ISO times (the second defaults to now). */
export function elapsed(fromIso, toIso) {
  return (toIso ? new Date(toIso).getTime() : Date.now()) - new Date(fromIso).getTime();
}

/** A status badge: `<span class="badge badge-succeeded">SUCCEEDED</span>`. */
export function badge(status, testid = 'status') {
  return h('span', { class: `badge badge-${String(status).toLowerCase()}`, dataset: { testid } }, status);
}

/** A payload as indented JSON (strings that are not JSON are shown as they are). */
export function pretty(value) {
  if (value === undefined) return '';
  if (typeof value === 'string') return value;
  return JSON.stringify(value, null, 2);
}

/** A `<pre>` with a payload. */
export function payload(value, testid) {
  return h('pre', { class: 'payload', dataset: testid ? { testid } : undefined }, pretty(value));
}

/**
 * An API or payload error: `code` (and type) then the message, and its stack trace (when the
 * SDK recorded one) under a disclosure, open with `openStack`.
 */
export function errorBox(error, testid = 'error', { openStack = false } = {}) {
  const frames = Array.isArray(error.stackTrace) ? error.stackTrace : [];
  return h(
    'div',
    { class: 'error-box', dataset: { testid } },
    h('code', { class: 'error-code' }, error.code ?? 'error'),
    error.type ? h('span', { class: 'error-type' }, ` ${error.type}`) : null,
    h('span', { class: 'error-message' }, ` ${error.message ?? ''}`),
    frames.length > 0 ? stackTrace(frames, openStack) : null,
  );
}

/** A stack trace, one frame a line (its first line, the message, left out when it repeats it). */
function stackTrace(frames, open) {
  const shown = frames.length > 1 && !/^\s*at /.test(frames[0]) ? frames.slice(1) : frames;
  return h(
    'details',
    { class: 'stack', open, dataset: { testid: 'stack-trace' } },
    h('summary', null, `Stack trace (${shown.length} frame${shown.length === 1 ? '' : 's'})`),
    h('pre', { class: 'stack-frames' }, shown.map((frame) => frame.trim()).join('\n')),
  );
}

/** `14:05:09.123` of an ISO time, in local time. */
export function clockMs(iso) {
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return String(iso);
  return `${pad(d.getHours())}:${pad(d.getMinutes())}:${pad(d.getSeconds())}.${pad(d.getMilliseconds(), 3)}`;
}

/** Log lines as a list: time, level, message and attached data. */
export function logList(logs, testid = 'logs') {
  return h(
    'ol',
    { class: 'logs', dataset: { testid } },
    logs.map((log) =>
      h(
        'li',
        {
          class: `log log-${String(log.level).toLowerCase()}`,
          dataset: { testid: 'log-line', level: log.level, attempt: log.attempt },
        },
        h('span', { class: 'log-time', title: absolute(log.at) }, clockMs(log.at)),
        h('span', { class: 'log-level' }, String(log.level).toUpperCase()),
        h('span', { class: 'log-message' }, log.message),
        log.data === undefined ? null : h('code', { class: 'log-data' }, compact(log.data)),
      ),
    ),
  );
}

/** A JSON value on one line, cut to `max` characters. */
export function compact(value, max = 300) {
  let text;
  try {
    text = typeof value === 'string' ? value : JSON.stringify(value);
  } catch {
    text = String(value);
  }
  text = text ?? String(value);
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}

/** An action's outcome under the element that started it. */
export function renderNote(note, testid) {
  if (!note) return null;
  if (note.error) return h('div', { class: 'note', dataset: { testid } }, errorBox(note.error, `${testid}-error`));
  return h('p', { class: `note ${note.pending ? 'muted' : 'ok'}`, role: 'status', dataset: { testid } }, note.text);
}
