import type {
  ErrorWire,
  LogWire,
  OperationListWire,
  OperationWire,
  RunActionWire,
  RunListWire,
  RunMeterWire,
  RunWire,
  WaitingForWire,
  WakeAnswerWire,
} from '@durable-lambda/api';

/** Renders rows as a left-aligned text table with a header row. */
export function table(header: readonly string[], rows: readonly (readonly string[])[]): string {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((row) => (row[i] ?? '').length)));
  const line = (cells: readonly string[]) =>
    cells
      .map((cell, i) => (i === cells.length - 1 ? cell : cell.padEnd(widths[i] ?? 0)))
      .join('  ')
      .trimEnd();
  return [line(header), ...rows.map(line)].join('\n');
}

/** A JSON value on one line, cut to `max` characters. */
export function compactJson(value: unknown, max = 80): string {
  const text = typeof value === 'string' ? JSON.stringify(value) : (JSON.stringify(value) ?? 'undefined');
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}

function describeError(error: ErrorWire): string {
  return `${error.code}: ${error.message}${error.type ? ` (${error.type})` : ''}`;
}

/** `1,234.5` (at most `digits` decimals). */
function amount(value: number, digits = 2): string {
  return value.toLocaleString('en-US', { maximumFractionDigits: digits });
}

/**
 * What a run consumed, on one line: `2 invocations, 913 ms billed (0.913 GB-s), 20 WRU, 2 RRU,
 * 3 SQS requests`. Figures a host does not measure (DynamoDB, Scheduler and SQS, locally) are
 * said to be not measured rather than shown as zero.
 */
export function describeMeter(meter: RunMeterWire): string {
  const parts = [
    `${amount(meter.invocations)} invocation${meter.invocations === 1 ? '' : 's'}`,
    `${amount(meter.billedMs)} ms billed${meter.mbMs === undefined ? '' : ` (${amount(meter.mbMs / 1024 / 1000, 3)} GB-s)`}`,
  ];
  if (meter.wru === undefined) return `${parts.join(', ')}; DynamoDB, Scheduler and SQS not measured here`;
  parts.push(`${amount(meter.wru)} WRU`, `${amount(meter.rru ?? 0)} RRU`);
  if (meter.sqsRequests) parts.push(`${amount(meter.sqsRequests)} SQS requests`);
  if (meter.schedulerInvocations) parts.push(`${amount(meter.schedulerInvocations)} Scheduler invocations`);
  if (meter.schedulerRequests) parts.push(`${amount(meter.schedulerRequests)} Scheduler API calls`);
  if (meter.lambdaInvokes) parts.push(`${amount(meter.lambdaInvokes)} Lambda invokes`);
  return parts.join(', ');
}

/**
 * When a run next has something to do. A wake time already passed means the run is due (an
 * invocation is taking it up, or the reconciler will): printed as such, not as a time in the past.
 */
function nextWake(at: string | undefined, now: number): string | undefined {
  if (at === undefined) return undefined;
  return Date.parse(at) <= now ? `now (due since ${at})` : at;
}

/** A run as `key  value` lines; `now` (epoch ms) tells a wake-up still ahead from one that is due. */
export function formatRun(run: RunWire, now: number = Date.now()): string {
  const rows: Array<[string, string | undefined]> = [
    ['run', run.runId],
    ['function', run.function],
    ['status', run.status],
    ['run key', run.runKey],
    ['tags', run.tags ? formatTags(run.tags) : undefined],
    ['concurrency key', run.concurrencyKey],
    ['queued since', run.status === 'QUEUED' ? run.queuedAt : undefined],
    ['queue position', run.queuePosition === undefined ? undefined : `${run.queuePosition} (1: next to start)`],
    ['waiting for', run.status === 'QUEUED' ? queuedFor(run) : undefined],
    ['created', run.createdAt],
    ['updated', run.updatedAt],
    ['ended', run.endedAt],
    ['next wake', nextWake(run.nextWakeAt, now)],
    ['deadline', run.deadlineAt],
    ['invocations', `${run.invocations} (lost: ${run.lostInvocations})`],
    ['consumed', run.meter ? describeMeter(run.meter) : undefined],
    ['parent', run.parent ? `${run.parent.runId} (operation ${run.parent.operationId})` : undefined],
    ['input', 'input' in run ? compactJson(run.input, 200) : undefined],
    ['result', 'result' in run ? compactJson(run.result, 200) : undefined],
    [
      'published',
      run.published
        ? `${compactJson(run.published.state, 200)} (at ${run.published.at}, #${run.published.seq})`
        : undefined,
    ],
    ['error', run.error ? describeError(run.error) : undefined],
  ];
  const shown = rows.filter((row): row is [string, string] => row[1] !== undefined);
  const width = Math.max(...shown.map(([key]) => key.length));
  return shown.map(([key, value]) => `${key.padEnd(width)}  ${value}`).join('\n');
}

/** A run's tags as `key=value` pairs, by key, separated by spaces. */
export function formatTags(tags: Record<string, string>): string {
  return Object.keys(tags)
    .sort()
    .map((key) => `${key}=${tags[key]}`)
    .join(' ');
}

