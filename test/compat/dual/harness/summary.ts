/**
 * The outcome of one case, reduced to what a user's test can observe through the runner: status,
 * result, error, every operation with its details, invocations, history event signatures, and what
 * the case itself observed. Values that are inherently run-specific (ids, timestamps, callback ids,
 * request ids, stack frames) are replaced by placeholders; everything else is kept as is, with
 * `undefined` spelled out so a key that is present on one side only shows in the diff.
 */
import type {
  DurableOperation,
  TestResult,
} from '../../../../bench/node_modules/@aws/durable-execution-sdk-js-testing/dist-types/index';

/** A JSON-like value with `undefined` spelled out. */
export type Plain = string | number | boolean | null | Plain[] | { [key: string]: Plain };

/** The reduced outcome of a case. */
export interface Summary {
  status: Plain;
  result: Plain;
  error: Plain;
  operations: Plain;
  invocations: Plain;
  invocationCount?: Plain;
  history: Plain;
  observed: Plain;
}

export const UNDEFINED = '«undefined»';

/** Calls `read`, recording a throw as `{ threw: <name: message> }` (AWS's accessors throw by design). */
function attempt(read: () => unknown, placeholders: Placeholders): Plain {
  try {
    return normalise(read(), placeholders);
  } catch (error) {
    return { threw: describeThrow(error) };
  }
}

function describeThrow(error: unknown): string {
  if (error instanceof Error) return `${error.name}: ${error.message}`;
  return String(error);
}

/** Run-specific strings (ids) mapped to stable names, in the order they are first met. */
export class Placeholders {
  private readonly names = new Map<string, string>();

  name(kind: string, value: string): string {
    let name = this.names.get(value);
    if (!name) {
      name = `<${kind}#${[...this.names.values()].filter((n) => n.startsWith(`<${kind}#`)).length + 1}>`;
      this.names.set(value, name);
    }
    return name;
  }

  replace(value: string): string {
    return this.names.get(value) ?? value;
  }
}

/** A JSON-like copy of `value`: Dates, functions and stack traces replaced, undefined spelled out. */
export function normalise(value: unknown, placeholders: Placeholders, key = ''): Plain {
  if (value === undefined) return UNDEFINED;
  if (value === null) return null;
  if (value instanceof Date) return '<date>';
  if (typeof value === 'string') {
    if (key === 'callbackId') return placeholders.name('callbackId', value);
    // A stack names files and lines of each side's own sources.
    if (key === 'stack') return '<stack>';
    return value;
  }
  if (typeof value === 'number' || typeof value === 'boolean') return value;
  if (typeof value === 'bigint') return `${value}n`;
  if (typeof value === 'function') return '<function>';
  if (typeof value === 'symbol') return value.toString();
  if (Array.isArray(value)) {
    if ((key === 'stackTrace' || key === 'StackTrace') && value.every((v) => typeof v === 'string'))
      return '<stackTrace>';
    return value.map((v) => normalise(v, placeholders));
  }
  const out: { [key: string]: Plain } = {};
  if (value instanceof Error) out['<class>'] = value.constructor.name;
  for (const k of Object.keys(value as object).sort()) {
    out[k] = normalise((value as Record<string, unknown>)[k], placeholders, k);
  }
  return out;
}

/** The details accessor matching an operation's type (AWS's accessors throw on the wrong type). */
function details(op: DurableOperation, placeholders: Placeholders): Plain {
  switch (op.getType()) {
    case 'STEP':
      return attempt(() => op.getStepDetails(), placeholders);
    case 'WAIT':
      return attempt(() => op.getWaitDetails(), placeholders);
    case 'CALLBACK':
      return attempt(() => op.getCallbackDetails(), placeholders);
    case 'CHAINED_INVOKE':
      return attempt(() => op.getChainedInvokeDetails(), placeholders);
    case 'CONTEXT':
      return op.isWaitForCallback()
        ? attempt(() => op.getCallbackDetails(), placeholders)
        : attempt(() => op.getContextDetails(), placeholders);
    default:
      return `<no details for ${String(op.getType())}>`;
  }
}

