import type { Operation } from '@durable-lambda/protocol';
import type { ChunkRef } from './chunks';
import { decodeOrder, encodeOrder } from './history-attributes';

/**
 * The compact text of an operation kept inline in the run item (`inflight.<id>`, layout 2). Every
 * write of the run item costs one write unit per kilobyte of the whole item, so the operations it
 * carries are stored as short JSON: the protocol's field names (`StartTimestamp`, `StepDetails`…)
 * become one or two letters and the common `Type`/`Status` values a letter, which takes a step's
 * record from ~180 bytes (a DynamoDB map with full names) to ~80. Unknown fields pass through
 * under their own names, so an operation with a field this table does not know round-trips
 * unchanged: protocol field names are PascalCase and no code below is.
 *
 * Three more savings, each read back exactly: the `Id` is left out (the entry's key in the map is
 * its id), and the `EndTimestamp` and a wait's `ScheduledEndTimestamp` are stored as milliseconds
 * after the `StartTimestamp` (`d`, `sd`) rather than as thirteen-digit times. Texts written before
 * (with `i`, `e`, `se`) read the same.
 *
 * An operation's `HistoryOrder` (where its history events stand in the run's order) is folded
 * after its status letter: `"s":"Sg."` is SUCCEEDED with events at places 4 and 5.
 *
 * Two things ride along that are not the operation's: the chunk references of fields moved out of
 * it (`$r`, as an operation item's `refs`), and `$i`, which says the EXECUTION operation's
 * `InputPayload` is the run's own `input` (stored once, in the run item), left out of the text.
 */

const KEYS: Record<string, string> = {
  Id: 'i',
  ParentId: 'p',
  Name: 'n',
  Type: 't',
  SubType: 'u',
  Status: 's',
  StartTimestamp: 'b',
  EndTimestamp: 'e',
  ExecutionDetails: 'X',
  ContextDetails: 'C',
  StepDetails: 'S',
  WaitDetails: 'W',
  CallbackDetails: 'K',
  ChainedInvokeDetails: 'V',
  InputPayload: 'ip',
  Result: 'r',
  Error: 'x',
  ReplayChildren: 'rc',
  Attempt: 'a',
  NextAttemptTimestamp: 'na',
  FailedAttempts: 'fa',
  Timestamp: 'ts',
  ScheduledEndTimestamp: 'se',
  CallbackId: 'ci',
  TimeoutTimestamp: 'to',
  HeartbeatTimeoutSeconds: 'hs',
  HeartbeatDeadline: 'hd',
  FunctionName: 'fn',
  ChildRunId: 'cr',
  Input: 'in',
  ErrorType: 'et',
  ErrorMessage: 'em',
  ErrorCode: 'ec',
  ErrorData: 'ed',
  StackTrace: 'st',
  HistoryOrder: 'q',
};
const NAMES: Record<string, string> = Object.fromEntries(Object.entries(KEYS).map(([name, code]) => [code, name]));

const TYPES: Record<string, string> = {
  EXECUTION: 'X',
  STEP: 'S',
  WAIT: 'W',
  CALLBACK: 'K',
  CHAINED_INVOKE: 'V',
  CONTEXT: 'C',
};
const STATUSES: Record<string, string> = {
  STARTED: 'T',
  PENDING: 'P',
  READY: 'R',
  SUCCEEDED: 'S',
  FAILED: 'F',
  CANCELLED: 'C',
  TIMED_OUT: 'O',
  STOPPED: 'H',
};
const invert = (table: Record<string, string>) => Object.fromEntries(Object.entries(table).map(([k, v]) => [v, k]));
const TYPE_NAMES = invert(TYPES);
const STATUS_NAMES = invert(STATUSES);

/**
 * The SubType our SDK gives each type: left out of the text when it is that one (`u` absent), `u`
 * = 0 when the operation has none, the SubType itself otherwise.
 */
const DEFAULT_SUBTYPES: Record<string, string> = {
  STEP: 'Step',
  WAIT: 'Wait',
  CALLBACK: 'Callback',
  CHAINED_INVOKE: 'ChainedInvoke',
  CONTEXT: 'RunInChildContext',
};

/**
 * Payload fields that hold serialized JSON: stored as the JSON value itself (no escaped quotes)
 * under a capitalised code when the text round-trips exactly (`JSON.stringify(JSON.parse(x)) ===
 * x`), else as the string under the plain code.
 */
const JSON_CODES: Record<string, string> = { r: 'R', ip: 'IP', in: 'IN' };
const JSON_NAMES: Record<string, string> = Object.fromEntries(Object.entries(JSON_CODES).map(([k, v]) => [v, k]));

/** Marks the text's extras: the chunk references, and an input left to the run item. */
const REFS = '$r';
const RUN_INPUT = '$i';

/** An inline operation as the store keeps it: the operation with large fields moved out, their refs. */
export interface InlineEntry {
  op: Operation;
  refs?: Record<string, ChunkRef>;
  /** The EXECUTION's `InputPayload` is the run's `input` and was left out. */
  runInput?: boolean;
}

