/**
 * The exported-run file (`durable export`, `runner.exportRun()`): one run's record and its
 * operations in the stored shape, versioned so a file written today is read by later releases.
 *
 * ```json
 * { "format": "durable-lambda/recorded-run", "version": 1, "exportedAt": "2026-…Z", "source": "api",
 *   "run": { "runId": "…", "functionName": "checkout", "status": "RUNNING", "input": "{…}", … },
 *   "operations": [{ "Id": "…", "Type": "EXECUTION", "Status": "STARTED", "StartTimestamp": 0, … }, …] }
 * ```
 *
 * `run.input`, `run.result` and every `Result` are the serialized strings the store holds (not
 * parsed), so a replay hands the handler exactly what the store would.
 */
import type { RunRecord, RunStatus } from '@durable-lambda/engine';
import type { ErrorObject, Operation } from '@durable-lambda/protocol';
import { LocalError } from '../local-error';

/** The `format` field of every exported-run file. */
export const RECORDED_RUN_FORMAT = 'durable-lambda/recorded-run';

/** The version this release writes (and the newest it reads). */
export const RECORDED_RUN_VERSION = 1;

/** Where an exported run was read from. */
export type RecordedRunSource = 'api' | 'store' | 'runner';

/** The run record fields a replay needs (times in epoch ms). */
export interface RecordedRunRecord {
  runId: string;
  functionName: string;
  status: RunStatus;
  /** The serialized input, as stored. */
  input?: string;
  /** The serialized result, once SUCCEEDED. */
  result?: string;
  /** The error, once the run failed. */
  error?: ErrorObject;
  createdAt: number;
  updatedAt: number;
  endedAt?: number;
  invocations: number;
  lostInvocations: number;
  /** Set on a run started by another run's `invoke`. */
  parent?: { runId: string; operationId: string };
}

/** An exported run, format version 1. */
export interface RecordedRun {
  format: typeof RECORDED_RUN_FORMAT;
  version: 1;
  /** When it was exported (ISO 8601). */
  exportedAt: string;
  source: RecordedRunSource;
  run: RecordedRunRecord;
  /** Every operation of the run as stored (the EXECUTION one included), in creation order. */
  operations: Operation[];
}

/** An exported-run file that cannot be read: `field` names what is wrong (`operations[3].Type`). */
export class RecordedRunError extends LocalError<'invalid_recorded_run' | 'unsupported_recorded_run_version'> {
  constructor(
    /** `invalid_recorded_run`, or `unsupported_recorded_run_version` for a file of a newer release. */
    readonly code: 'invalid_recorded_run' | 'unsupported_recorded_run_version',
    /** The path of the offending field. */
    readonly field: string,
    message: string,
  ) {
    super(`${field}: ${message}`);
    this.name = 'RecordedRunError';
  }
}

const RUN_STATUSES: readonly RunStatus[] = ['RUNNING', 'SUCCEEDED', 'FAILED', 'TIMED_OUT', 'STOPPED', 'CANCELLED'];
const OP_TYPES = ['EXECUTION', 'STEP', 'WAIT', 'CALLBACK', 'CHAINED_INVOKE', 'CONTEXT'];
const OP_STATUSES = ['STARTED', 'PENDING', 'READY', 'SUCCEEDED', 'FAILED', 'CANCELLED', 'TIMED_OUT', 'STOPPED'];
const DETAILS = [
  'ExecutionDetails',
  'StepDetails',
  'WaitDetails',
  'CallbackDetails',
  'ChainedInvokeDetails',
  'ContextDetails',
] as const;

/** Builds the file of a run as a store holds it. */
export function recordedRunOf(
  run: RunRecord,
  operations: readonly Operation[],
  source: RecordedRunSource,
): RecordedRun {
  return {
    format: RECORDED_RUN_FORMAT,
    version: RECORDED_RUN_VERSION,
    exportedAt: new Date().toISOString(),
    source,
    run: {
      runId: run.runId,
      functionName: run.functionName,
      status: run.status,
      ...(run.input === undefined ? {} : { input: run.input }),
      ...(run.result === undefined ? {} : { result: run.result }),
      ...(run.error === undefined ? {} : { error: run.error }),
      createdAt: run.createdAt,
      updatedAt: run.updatedAt,
      ...(run.endedAt === undefined ? {} : { endedAt: run.endedAt }),
      invocations: run.invocations,
      lostInvocations: run.lostInvocations,
      ...(run.parent === undefined ? {} : { parent: run.parent }),
    },
    operations: operations.map((op) => structuredClone(op)),
  };
}

/** The operations and run record of a store (the engine's `Store` port: SQLite, DynamoDB, memory). */
export interface RecordedRunStore {
  getRun(runId: string): Promise<RunRecord | undefined>;
  loadOperations(runId: string): Promise<Operation[]>;
}