/** One thing a run waits for, in a few words. */
export function describeWaitingFor(w: WaitingForWire): string {
  const name = w.name ? ` ${JSON.stringify(w.name)}` : '';
  switch (w.kind) {
    case 'invocation':
      return 'an invocation under way';
    case 'due':
      return 'its next invocation (due now)';
    case 'wait':
      return `wait${name} until ${w.at ?? '?'}`;
    case 'retry':
      return `retry of${name} at ${w.at ?? '?'}`;
    case 'callback':
      return `callback${name}${w.at ? ` (times out ${w.at})` : ''}`;
    case 'signal':
      return `signal${name}${w.at ? ` (times out ${w.at})` : ''}`;
    case 'child':
      return `child run ${w.childRunId ?? '?'}${w.function ? ` (${w.function})` : ''}`;
  }
}

function waitingColumn(run: RunWire): string {
  const list = run.waitingFor ?? [];
  if (run.status !== 'RUNNING' || list.length === 0) return '-';
  const first = describeWaitingFor(list[0] as WaitingForWire);
  return list.length > 1 ? `${first} (+${list.length - 1} more)` : first;
}

/** Characters of a run's published state the list shows (one line; `durable show` has it whole). */
const PUBLISHED_COLUMN = 40;

/** A page of runs as a table. */
export function formatRunList(list: RunListWire): string {
  if (list.runs.length === 0) return 'No runs.';
  // The key and queue columns only when a run of the page has a key (flow control per key).
  const keyed = list.runs.some((run) => run.concurrencyKey !== undefined || run.status === 'QUEUED');
  // The tags column only when a run of the page has tags.
  const tagged = list.runs.some((run) => run.tags !== undefined);
  // The published column only when a run of the page published a state (`ctx.publish`).
  const published = list.runs.some((run) => run.published !== undefined);
  const body = table(
    [
      'RUN ID',
      'FUNCTION',
      'STATUS',
      ...(keyed ? ['KEY', 'POSITION'] : []),
      'CREATED',
      'ENDED',
      ...(tagged ? ['TAGS'] : []),
      ...(published ? ['PUBLISHED'] : []),
      'WAITING FOR',
    ],
    list.runs.map((run) => [
      run.runId,
      run.function,
      run.status,
      ...(keyed ? [run.concurrencyKey ?? '-', run.queuePosition === undefined ? '-' : String(run.queuePosition)] : []),
      run.createdAt,
      run.endedAt ?? '-',
      ...(tagged ? [run.tags ? formatTags(run.tags) : '-'] : []),
      ...(published ? [run.published ? compactJson(run.published.state, PUBLISHED_COLUMN) : '-'] : []),
      run.status === 'QUEUED' ? queuedFor(run) : waitingColumn(run),
    ]),
  );
  return list.nextCursor ? `${body}\n\nMore: --cursor ${list.nextCursor}` : body;
}

function detail(op: OperationWire): string {
  const parts: string[] = [];
  if (op.callbackId) parts.push(`callbackId=${op.callbackId}`);
  if (op.waitUntil) parts.push(`until=${op.waitUntil}`);
  if (op.nextAttemptAt) parts.push(`next attempt=${op.nextAttemptAt}`);
  if (op.invokedFunction) parts.push(`function=${op.invokedFunction}`);
  if (op.childRunId) parts.push(`child=${op.childRunId}`);
  if (op.error) parts.push(`error=${describeError(op.error)}`);
  if ('result' in op) parts.push(`result=${compactJson(op.result, 60)}`);
  return parts.join(' ');
}

/** `850 ms`, `3.2 s`, `4 min 3 s`, `2 h 5 min`. */
export function formatDuration(ms: number): string {
  if (ms < 1000) return `${Math.round(ms)} ms`;
  const s = ms / 1000;
  if (s < 60) return `${s < 10 ? s.toFixed(1) : Math.round(s)} s`;
  const m = Math.floor(s / 60);
  if (m < 60) return `${m} min${Math.round(s % 60) ? ` ${Math.round(s % 60)} s` : ''}`;
  const h = Math.floor(m / 60);
  return `${h} h${m % 60 ? ` ${m % 60} min` : ''}`;
}

function statusOf(op: OperationWire): string {
  if (op.abandoned) return `${op.status} (abandoned)`;
  if (op.endedEarly) return `${op.status} (woken early)`;
  return op.status;
}

/** A run's operations as a table. */
export function formatOperations(operations: readonly OperationWire[]): string {
  if (operations.length === 0) return 'No operations.';
  return table(
    ['ID', 'TYPE', 'NAME', 'STATUS', 'ATTEMPT', 'STARTED', 'ENDED', 'TOOK', 'DETAIL'],
    operations.map((op) => [
      op.id,
      op.subType && op.subType.toUpperCase() !== op.type ? `${op.type}/${op.subType}` : op.type,
      op.name ?? '-',
      statusOf(op),
      op.attempt === undefined ? '-' : String(op.attempt),
      op.startedAt,
      op.endedAt ?? '-',
      op.durationMs === undefined ? '-' : formatDuration(op.durationMs),
      detail(op),
    ]),
  );
}

