/**
 * The routes that read what a page leaves out: one operation with its payloads
 * (`GET /v1/runs/{runId}/operations/{operationId}`), and any payload of a run or an operation in
 * slices (`.../payloads/{field}?offset=`), so a payload up to the 6 MB a store keeps is read
 * whole although no single answer may pass Lambda's 6 MB response limit.
 */
import type { RunRecord } from '@durable-lambda/engine';
import type { OperationWire, PayloadSliceWire, RunPayloadField, RunWire } from '../wire';
import { runToWire } from './convert';
import type { RouteDeps } from './deps';
import { ApiError, invalidArgument } from './errors';
import { asOfNow, OPERATION_PAYLOAD_FIELDS, singleParam, withAncestors } from './history-page';
import { jsonResponse } from './http';
import { INLINE_PAYLOAD_BYTES, PAYLOAD_SLICE_CHARS, RECORD_BUDGET_BYTES, travelBytes } from './page-budget';
import type { Route } from './router';
import { logsByOperation, operationWires } from './run-history';
import { EMPTY_JOURNAL, journalOf } from './run-journal';

/** A run's payload fields, biggest kinds first. */
export const RUN_PAYLOAD_FIELDS: readonly RunPayloadField[] = ['input', 'result', 'error'];

const jsonBytes = (value: unknown): number => Buffer.byteLength(JSON.stringify(value) ?? '', 'utf8');

/**
 * `record` with payload fields left out (noted in `omitted` with their bytes): every one above
 * `threshold`, then the biggest left until the whole travels within `budget`.
 */
export function fitRecord<T extends RunWire | OperationWire>(
  record: T,
  fields: readonly string[],
  threshold: number,
  budget: number,
): T {
  const out: Record<string, unknown> = { ...record };
  const omitted: Record<string, number> = { ...record.omitted };
  out.omitted = omitted;
  const present = fields
    .filter((field) => out[field] !== undefined)
    .map((field) => ({ field, bytes: jsonBytes(out[field]) }))
    .sort((a, b) => b.bytes - a.bytes);
  for (const { field, bytes } of present) {
    if (bytes <= threshold && travelBytes(out) <= budget) break;
    delete out[field];
    omitted[field] = bytes;
  }
  if (Object.keys(omitted).length === 0) delete out.omitted;
  return out as T;
}

/** A run as a list shows it: payloads above 16 KB left out. */
export function runInList(run: RunRecord): RunWire {
  return fitRecord(runToWire(run), RUN_PAYLOAD_FIELDS, INLINE_PAYLOAD_BYTES, Number.POSITIVE_INFINITY);
}

/** A run as `GET /v1/runs/{runId}` shows it: payloads left out only as far as its budget needs. */
export function runAlone(run: RunRecord): RunWire {
  return fitRecord(runToWire(run), RUN_PAYLOAD_FIELDS, Number.POSITIVE_INFINITY, RECORD_BUDGET_BYTES);
}

async function requireRun(deps: RouteDeps, runId: string): Promise<RunRecord> {
  const run = await deps.engine.getRun(runId);
  if (!run) throw new ApiError(404, 'run_not_found', `run ${runId} not found`);
  return run;
}

/** The operation as its history shows it, every payload in (before anything is left out). */
export async function fullOperation(deps: RouteDeps, run: RunRecord, operationId: string): Promise<OperationWire> {
  const store = deps.engine.store;
  const now = deps.clock.now();
  const stored = await store.getOperation(run.runId, operationId);
  if (!stored) {
    throw new ApiError(404, 'operation_not_found', `operation ${operationId} of run ${run.runId} not found`);
  }
  const op = asOfNow(stored, now);
  const known = await withAncestors(store, run.runId, [op], now);
  const reader = journalOf(store);
  const journal = reader ? await reader.readRunJournal(run.runId) : EMPTY_JOURNAL;
  const logs = logsByOperation(journal, (id) => id === op.Id);
  return operationWires(run, [op], { known, journal, now, logsOf: logs.byOperation })[0] as OperationWire;
}

function payloadField<T extends string>(value: string, fields: readonly T[]): T {
  if (!(fields as readonly string[]).includes(value)) {
    throw invalidArgument('field', `must be one of ${fields.join(', ')}`);
  }
  return value as T;
}

/** A slice of `value`'s JSON text from the request's `offset`. */
function slice(query: Parameters<Route['handle']>[0]['request']['query'], field: string, value: unknown) {
  for (const name of Object.keys(query ?? {})) {
    if (name !== 'offset') throw invalidArgument(name, 'unknown query parameter (expected offset)');
  }
  const text = JSON.stringify(value) ?? '';
  const offsetText = singleParam(query, 'offset');
  const offset = offsetText === undefined ? 0 : /^\d{1,10}$/.test(offsetText) ? Number(offsetText) : Number.NaN;
  if (!(offset >= 0 && (offset < text.length || offset === 0))) {
    throw invalidArgument('offset', `must be a whole number from 0 to ${Math.max(0, text.length - 1)}`);
  }
  let end = Math.min(text.length, offset + PAYLOAD_SLICE_CHARS);
  // Never split a surrogate pair: the slice would not be valid UTF-8 on its own.
  const code = text.charCodeAt(end - 1);
  if (end < text.length && code >= 0xd800 && code <= 0xdbff) end -= 1;
  const answer: PayloadSliceWire = {
    field,
    offset,
    text: text.slice(offset, end),
    totalChars: text.length,
    ...(end < text.length ? { nextOffset: end } : {}),
  };
  return jsonResponse(200, answer);
}

/** The routes reading one operation, and payloads in slices. */
export function payloadRoutes(deps: RouteDeps): Route[] {
  return [
    {
      method: 'GET',
      pattern: '/v1/runs/{runId}/operations/{operationId}',
      handle: async ({ request, params }) => {
        for (const name of Object.keys(request.query ?? {})) {
          throw invalidArgument(name, 'unknown query parameter (this route takes none)');
        }
        const run = await requireRun(deps, params.runId as string);
        const op = await fullOperation(deps, run, params.operationId as string);
        return jsonResponse(
          200,
          fitRecord(op, OPERATION_PAYLOAD_FIELDS, Number.POSITIVE_INFINITY, RECORD_BUDGET_BYTES),
        );
      },
    },
    {
      method: 'GET',
      pattern: '/v1/runs/{runId}/operations/{operationId}/payloads/{field}',
      handle: async ({ request, params }) => {
        const field = payloadField(params.field as string, OPERATION_PAYLOAD_FIELDS);
        const run = await requireRun(deps, params.runId as string);
        const value = (await fullOperation(deps, run, params.operationId as string))[field];
        if (value === undefined) {
          throw new ApiError(404, 'payload_not_found', `field: operation ${params.operationId} has no ${field}`);
        }
        return slice(request.query, field, value);
      },
    },
    {
      method: 'GET',
      pattern: '/v1/runs/{runId}/payloads/{field}',
      handle: async ({ request, params }) => {
        const field = payloadField(params.field as string, RUN_PAYLOAD_FIELDS);
        const run = await requireRun(deps, params.runId as string);
        const value = runToWire(run)[field];
        if (value === undefined)
          throw new ApiError(404, 'payload_not_found', `field: run ${run.runId} has no ${field}`);
        return slice(request.query, field, value);
      },
    },
  ];
}