/**
 * Reduces a finished run to its {@link Summary}. The number of invocations is kept only when the case
 * asks (`countInvocations`): AWS's runner, with skipTime, advances the SDK's own in-process timers, so
 * a short wait, retry or callback may finish inside one invocation there and across two on Lambda;
 * the count is an artefact of its fake clock, not a property of the handler. For the same reason
 * `InvocationCompleted` events are left out of the history signatures.
 */
export function summarise(result: TestResult, observed: unknown, countInvocations = false): Summary {
  const placeholders = new Placeholders();
  let ops: DurableOperation[] = [];
  let operationsFailure: Plain | undefined;
  try {
    ops = result.getOperations();
  } catch (error) {
    operationsFailure = { threw: describeThrow(error) };
  }
  // Ids first, so parents and values that carry an id read as the same placeholder on both sides.
  for (const op of ops) {
    const id = op.getId();
    if (id) placeholders.name(`op:${op.getName() ?? op.getType()}`, id);
  }
  return {
    status: attempt(() => result.getStatus(), placeholders),
    result: attempt(() => result.getResult(), placeholders),
    error: attempt(() => result.getError(), placeholders),
    operations:
      operationsFailure ??
      ops.map((op) => ({
        type: attempt(() => op.getType(), placeholders),
        subType: attempt(() => op.getSubType(), placeholders),
        name: attempt(() => op.getName(), placeholders),
        status: attempt(() => op.getStatus(), placeholders),
        parent: attempt(() => {
          const parent = op.getParentId();
          return parent === undefined ? undefined : placeholders.replace(parent);
        }, placeholders),
        details: details(op, placeholders),
      })),
    invocations: attempt(() => {
      const invocations = result.getInvocations();
      return {
        fields: [...new Set(invocations.flatMap((invocation) => Object.keys(invocation)))].sort(),
        errors: invocations.filter((invocation) => invocation.error !== undefined).map((i) => i.error),
      };
    }, placeholders),
    ...(countInvocations ? { invocationCount: attempt(() => result.getInvocations().length, placeholders) } : {}),
    history: attempt(() => historySignatures(result, ops), placeholders),
    observed: normalise(observed, placeholders),
  };
}

/**
 * The history as `EventType SubType Name` signatures, grouped by operation (in the operations'
 * creation order, which the summary compares on its own) with each operation's events in their
 * order, the execution's own events first. Grouping leaves out only the interleaving of events of
 * operations that run concurrently (two steps in a promise.all, map items), which depends on how each
 * runtime batches its checkpoints and is no ordering a handler can observe.
 */
function historySignatures(result: TestResult, ops: readonly DurableOperation[]): Plain {
  if (typeof result.getHistoryEvents !== 'function') return '<getHistoryEvents missing>';
  const groups = new Map<string, string[]>([['execution', []]]);
  const index = new Map<string, string>();
  ops.forEach((op, i) => {
    const id = op.getId();
    const key = `${i} ${op.getType()} ${op.getName() ?? ''}`;
    groups.set(key, []);
    if (id) index.set(id, key);
  });
  for (const event of result.getHistoryEvents()) {
    if (event.EventType === 'InvocationCompleted') continue;
    const key =
      (event.Id && index.get(event.Id)) || (event.EventType?.startsWith('Execution') ? 'execution' : 'unknown');
    const signature = [event.EventType, event.SubType, event.Name].map((part) => part ?? '').join(' ');
    groups.set(key, [...(groups.get(key) ?? []), signature]);
  }
  return Object.fromEntries(groups);
}

/** A summary of a case that threw (or hung) in the test code itself, not in the handler. */
export function caseFailure(error: unknown): Summary {
  const message = { threw: describeThrow(error) };
  return {
    status: message,
    result: message,
    error: message,
    operations: message,
    invocations: message,
    history: message,
    observed: message,
  };
}
