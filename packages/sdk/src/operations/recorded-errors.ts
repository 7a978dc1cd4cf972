import type { ErrorObject } from '@durable-lambda/protocol';
import { ErrorCode, withCode } from '../errors/codes';
import {
  CallbackError,
  CallbackExternalError,
  CallbackSubmitterError,
  CallbackTimeoutError,
  ChildContextError,
  DurableOperationError,
  InvokeError,
  PromiseCombinatorError,
  StepError,
  WaitForConditionError,
} from '../errors/durable-errors';
import { toErrorObject } from '../errors/error-object';
import { InvalidArgumentError } from '../errors/invalid-argument';
import { AttemptFailure, DurableRuntimeFault } from '../errors/runtime-errors';
import { NonRetriableError, RetryAfterError, StepInterruptedError } from '../errors/step-errors';

/**
 * Errors recorded so they revive as the same class on replay: a withRetry attempt's failure.
 * Live and replayed code see the same class, message and code.
 */

/**
 * An error (or any rejection value) as stored, with what it takes to rebuild it: its class
 * among the known ones, name, message, code, stack, cause and class-specific fields.
 */
export interface EncodedError {
  /** The class that rebuilds it (`StepError`, `AggregateError`, `TypeError`, `Error`, …), or `value`. */
  kind: string;
  name?: string;
  message?: string;
  code?: string;
  stack?: string;
  /** DurableOperationError's `errorData`. */
  errorData?: string;
  /** InvalidArgumentError's field, RetryAfterError's delay, AttemptFailure's flag. */
  field?: string;
  delayMs?: number;
  retriable?: boolean;
  /** Own enumerable JSON fields of other errors (e.g. an HTTP error's `status`). */
  props?: Record<string, unknown>;
  cause?: EncodedError;
  /** AggregateError's errors. */
  errors?: EncodedError[];
  /** A rejection that is not an Error, as JSON. */
  value?: unknown;
}

type DurableErrorClass = new (message?: string, cause?: Error, errorData?: string) => DurableOperationError;

// Most specific first: an error is stored as the first class it is an instance of.
const DURABLE_CLASSES: ReadonlyArray<readonly [string, DurableErrorClass]> = [
  ['StepError', StepError],
  ['CallbackTimeoutError', CallbackTimeoutError],
  ['CallbackExternalError', CallbackExternalError],
  ['CallbackSubmitterError', CallbackSubmitterError],
  ['CallbackError', CallbackError],
  ['ChildContextError', ChildContextError],
  ['PromiseCombinatorError', PromiseCombinatorError],
  ['InvokeError', InvokeError],
  ['WaitForConditionError', WaitForConditionError],
];

type PlainErrorClass = new (message?: string, options?: { cause?: unknown }) => Error;

const NATIVE_CLASSES: ReadonlyArray<readonly [string, PlainErrorClass]> = [
  ['TypeError', TypeError],
  ['RangeError', RangeError],
  ['SyntaxError', SyntaxError],
  ['ReferenceError', ReferenceError],
  ['EvalError', EvalError],
  ['URIError', URIError],
];

/** Causes and nested errors kept, at most. */
const MAX_DEPTH = 8;
const MAX_NESTED_ERRORS = 100;
const MAX_STACK_LINES = 50;
const SKIPPED_PROPS = new Set(['name', 'message', 'stack', 'cause', 'code', 'errors']);

function kindOf(error: Error): string {
  for (const [kind, ctor] of DURABLE_CLASSES) if (error instanceof ctor) return kind;
  if (error instanceof InvalidArgumentError) return 'InvalidArgumentError';
  if (error instanceof NonRetriableError) return 'NonRetriableError';
  if (error instanceof RetryAfterError) return 'RetryAfterError';
  if (error instanceof AttemptFailure) return 'AttemptFailure';
  if (error instanceof DurableRuntimeFault) return 'DurableRuntimeFault';
  if (error instanceof StepInterruptedError) return 'StepInterruptedError';
  if (error instanceof AggregateError) return 'AggregateError';
  for (const [kind, ctor] of NATIVE_CLASSES) if (error instanceof ctor) return kind;
  return 'Error';
}

/** A JSON copy of `value`, or its string form when it has none. */
function jsonCopy(value: unknown): unknown {
  try {
    const text = JSON.stringify(value);
    return text === undefined ? undefined : JSON.parse(text);
  } catch {
    return String(value);
  }
}

/** Encodes anything thrown so {@link reviveError} rebuilds it. */
export function encodeError(error: unknown, depth = 0): EncodedError {
  if (!(error instanceof Error)) {
    const value = jsonCopy(error);
    return value === undefined ? { kind: 'value' } : { kind: 'value', value };
  }
  const kind = kindOf(error);
  const out: EncodedError = { kind, name: error.name, message: error.message };
  const code = (error as { code?: unknown }).code;
  if (typeof code === 'string') out.code = code;
  if (typeof error.stack === 'string') out.stack = error.stack.split('\n').slice(0, MAX_STACK_LINES).join('\n');
  if (error instanceof DurableOperationError) {
    if (error.errorData !== undefined) out.errorData = error.errorData;
  } else {
    const props: Record<string, unknown> = {};
    for (const key of Object.keys(error)) {
      if (SKIPPED_PROPS.has(key)) continue;
      const value = jsonCopy((error as unknown as Record<string, unknown>)[key]);
      if (value !== undefined) props[key] = value;
    }
    if (Object.keys(props).length > 0) out.props = props;
  }
  if (error instanceof InvalidArgumentError) out.field = error.field;
  if (error instanceof RetryAfterError) out.delayMs = error.delayMs;
  if (error instanceof AttemptFailure) out.retriable = error.retriable;
  if (depth < MAX_DEPTH) {
    if (error instanceof AggregateError && Array.isArray(error.errors)) {
      out.errors = error.errors.slice(0, MAX_NESTED_ERRORS).map((e) => encodeError(e, depth + 1));
    }
    if (error.cause !== undefined) out.cause = encodeError(error.cause, depth + 1);
  }
  return out;
}