/**
 * Exports one run straight from a store. The run is read before its operations: a run that moves
 * on meanwhile only shows operations newer than its status says, which a replay treats as work
 * beyond where the run stands, never as a divergence.
 */
export async function recordRunFromStore(store: RecordedRunStore, runId: string): Promise<RecordedRun> {
  const run = await store.getRun(runId);
  if (!run) throw new RecordedRunError('invalid_recorded_run', 'runId', `no run ${JSON.stringify(runId)} in the store`);
  return recordedRunOf(run, await store.loadOperations(runId), 'store');
}

/**
 * Reads an exported-run file (its JSON text or the parsed value) and checks every field a replay
 * relies on; throws a {@link RecordedRunError} naming the first field that is wrong.
 */
export function parseRecordedRun(input: unknown): RecordedRun {
  let value = input;
  if (typeof input === 'string') {
    try {
      value = JSON.parse(input);
    } catch (error) {
      throw new RecordedRunError('invalid_recorded_run', '(file)', `not JSON (${(error as Error).message})`);
    }
  }
  const file = object(value, '(file)');
  if (file.format !== RECORDED_RUN_FORMAT) {
    fail('format', `must be ${JSON.stringify(RECORDED_RUN_FORMAT)} (not an exported run?)`);
  }
  if (typeof file.version !== 'number' || !Number.isInteger(file.version) || file.version < 1) {
    fail('version', 'must be a whole number from 1');
  }
  if (file.version > RECORDED_RUN_VERSION) {
    throw new RecordedRunError(
      'unsupported_recorded_run_version',
      'version',
      `version ${file.version} is newer than this release reads (${RECORDED_RUN_VERSION}): upgrade @durable-lambda/local`,
    );
  }
  string(file.exportedAt, 'exportedAt');
  if (!['api', 'store', 'runner'].includes(file.source as string)) fail('source', 'must be api, store or runner');
  const run = object(file.run, 'run');
  string(run.runId, 'run.runId', true);
  string(run.functionName, 'run.functionName', true);
  if (!RUN_STATUSES.includes(run.status as RunStatus)) fail('run.status', `must be one of ${RUN_STATUSES.join(', ')}`);
  optional(run.input, 'run.input', string);
  optional(run.result, 'run.result', string);
  optional(run.error, 'run.error', object);
  for (const name of ['createdAt', 'updatedAt', 'invocations', 'lostInvocations'] as const) {
    count(run[name], `run.${name}`);
  }
  optional(run.endedAt, 'run.endedAt', count);
  if (!Array.isArray(file.operations)) fail('operations', 'must be an array');
  const ids = new Set<string>();
  let executions = 0;
  (file.operations as unknown[]).forEach((item, i) => {
    const at = `operations[${i}]`;
    const op = object(item, at);
    string(op.Id, `${at}.Id`, true);
    if (ids.has(op.Id as string)) fail(`${at}.Id`, `${JSON.stringify(op.Id)} appears twice`);
    ids.add(op.Id as string);
    if (!OP_TYPES.includes(op.Type as string)) fail(`${at}.Type`, `must be one of ${OP_TYPES.join(', ')}`);
    if (!OP_STATUSES.includes(op.Status as string)) fail(`${at}.Status`, `must be one of ${OP_STATUSES.join(', ')}`);
    count(op.StartTimestamp, `${at}.StartTimestamp`);
    optional(op.Name, `${at}.Name`, string);
    optional(op.SubType, `${at}.SubType`, string);
    optional(op.ParentId, `${at}.ParentId`, string);
    for (const details of DETAILS) optional(op[details], `${at}.${details}`, object);
    if (op.Type === 'EXECUTION') executions++;
  });
  if (executions > 1) fail('operations', 'holds more than one EXECUTION operation');
  (file.operations as Operation[]).forEach((op, i) => {
    if (op.ParentId !== undefined && !ids.has(op.ParentId)) {
      fail(`operations[${i}].ParentId`, `names ${JSON.stringify(op.ParentId)}, which is not in the file`);
    }
  });
  return file as unknown as RecordedRun;
}

function fail(field: string, message: string): never {
  throw new RecordedRunError('invalid_recorded_run', field, message);
}

function object(value: unknown, field: string): Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) fail(field, 'must be an object');
  return value as Record<string, unknown>;
}

function string(value: unknown, field: string, nonEmpty = false): void {
  if (typeof value !== 'string' || (nonEmpty && value.length === 0)) {
    fail(field, nonEmpty ? 'must be a non-empty string' : 'must be a string');
  }
}

function count(value: unknown, field: string): void {
  if (typeof value !== 'number' || !Number.isFinite(value) || value < 0) fail(field, 'must be a number >= 0');
}

function optional(value: unknown, field: string, check: (value: unknown, field: string) => unknown): void {
  if (value !== undefined) check(value, field);
}