function rename(value: unknown, names: Record<string, string>, encoding: boolean): unknown {
  if (Array.isArray(value)) return value.map((v) => rename(v, names, encoding));
  if (value === null || typeof value !== 'object') return value;
  const out: Record<string, unknown> = {};
  for (const [key, inner] of Object.entries(value as Record<string, unknown>)) {
    if (inner === undefined) continue;
    if (encoding) {
      const code = names[key] ?? key;
      const jsonCode = JSON_CODES[code];
      if (jsonCode !== undefined && typeof inner === 'string' && roundTrips(inner)) {
        out[jsonCode] = JSON.parse(inner);
        continue;
      }
      out[code] = rename(inner, names, encoding);
    } else {
      const jsonCode = JSON_NAMES[key];
      if (jsonCode !== undefined) {
        out[names[jsonCode] ?? jsonCode] = JSON.stringify(inner);
        continue;
      }
      out[names[key] ?? key] = rename(inner, names, encoding);
    }
  }
  return out;
}

/** The text is JSON that serializes back to exactly itself (whitespace, number forms, escapes). */
function roundTrips(text: string): boolean {
  if (text.length === 0) return false;
  try {
    return JSON.stringify(JSON.parse(text)) === text;
  } catch {
    return false;
  }
}

/** Milliseconds from `start` to `at`, when both are times and `at` is not before `start`. */
function offset(start: unknown, at: unknown): number | undefined {
  return typeof start === 'number' && typeof at === 'number' && at >= start ? at - start : undefined;
}

/** The compact text of an inline entry (its id is the entry's key, not part of the text). */
export function encodeInline(entry: InlineEntry): string {
  const op = entry.runInput ? withoutInput(entry.op) : entry.op;
  const short = rename(op, KEYS, true) as Record<string, unknown>;
  delete short.i;
  const ended = offset(short.b, short.e);
  if (ended !== undefined) {
    delete short.e;
    short.d = ended;
  }
  const wait = short.W as Record<string, unknown> | undefined;
  const scheduled = wait && offset(short.b, wait.se);
  if (wait && scheduled !== undefined) {
    delete wait.se;
    wait.sd = scheduled;
  }
  short.t = TYPES[op.Type] ?? op.Type;
  short.s = STATUSES[op.Status] ?? op.Status;
  // The places of its history events ride after its status letter (a few bytes: `history-attributes.ts`).
  const order = op.HistoryOrder;
  if (order && order.length > 0 && STATUSES[op.Status] !== undefined) {
    delete short.q;
    short.s = `${short.s}${encodeOrder(order)}`;
  }
  const standard = DEFAULT_SUBTYPES[op.Type];
  if (op.SubType === undefined) {
    if (standard !== undefined) short.u = 0;
  } else if (op.SubType === standard) delete short.u;
  if (entry.refs && Object.keys(entry.refs).length > 0) short[REFS] = entry.refs;
  if (entry.runInput) short[RUN_INPUT] = 1;
  return JSON.stringify(short);
}

/**
 * An inline entry from what the run item holds: the compact text (layout 2), or a plain operation
 * map (an inline START written by layout 1).
 */
export function decodeInline(stored: unknown, id: string): InlineEntry {
  if (typeof stored !== 'string') return { op: stored as Operation };
  const short = JSON.parse(stored) as Record<string, unknown>;
  short.i ??= id;
  if (typeof short.d === 'number' && typeof short.b === 'number') short.e = short.b + short.d;
  delete short.d;
  const wait = short.W as Record<string, unknown> | undefined;
  if (wait && typeof wait.sd === 'number' && typeof short.b === 'number') wait.se = short.b + wait.sd;
  if (wait) delete wait.sd;
  const refs = short[REFS] as Record<string, ChunkRef> | undefined;
  const runInput = short[RUN_INPUT] === 1;
  delete short[REFS];
  delete short[RUN_INPUT];
  const subType = short.u;
  delete short.u;
  const status = short.s;
  const order = typeof status === 'string' && status.length > 1 ? decodeOrder(status.slice(1)) : undefined;
  if (order && STATUS_NAMES[(status as string)[0] as string] !== undefined) {
    short.s = (status as string)[0];
    short.q = order;
  }
  const op = rename(short, NAMES, false) as Record<string, unknown>;
  op.Type = TYPE_NAMES[op.Type as string] ?? op.Type;
  op.Status = STATUS_NAMES[op.Status as string] ?? op.Status;
  const standard = DEFAULT_SUBTYPES[op.Type as string];
  if (subType === undefined && standard !== undefined) op.SubType = standard;
  else if (typeof subType === 'string') op.SubType = subType;
  return { op: op as unknown as Operation, ...(refs ? { refs } : {}), ...(runInput ? { runInput } : {}) };
}

function withoutInput(op: Operation): Operation {
  const { InputPayload: _left, ...details } = op.ExecutionDetails ?? {};
  return { ...op, ExecutionDetails: details };
}
