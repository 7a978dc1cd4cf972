/** How a dual-run case is written: once, against {@link DualModules}. */
import type {
  DurableTestRunner,
  LocalDurableTestRunner,
  TestResult,
} from '../../../../bench/node_modules/@aws/durable-execution-sdk-js-testing/dist-types/index';
import type { AwsSdk } from '../../../support/aws-sdk';
import type { DualModules } from './modules';

/** AWS's local runner type (ours is checked against it at run time). */
export type Runner = LocalDurableTestRunner;
/** What `run()` returns. */
export type Result = TestResult;

/** What a case hands back: the run's result, and anything its handler or test code observed. */
export interface CaseOutcome {
  result: Result;
  observed?: unknown;
  /** For a case that `needsReplay`: whether the handler really ran again (not compared). */
  replayed?: boolean;
}

/** One behaviour, run on both sides. */
export interface DualCase {
  /** Unique; also the test's title. */
  name: string;
  /** Compare the number of invocations too (only where no wait, retry or callback is involved). */
  countInvocations?: boolean;
  /**
   * The case is about what happens when the handler replays. AWS's runner with skipTime sometimes
   * finishes a wait inside the invocation that started it (its fake clock races the SDK's
   * termination timer), and then nothing replays; such a case is rerun on AWS's side, in a fresh
   * environment, until it did replay.
   */
  needsReplay?: boolean;
  /**
   * The handler returns with an operation still running (a wait nobody awaited). On AWS's runner
   * that leaves work in its checkpoint worker which changes later runs, so such cases run last there.
   */
  leavesOperationsRunning?: boolean;
  run(modules: DualModules): Promise<CaseOutcome>;
}

/** Options of {@link runHandler}. */
export interface RunHandlerOptions {
  /** Passed to `run({ payload })`; omitted means `run()` with no argument at all. */
  payload?: unknown;
  /** Registers other functions (invoke targets) on the runner before the run. */
  register?: (runner: Runner) => void;
  /** Test code that runs while the handler runs (callbacks are completed here). */
  during?: (runner: Runner) => Promise<void>;
  /** Test code that runs once the run has ended (the runner's lookups are read here). */
  after?: (runner: Runner, result: Result) => void | Promise<void>;
}

/** Runs `handler` once on the side's runner, as a user's test does. */
export async function runHandler(
  { testing }: DualModules,
  handler: AwsSdk.DurableLambdaHandler,
  options: RunHandlerOptions = {},
): Promise<Result> {
  const runner = new testing.LocalDurableTestRunner({ handlerFunction: handler });
  options.register?.(runner);
  const running = 'payload' in options ? runner.run({ payload: options.payload }) : runner.run();
  if (options.during) {
    // The run must not be left unobserved if the test code throws first.
    running.catch(() => {});
    await options.during(runner);
  }
  const result = await running;
  await options.after?.(runner, result);
  return result;
}

/** The describe-an-error helper handlers use to report what they caught (all of it, own keys too). */
export function describeError(error: unknown): Record<string, unknown> {
  if (!(error instanceof Error)) return { notAnError: typeof error, value: String(error) };
  const own: Record<string, unknown> = {};
  for (const key of Object.keys(error).sort()) {
    const value = (error as unknown as Record<string, unknown>)[key];
    own[key] = key === 'cause' ? describeError(value) : key === 'stackTrace' ? '<stackTrace>' : value;
  }
  const cause = (error as { cause?: unknown }).cause;
  return {
    class: error.constructor.name,
    name: error.name,
    message: error.message,
    errorType: (error as { errorType?: unknown }).errorType ?? '«none»',
    ownKeys: Object.keys(error).sort(),
    own,
    cause: cause === undefined ? '«none»' : describeError(cause),
  };
}

export type { DurableTestRunner };
