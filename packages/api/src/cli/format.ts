import type { ErrorWire, OperationWire, RunListWire, RunWire } from '../wire';

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

/** A run as `key  value` lines. */
export function formatRun(run: RunWire): string {
  const rows: Array<[string, string | undefined]> = [
    ['run', run.runId],
    ['function', run.function],
    ['status', run.status],
    ['run key', run.runKey],
    ['created', run.createdAt],
    ['updated', run.updatedAt],
    ['ended', run.endedAt],
    ['next wake', run.nextWakeAt],
    ['invocations', `${run.invocations} (lost: ${run.lostInvocations})`],
    ['parent', run.parent ? `${run.parent.runId} (operation ${run.parent.operationId})` : undefined],
    ['input', 'input' in run ? compactJson(run.input, 200) : undefined],
    ['result', 'result' in run ? compactJson(run.result, 200) : undefined],
    ['error', run.error ? describeError(run.error) : undefined],
  ];
  const shown = rows.filter((row): row is [string, string] => row[1] !== undefined);
  const width = Math.max(...shown.map(([key]) => key.length));
  return shown.map(([key, value]) => `${key.padEnd(width)}  ${value}`).join('\n');
}

/** A page of runs as a table. */
export function formatRunList(list: RunListWire): string {
  if (list.runs.length === 0) return 'No runs.';
  const body = table(
    ['RUN ID', 'FUNCTION', 'STATUS', 'CREATED', 'ENDED'],
    list.runs.map((run) => [run.runId, run.function, run.status, run.createdAt, run.endedAt ?? '-']),
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

/** A run's operations as a table. */
export function formatOperations(operations: readonly OperationWire[]): string {
  if (operations.length === 0) return 'No operations.';
  return table(
    ['ID', 'TYPE', 'NAME', 'STATUS', 'ATTEMPT', 'STARTED', 'ENDED', 'DETAIL'],
    operations.map((op) => [
      op.id,
      op.subType ? `${op.type}/${op.subType}` : op.type,
      op.name ?? '-',
      op.status,
      op.attempt === undefined ? '-' : String(op.attempt),
      op.startedAt,
      op.endedAt ?? '-',
      detail(op),
    ]),
  );
}
