/**
 * Runner (a): our test runner, `LocalDurableTestRunner`, with time skipped, and the history it
 * gives (`getHistoryEvents()`).
 */
import { LocalDurableTestRunner, type TestDriver } from '@durable-lambda/local';
import { actOnCallbacks } from './callback-actions';
import { matchLogs } from './log-match';
import { clearLog, readLog } from './log-stream';
import { type ActualEvent, Bindings, matchHistory, matchOutcome } from './match';
import type { Requirement } from './requirement';

/** What one requirement gave on one runner. */
export interface Verdict {
  id: string;
  /** Every difference found (none: the requirement passes). */
  problems: string[];
  /** The actual history, for the report of a failure. */
  history?: readonly ActualEvent[];
  /** The run's log output (see `log-stream.ts`), for the report of a failure. */
  log?: readonly Record<string, unknown>[];
}

/** A fixed virtual start, so no requirement depends on the day it runs. */
export const START_TIME = Date.UTC(2026, 0, 1);

/**
 * The runner's driver while its run goes on. Test-only: the outside party must act between an
 * invocation's release and the next move of the virtual clock, which only the driver's store sees.
 */
function driverOf(runner: LocalDurableTestRunner): TestDriver {
  const driver = (runner as unknown as { driver?: TestDriver }).driver;
  if (!driver) throw new Error('the runner has no driver: run() not started');
  return driver;
}

/** Runs one requirement on the test runner and matches what it recorded. */
export async function runOnTestRunner(req: Requirement): Promise<Verdict> {
  const bindings = new Bindings(req.vars);
  const runner = new LocalDurableTestRunner({ handlerFunction: req.handler, startTime: START_TIME, skipTime: true });
  for (const [name, handler] of Object.entries(req.functions ?? {})) runner.registerDurableFunction(name, handler);
  clearLog();
  const running = runner.run({ payload: bindings.substitute(req.input) });
  // run() builds its driver before its first await.
  const driver = driverOf(runner);
  if (!driver.memoryStore) throw new Error('the test runner is expected to run on its in-memory store');
  actOnCallbacks(
    driver.memoryStore,
    req.callbacks ?? [],
    () => ({
      success: (id, result) => driver.sendCallbackSuccess(id, result),
      failure: (id, error) => driver.sendCallbackFailure(id, error),
      heartbeat: (id) => driver.sendCallbackHeartbeat(id),
    }),
    bindings,
  );
  const result = await running;
  // The handler's own log output, then what its logger wrote (each entry's message as a line).
  const log = [...readLog(), ...result.getLogs().map((entry) => ({ message: entry.message, level: entry.level }))];
  const history = result.getHistoryEvents() as unknown as ActualEvent[];
  const status = result.getStatus();
  let text: string | undefined;
  if (status === 'SUCCEEDED') {
    const value = result.getResult();
    text = value === undefined ? undefined : JSON.stringify(value);
  }
  const problems = [
    ...matchHistory(req.history, history, bindings),
    ...matchOutcome(req.expect, { status, ...(text === undefined ? {} : { result: text }) }, bindings),
    ...matchLogs(req.logs ?? [], log, bindings),
  ];
  return { id: req.id, problems, history, log };
}
