/**
 * The reviewed list of conformance requirements that fail today, with the cause of each, per
 * runner (`runner`: the test runner; `dynamodb`: the production backend over DynamoDB Local).
 * The conformance tests fail when a listed requirement passes (remove it here) or an unlisted one
 * fails. Each cause says what the history or outcome has instead of what the requirement wants.
 * Drafted from a run with `CONFORMANCE_DUMP=<dir>` and reviewed; refresh it the same way.
 */

export type RunnerName = 'runner' | 'dynamodb';

/** Why a requirement fails, per runner where it does. */
export type ExpectedFailure = Partial<Record<RunnerName, string>>;

/**
 * Our instrumentation plugin hooks differ from what AWS's plugin requirements record (found by
 * this suite, not yet filed with a fix under way): `what`.
 */
const pluginHooks = (what: string) => `plugin hooks: ${what}`;

/** A difference of design rather than a defect being fixed, said as it is: `what`. */
const other = (what: string) => `by design: ${what}`;

export const EXPECTED_FAILURES: Record<string, ExpectedFailure> = {
  '3-11': {
    runner: other(
      'a child context result over 256 KB is stored whole (our store splits large payloads) instead of being rebuilt by re-running the child on replay (AWS ReplayChildren), so the child logs once where the requirement counts two log lines',
    ),
    dynamodb: other(
      'a child context result over 256 KB is stored whole (our store splits large payloads) instead of being rebuilt by re-running the child on replay (AWS ReplayChildren), so the child logs once where the requirement counts two log lines',
    ),
  },
  '10-8': {
    runner: pluginHooks('onOperationChange is never called for the step that succeeded (no operation-change record)'),
    dynamodb: pluginHooks('onOperationChange is never called for the step that succeeded (no operation-change record)'),
  },
  '10-10': {
    runner: pluginHooks(
      'onOperationEnd is not called for a wait that ended between invocations (only operation-start is recorded)',
    ),
    dynamodb: pluginHooks(
      'onOperationEnd is not called for a wait that ended between invocations (only operation-start is recorded)',
    ),
  },
  '10-18': {
    runner: pluginHooks(
      'on the replay after the short wait, neither wait is reported: no operation-start replay=true for the pending long wait, no operation-end for either wait',
    ),
    dynamodb: pluginHooks(
      'on the replay after the short wait, neither wait is reported: no operation-start replay=true for the pending long wait, no operation-end for either wait',
    ),
  },
  '10-19': {
    runner: pluginHooks(
      'InvocationEndInfo has no isFirstInvocation (the requirement reads it from the end hook itself)',
    ),
    dynamodb: pluginHooks(
      'InvocationEndInfo has no isFirstInvocation (the requirement reads it from the end hook itself)',
    ),
  },
  '10-20': {
    runner: pluginHooks("the step's operation-end info has no endTimestamp"),
    dynamodb: pluginHooks("the step's operation-end info has no endTimestamp"),
  },
  '10-22': {
    runner: pluginHooks('onOperationChange is never called for the step that succeeded'),
    dynamodb: pluginHooks('onOperationChange is never called for the step that succeeded'),
  },
  '10-23': {
    runner: pluginHooks(
      'a context still running is reported by onOperationStart again on each replay with isReplay false (the parallel and branch-a twice), and the child-function hook info has no isReplayingChildren',
    ),
    dynamodb: pluginHooks(
      'a context still running is reported by onOperationStart again on each replay with isReplay false (the parallel and branch-a twice), and the child-function hook info has no isReplayingChildren',
    ),
  },
};
