/**
 * Where ours deliberately differs from AWS's packages: only where AWS itself is wrong, hangs, or the
 * difference is a documented choice. Each entry names the summary fields that differ (everything
 * else in the case must still be identical), says why, and checks ours on its own for the right
 * behaviour. An entry whose fields no longer differ fails the suite, so the table cannot go stale.
 */
import { expect } from 'vitest';
import type { Summary } from './harness/summary';

/** One documented difference. */
export interface KnownDifference {
  /** Dotted paths into the {@link Summary} (e.g. `history`, `operations.1.status`) that differ. */
  paths: readonly string[];
  /** Why ours differs: AWS is wrong, hangs, or it is a documented choice (with where). */
  reason: string;
  /** Asserts ours' right behaviour on those paths (throws when it is not). */
  checkOurs(ours: Summary): void;
  /** Asserts AWS shows the documented wrong behaviour (throws when it shows something else). */
  checkAws?(aws: Summary): void;
  /**
   * AWS shows it only sometimes (a race in its runner): when AWS gets it right, the case must then be
   * identical, and it counts as identical.
   */
  sometimes?: boolean;
}

/**
 * AWS's runner with skipTime ticks its fake clock past every scheduled wait, including one the
 * handler never awaited, after the handler has already returned: the wait shows SUCCEEDED and its
 * WaitSucceeded event lands after the last invocation. With skipTime: false the same run on AWS's
 * runner leaves it STARTED (as the service does: nothing resumes a finished execution); ours keeps
 * that behaviour with its virtual clock.
 */
const UNAWAITED_WAIT_COMPLETED_BY_FAKE_CLOCK =
  "AWS's skipTime fake clock completes a wait nobody awaited after the handler returned; with real time AWS leaves it STARTED, as ours does";

function completedAfterTheRun(operation: number) {
  return (aws: Summary) => {
    expect((aws.operations as Array<{ status: unknown }>)[operation]?.status).toBe('SUCCEEDED');
  };
}

function leftStarted(operation: number, historyKey: string) {
  return (ours: Summary) => {
    const op = (ours.operations as Array<{ status: unknown; type: unknown }>)[operation];
    expect(op?.type).toBe('WAIT');
    expect(op?.status).toBe('STARTED');
    expect((ours.history as Record<string, string[]>)[historyKey]).toEqual([expect.stringMatching(/^WaitStarted /)]);
    expect(ours.status).toBe('SUCCEEDED');
  };
}

/**
 * A callback that timed out: AWS's service stores the error type `Callback.Timeout` or
 * `Callback.Heartbeat` (the conformance requirements' CallbackTimedOut events, 4-3 and 4-4, carry
 * it), AWS's local runner stores none. Ours stores the service's (issue 23), so the stored error
 * and the CallbackTimeoutError's cause name (AWS's SDK names the cause after the stored type) say it.
 */
function callbackTimeoutType(operation: number, type: string): KnownDifference {
  return {
    paths: [`operations.${operation}.details.error.errorType`, 'result'],
    reason: `AWS's service stores ErrorType ${type} on a timed-out callback (conformance 4-3/4-4); AWS's local runner stores none; ours is the service's`,
    checkOurs(ours) {
      const op = (ours.operations as Array<{ details: { error: { errorType: unknown } } }>)[operation];
      expect(op?.details.error.errorType).toBe(type);
      expect(JSON.stringify(ours.result)).toContain(`"name":"${type}"`);
    },
    checkAws(aws) {
      const op = (aws.operations as Array<{ details: { error: { errorType: unknown } } }>)[operation];
      expect(op?.details.error.errorType).toBe('«undefined»');
    },
  };
}

/**
 * The stored form of a map's or parallel's own CONTEXT result (what `getContextDetails().result`
 * shows for the batch itself). AWS stores the whole BatchResult as JSON (`{ all, completionReason }`,
 * item results as values, failed items' errors with their cause chain). Ours stores a compact
 * summary (`type`, counts, `status`, `completionReason`, and `items` with each result in its
 * serialized form) that stays within the payload limit for a batch of any size, and from which
 * the BatchResult is rebuilt on replay (reading large items back from their own records); see
 * packages/sdk/src/operations/batch/run-batch.ts. What the handler sees (the BatchResult, its
 * items, results, errors and methods) is compared and identical in these same cases.
 */
const BATCH_SUMMARY_STORED_FORM =
  "the batch CONTEXT's own stored result is our compact summary (counts, items with serialized results), not AWS's BatchResult JSON; the handler's BatchResult is identical";

