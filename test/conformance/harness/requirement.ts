/**
 * How a conformance requirement is written down here: the handler (ours, written from the
 * requirement's prose), the input, what an outside party does with its callbacks, the expected
 * outcome and the expected history, in our own notation (see {@link ev} and `match.ts`).
 *
 * Values in expectations follow four rules:
 * - `'*'` matches anything (the key must still be there);
 * - `'$NAME'` binds NAME to the actual value the first time and must equal it afterwards;
 * - a `RegExp` must match the actual value as a string;
 * - anything else must be equal; in strings, `{VAR}` is first replaced by the value of VAR
 *   (a requirement variable or a binding). Objects are compared on the keys expected only, arrays
 *   element by element and of the same length.
 */
import type { DriverHandler } from '@durable-lambda/local';

/** An expected value (see the rules above). */
export type Expected = string | number | boolean | null | RegExp | Expected[] | { [key: string]: Expected };

/** One expected history event, matched to the actual event with the same EventId. */
export interface ExpectedEvent {
  eventId: number;
  type: string;
  sub?: Expected;
  id?: Expected;
  parent?: Expected;
  name?: Expected;
  /** The event's `<type>Details`. */
  details?: Expected;
}

/** What an outside party does when a callback whose name matches starts (in the order listed). */
export interface CallbackAction {
  /** The callback's name (a waitForCallback's inner callback goes by the waitForCallback's name); `'*'` any. */
  name: string | RegExp;
  send: 'success' | 'failure' | 'heartbeat';
  /** For success: sent as JSON. For failure: `{ ErrorType?, ErrorMessage?, ErrorData? }`. */
  payload?: Expected;
  /**
   * The requirement waits before sending (its `Delay`). Informational here: every action is sent
   * once the invocation that started the callback has released the run (`callback-actions.ts`).
   */
  afterSuspend?: boolean;
}

/** Field -> expected value of a log record (a RegExp is searched; strings get `{VAR}` put in). */
export type LogMatcher = Record<string, string | number | boolean | RegExp>;

/** An expected log entry (see `log-match.ts`). */
export interface LogExpectation {
  match: LogMatcher;
  count?: number;
  min?: number;
  max?: number;
  after?: LogMatcher[];
  before?: LogMatcher[];
}

/** One requirement, as this suite runs it. */
export interface Requirement {
  /** The requirement's id in AWS's conformance suite (`<suite number>-<n>`). */
  id: string;
  /** Fixed values for the requirement's generated variables (used by `{VAR}` in input and expectations). */
  vars?: Record<string, string>;
  input: Expected;
  /** Our handler, wrapped with `withDurableExecution`. */
  handler: DriverHandler;
  /** Other durable functions the handler invokes, by name. */
  functions?: Record<string, DriverHandler>;
  callbacks?: CallbackAction[];
  /** The run's final status and, when given, its result (compared after JSON parsing). */
  expect?: { status: 'SUCCEEDED' | 'FAILED' | 'TIMED_OUT' | 'STOPPED'; result?: Expected };
  history: ExpectedEvent[];
  /** The log output expected (see `log-stream.ts`); unchecked when absent. */
  logs?: LogExpectation[];
}

/** A requirement without its handler: what the suite's `*.expected.ts` file holds. */
export type Expectation = Omit<Requirement, 'handler' | 'functions'>;

/** A requirement's handler, with the other durable functions it invokes when it does. */
export type HandlerEntry = DriverHandler | { handler: DriverHandler; functions: Record<string, DriverHandler> };

/** A suite: its requirements that have a handler, and the ids of those still without one. */
export interface Suite {
  name: string;
  requirements: Requirement[];
  unwritten: string[];
}

/** Joins a suite's expectations with its handlers (by id). */
export function suite(
  name: string,
  expectations: readonly Expectation[],
  handlers: Record<string, HandlerEntry>,
): Suite {
  const requirements: Requirement[] = [];
  const unwritten: string[] = [];
  for (const expectation of expectations) {
    const entry = handlers[expectation.id];
    if (!entry) unwritten.push(expectation.id);
    else if (typeof entry === 'function') requirements.push({ ...expectation, handler: entry });
    else requirements.push({ ...expectation, handler: entry.handler, functions: entry.functions });
  }
  return { name, requirements, unwritten };
}

/** An expected history event: its EventId, its type, and the other fields checked. */
export function ev(eventId: number, type: string, fields: Omit<ExpectedEvent, 'eventId' | 'type'> = {}): ExpectedEvent {
  return { eventId, type, ...fields };
}