/** Rebuilds what {@link encodeError} stored: the same class (or the nearest known one) and fields. */
export function reviveError(stored: EncodedError): unknown {
  if (stored.kind === 'value') return stored.value;
  const message = stored.message ?? '';
  const cause = stored.cause === undefined ? undefined : reviveError(stored.cause);
  const options = cause === undefined ? undefined : { cause };
  const durable = DURABLE_CLASSES.find(([kind]) => kind === stored.kind)?.[1];
  let error: Error;
  if (durable) {
    error = new durable(message, cause instanceof Error ? cause : undefined, stored.errorData);
  } else {
    switch (stored.kind) {
      case 'InvalidArgumentError':
        error = new InvalidArgumentError(stored.field ?? 'argument', message);
        break;
      case 'NonRetriableError':
        error = new NonRetriableError(message, options);
        break;
      case 'RetryAfterError':
        error = new RetryAfterError(message, stored.delayMs ?? 0, options);
        break;
      case 'AttemptFailure':
        error = new AttemptFailure(
          stored.code ?? ErrorCode.PROMISE_COMBINATOR_FAILED,
          message,
          stored.retriable ?? false,
          options,
        );
        break;
      case 'DurableRuntimeFault':
        error = new DurableRuntimeFault(stored.code ?? ErrorCode.PROMISE_COMBINATOR_FAILED, message);
        break;
      case 'StepInterruptedError':
        error = new StepInterruptedError('');
        break;
      case 'AggregateError':
        error = new AggregateError((stored.errors ?? []).map(reviveError), message, options);
        break;
      default: {
        const ctor = NATIVE_CLASSES.find(([kind]) => kind === stored.kind)?.[1] ?? Error;
        error = new ctor(message, options);
      }
    }
  }
  // Constructors may compose their own message (InvalidArgumentError) or name: the stored win.
  const mutable = error as Error & { code?: string };
  mutable.message = message;
  if (stored.name !== undefined) mutable.name = stored.name;
  // A durable error's code is non-enumerable, as everywhere; others keep theirs as they had it.
  if (stored.code !== undefined) {
    if (error instanceof DurableOperationError || error instanceof StepInterruptedError) withCode(error, stored.code);
    else mutable.code = stored.code;
  }
  if (stored.stack !== undefined) mutable.stack = stored.stack;
  if (cause !== undefined && mutable.cause === undefined) mutable.cause = cause;
  for (const [key, value] of Object.entries(stored.props ?? {})) {
    (mutable as unknown as Record<string, unknown>)[key] = value;
  }
  return error;
}

/** Marks the ErrorData of a recorded rejection. */
const ENVELOPE = 'durable-lambda/rejection@1';

interface Envelope {
  [ENVELOPE]: EncodedError;
  meta?: unknown;
}

/**
 * Carries a rejection through a CONTEXT operation's FAIL: its stored ErrorObject shows the
 * rejection as `toErrorObject` would (type, message, code, stack) and keeps the encoded
 * rejection, plus `meta`, in ErrorData.
 */
class RecordedRejection extends DurableOperationError {
  readonly errorType: string;
  constructor(reason: unknown, fallbackCode: string, meta: unknown) {
    const shown = toErrorObject(reason, fallbackCode);
    const envelope: Envelope = { [ENVELOPE]: encodeError(reason), ...(meta === undefined ? {} : { meta }) };
    super(shown.ErrorMessage ?? '', undefined, JSON.stringify(envelope));
    this.errorType = shown.ErrorType ?? 'Error';
    withCode(this, shown.ErrorCode ?? fallbackCode);
  }
}

/**
 * Wraps `reason` for a CONTEXT operation's body to throw: the operation's FAIL then stores what
 * {@link readRecordedRejection} needs to rebuild the same error, with `meta` alongside.
 * @internal shared with withRetry.
 */
export function recordRejection(reason: unknown, fallbackCode: string, meta?: unknown): Error {
  return new RecordedRejection(reason, fallbackCode, meta);
}

/**
 * The rejection recorded by {@link recordRejection}, rebuilt, from a stored ErrorObject or from
 * the error a CONTEXT operation threw for it (whose `errorData` is the stored ErrorData).
 * Undefined when it holds no recorded rejection.
 * @internal shared with withRetry.
 */
export function readRecordedRejection(source: unknown): { error: unknown; meta: unknown } | undefined {
  // A CONTEXT's failure wraps the stored error: the envelope is the first errorData down the chain.
  const data =
    source instanceof DurableOperationError
      ? source.toErrorObject().ErrorData
      : (source as ErrorObject | undefined)?.ErrorData;
  if (typeof data !== 'string' || !data.includes(ENVELOPE)) return undefined;
  let envelope: Partial<Envelope>;
  try {
    envelope = JSON.parse(data) as Partial<Envelope>;
  } catch {
    return undefined;
  }
  const encoded = envelope?.[ENVELOPE];
  if (encoded === null || typeof encoded !== 'object' || typeof encoded.kind !== 'string') return undefined;
  return { error: reviveError(encoded), meta: envelope.meta };
}