const batchSummary: KnownDifference = {
  paths: ['operations.0.details.result'],
  reason: BATCH_SUMMARY_STORED_FORM,
  checkOurs(ours) {
    const result = (ours.operations as Array<{ details: { result: Record<string, unknown> } }>)[0]?.details.result;
    expect(result).toMatchObject({ type: expect.stringMatching(/^(Map|Parallel)Result$/) });
    const items = result?.items as Array<{ index: number; status: string; result?: unknown }>;
    expect(result?.totalCount).toBe(items.length);
    expect(result?.successCount).toBe(items.filter((i) => i.status === 'SUCCEEDED').length);
    expect(result?.failureCount).toBe(items.filter((i) => i.status === 'FAILED').length);
    for (const item of items) if (item.result !== undefined) expect(typeof item.result).toBe('string');
  },
  checkAws(aws) {
    const result = (aws.operations as Array<{ details: { result: Record<string, unknown> } }>)[0]?.details.result;
    expect(Object.keys(result ?? {}).sort()).toEqual(['all', 'completionReason']);
  },
};

/** By case name. */
export const KNOWN_DIFFERENCES: Readonly<Record<string, KnownDifference>> = {
  'wait: an unawaited long wait is left STARTED when the handler returns': {
    paths: ['operations.0.status', 'history.0 WAIT forgotten'],
    reason: UNAWAITED_WAIT_COMPLETED_BY_FAKE_CLOCK,
    checkOurs: leftStarted(0, '0 WAIT forgotten'),
    checkAws: completedAfterTheRun(0),
  },
  'promise: race and any': {
    paths: ['operations.1.status', 'history.1 WAIT slow'],
    reason: `${UNAWAITED_WAIT_COMPLETED_BY_FAKE_CLOCK} (the wait that lost the race)`,
    checkOurs: leftStarted(1, '1 WAIT slow'),
    checkAws: completedAfterTheRun(1),
  },
  'waitForCondition: running out of attempts fails the wait with a StepError': {
    paths: ['status', 'result', 'error', 'operations', 'invocations', 'history', 'observed'],
    sometimes: true,
    reason:
      "AWS's SDK checkpoints FAIL for the wait-for-condition step after its RETRY, and AWS's local checkpoint " +
      "server, in about half the runs (a race with its fake clock), refuses it ('Invalid current STEP state " +
      "to close'), so run() rejects with CheckpointUnrecoverableInvocationError; otherwise AWS gives what ours " +
      "always gives: the operation FAILED and the StepError AWS's SDK builds from the wait strategy's Error",
    checkAws(aws) {
      expect(aws.status).toEqual({ threw: expect.stringContaining('Invalid current STEP state to close') });
    },
    checkOurs(ours) {
      expect(ours.status).toBe('SUCCEEDED');
      const result = ours.result as { described: Record<string, unknown>; isIt: boolean };
      expect(result.described).toMatchObject({
        class: 'StepError',
        errorType: 'StepError',
        message: 'waitForCondition exceeded maximum attempts (2)',
        cause: { class: 'Error', message: 'waitForCondition exceeded maximum attempts (2)' },
      });
      expect(result.isIt).toBe(false);
      expect(ours.operations).toMatchObject([
        {
          type: 'STEP',
          subType: 'WaitForCondition',
          name: 'never-ready',
          status: 'FAILED',
          details: { attempt: 2, error: { errorMessage: 'waitForCondition exceeded maximum attempts (2)' } },
        },
      ]);
    },
  },
  'map: every item mapped, results in order': batchSummary,
  'map: an empty list gives an empty, successful batch': batchSummary,
  'map: maxConcurrency and itemNamer': batchSummary,
  'map: failures within toleratedFailureCount complete the batch': batchSummary,
  'map: failures beyond toleratedFailurePercentage fail the batch': batchSummary,
  'map: minSuccessful stops the batch early': batchSummary,
  'map: a custom shouldComplete decides the outcome': batchSummary,
  'parallel: named and unnamed branches, one with a wait': batchSummary,
  'parallel: exceeding the tolerated failures, throwIfError throws': batchSummary,
  'callback: a callback not completed in its timeout is a CallbackTimeoutError': callbackTimeoutType(
    0,
    'Callback.Timeout',
  ),
  'callback: no heartbeat within heartbeatTimeout times the callback out': callbackTimeoutType(0, 'Callback.Heartbeat'),
  'map: nesting FLAT records no item contexts, the steps under the Map': batchSummary,
  'parallel: nesting FLAT with a wait and a failing branch': batchSummary,
};