function label(op: OperationWire): string {
  return `${op.id} ${op.name ? JSON.stringify(op.name) : op.type}`;
}

function logLine(log: LogWire): string {
  const data = log.data === undefined ? '' : ` ${compactJson(log.data, 200)}`;
  const attempt = log.attempt === undefined ? '' : ` #${log.attempt}`;
  return `  ${log.at}${attempt} ${log.level.toUpperCase().padEnd(5)} ${log.message}${data}`;
}

/**
 * A run's history: the operations' table, then its invocations, each error with its stack
 * trace, and the log lines of the run and of each step (by attempt), when the API has them.
 */
export function formatHistory(history: OperationListWire): string {
  const parts = [formatOperations(history.operations)];
  if (history.invocations && history.invocations.length > 0) {
    const rows = history.invocations.map((inv) => {
      const took = inv.endedAt ? ` (${formatDuration(Date.parse(inv.endedAt) - Date.parse(inv.startedAt))})` : '';
      return `  #${inv.number} ${inv.startedAt} → ${inv.endedAt ?? (inv.lost ? 'lost' : 'running')}${took}`;
    });
    const retried = (history.retriedAt ?? []).map((at) => `  retried at ${at}`);
    parts.push(['Invocations:', ...rows, ...retried].join('\n'));
  }
  const errors = history.operations.filter((op) => op.error);
  if (errors.length > 0) {
    const lines = ['Errors:'];
    for (const op of errors) {
      const error = op.error as ErrorWire;
      lines.push(`  ${label(op)}: ${describeError(error)}`);
      for (const frame of error.stackTrace ?? []) lines.push(`      ${frame.trim()}`);
    }
    parts.push(lines.join('\n'));
  }
  const logged = history.operations.filter((op) => op.logs && op.logs.length > 0);
  if ((history.logs && history.logs.length > 0) || logged.length > 0) {
    const lines = ['Logs:'];
    if (history.logs && history.logs.length > 0) {
      lines.push('  (run)');
      for (const log of history.logs) lines.push(`  ${logLine(log)}`);
    }
    for (const op of logged) {
      lines.push(`  ${label(op)}`);
      for (const log of op.logs ?? []) lines.push(`  ${logLine(log)}`);
    }
    if (history.logsDropped) lines.push(`  (${history.logsDropped} older lines dropped by the size cap)`);
    parts.push(lines.join('\n'));
  }
  return parts.join('\n\n');
}

/**
 * A run's log lines alone, oldest first, run and steps merged: each names the operation that
 * wrote it (and the attempt), as `durable logs` prints them.
 */
export function formatLogs(history: OperationListWire): string {
  const labels = new Map(history.operations.map((op) => [op.id, label(op)]));
  const lines = [
    ...(history.logs ?? []).map((log) => ({ log, of: '(run)' })),
    ...history.operations.flatMap((op) => (op.logs ?? []).map((log) => ({ log, of: labels.get(op.id) ?? op.id }))),
  ];
  if (lines.length === 0) return 'No log lines.';
  // Stable: lines of one millisecond keep the order each writer kept them in.
  lines.sort((a, b) => Date.parse(a.log.at) - Date.parse(b.log.at));
  const out = lines.map(({ log, of }) => `${logLine(log).trimStart()}  ${of}`);
  if (history.logsDropped) out.unshift(`(${history.logsDropped} older lines dropped by the size cap)`);
  return out.join('\n');
}

/** What a wake-now did, for humans. */
export function formatWake(answer: WakeAnswerWire): string {
  const what = answer.woken.map((w) =>
    w.kind === 'wait'
      ? `ended wait ${w.name ? JSON.stringify(w.name) : w.operationId} early (it was due ${w.dueAt})`
      : `made the next attempt of ${w.name ? JSON.stringify(w.name) : w.operationId} due now (it was due ${w.dueAt})`,
  );
  return [`Run ${answer.run.runId}: woken.`, ...what.map((line) => `  ${line}`)].join('\n');
}

/** The operator actions of a run's history (who, when, what), as a table. */
export function formatActions(actions: readonly RunActionWire[]): string {
  if (actions.length === 0) return 'Operator actions: none';
  const rows = actions.map((a) => [
    a.at,
    a.action,
    a.actor,
    a.operationId ?? '',
    `${a.fromStatus}${a.viaRunId ? ` (with ${a.viaRunId})` : ''}`,
  ]);
  return `Operator actions:\n${table(['at', 'action', 'actor', 'operation', 'run was'], rows)}`;
}

/** What a QUEUED run waits for: its throttled turn, its debounce window, the runs it is buffered behind, or a slot. */
function queuedFor(run: RunWire): string {
  if (run.queuedFor === 'throttle') return `its throttled turn at ${run.queuedUntil ?? '?'}`;
  if (run.queuedFor === 'debounce') return `a quiet debounce window until ${run.queuedUntil ?? '?'}`;
  if (run.queuedFor === 'schedule') return `its schedule's run to end (${(run.queuedBehind ?? []).join(', ')})`;
  return `a slot of its key (queued ${run.queuedAt ?? '?'})`;
}
