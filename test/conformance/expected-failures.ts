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
 * History order (issue 23, being fixed): the history is rebuilt from the operations' final
 * records, so an event is placed by its timestamp, not where it happened. Here: `what`.
 */
const order = (what: string) => `history order: ${what}`;

/** A retried step's `RetryDetails.CurrentAttempt` is one lower than required (issue 23, being fixed). */
const attempt = (what: string) => `attempt numbers: ${what}`;

/** Chained invokes lack details the service records (issue 23, being fixed): `what`. */
const invokeDetails = (what: string) => `invoke details: ${what}`;

/** waitForCondition's checks are stored without their state (issue 23, being fixed): `what`. */
const conditionStates = (what: string) => `condition states: ${what}`;

/**
 * Our instrumentation plugin hooks differ from what AWS's plugin requirements record (found by
 * this suite, not yet filed with a fix under way): `what`.
 */
const pluginHooks = (what: string) => `plugin hooks: ${what}`;

/** Two causes at once. */
const both = (a: string, b: string) => `${a}; and ${b}`;

/**
 * The production backend's `GetDurableExecutionHistory` lists no `InvocationCompleted` event:
 * `DynamoDbStore` keeps no invocation journal (the route reads invocations only from a store with
 * `readRunJournal`), so every event after the first invocation's end has the wrong EventId.
 * `besides`: what else differs once the invocations the driver saw are put in.
 */
const noInvocations = (besides?: string) =>
  `no InvocationCompleted events over DynamoDB${besides ? `; besides, ${besides}` : ''}`;

export const EXPECTED_FAILURES: Record<string, ExpectedFailure> = {
  '1-1': { dynamodb: noInvocations() },
  '1-2': { dynamodb: noInvocations() },
  '1-3': { dynamodb: noInvocations() },
  '1-4': { dynamodb: noInvocations() },
  '1-5': { dynamodb: noInvocations() },
  '1-6': { dynamodb: noInvocations() },
  '1-7': { dynamodb: noInvocations() },
  '1-8': { dynamodb: noInvocations() },
  '1-9': { dynamodb: noInvocations() },
  '1-10': { dynamodb: noInvocations() },
  '1-11': {
    runner: attempt('event 6 CurrentAttempt 1 (wants 2)'),
    dynamodb: noInvocations(attempt('event 6 CurrentAttempt 1 (wants 2)')),
  },
  '1-12': {
    runner: attempt(
      'event 6 CurrentAttempt 1 (wants 2), event 9 CurrentAttempt 2 (wants 3), event 12 CurrentAttempt 3 (wants 4)',
    ),
    dynamodb: noInvocations(
      attempt(
        'event 6 CurrentAttempt 1 (wants 2), event 9 CurrentAttempt 2 (wants 3), event 12 CurrentAttempt 3 (wants 4)',
      ),
    ),
  },
  '1-13': {
    runner: attempt('event 6 CurrentAttempt 1 (wants 2), event 9 CurrentAttempt 2 (wants 3)'),
    dynamodb: noInvocations(attempt('event 6 CurrentAttempt 1 (wants 2), event 9 CurrentAttempt 2 (wants 3)')),
  },
  '1-14': {
    runner: attempt('event 6 CurrentAttempt 1 (wants 2), event 9 CurrentAttempt 2 (wants 3)'),
    dynamodb: noInvocations(attempt('event 6 CurrentAttempt 1 (wants 2), event 9 CurrentAttempt 2 (wants 3)')),
  },
  '1-15': {
    runner: attempt('event 6 CurrentAttempt 1 (wants 2)'),
    dynamodb: noInvocations(attempt('event 6 CurrentAttempt 1 (wants 2)')),
  },
  '1-16': { dynamodb: noInvocations() },
  '1-19': { dynamodb: noInvocations() },
  '1-20': { dynamodb: noInvocations() },
  '2-1': { dynamodb: noInvocations() },
  '2-2': { dynamodb: noInvocations() },
  '2-3': { dynamodb: noInvocations() },
  '2-4': { dynamodb: noInvocations() },
  '2-5': { dynamodb: noInvocations() },
  '3-1': { dynamodb: noInvocations() },
  '3-2': { dynamodb: noInvocations() },
  '3-3': { dynamodb: noInvocations() },
  '3-4': { dynamodb: noInvocations() },
  '3-5': { dynamodb: noInvocations() },
  '3-6': { dynamodb: noInvocations() },
  '3-7': {
    runner: attempt('event 7 CurrentAttempt 1 (wants 2)'),
    dynamodb: noInvocations(attempt('event 7 CurrentAttempt 1 (wants 2)')),
  },
  '3-8': {
    runner: attempt('event 7 CurrentAttempt 1 (wants 2)'),
    dynamodb: noInvocations(attempt('event 7 CurrentAttempt 1 (wants 2)')),
  },
  '3-9': { dynamodb: noInvocations() },
  '3-10': { dynamodb: noInvocations() },
  '3-11': { dynamodb: noInvocations() },
  '3-13': { dynamodb: noInvocations() },
  '3-14': { dynamodb: noInvocations() },
  '3-15': { dynamodb: noInvocations() },
  '3-16': { dynamodb: noInvocations() },
  '3-17': { dynamodb: noInvocations() },
  '3-18': { dynamodb: noInvocations() },
  '4-1': {
    runner: order(
      'event 3 is CallbackSucceeded where InvocationCompleted is due; history: 2 CallbackStarted cbname4x1, 3 CallbackSucceeded cbname4x1, 4 InvocationCompleted, 5 InvocationCompleted, 6 ExecutionSucceeded',
    ),
    dynamodb: noInvocations(
      order(
        'event 3 is CallbackSucceeded where InvocationCompleted is due; history: 2 CallbackStarted cbname4x1, 3 CallbackSucceeded cbname4x1, 4 InvocationCompleted, 5 InvocationCompleted, 6 ExecutionSucceeded',
      ),
    ),
  },
  '4-2': {
    runner: order(
      'event 3 is CallbackSucceeded where InvocationCompleted is due; history: 2 CallbackStarted approval, 3 CallbackSucceeded approval, 4 InvocationCompleted, 5 InvocationCompleted, 6 ExecutionSucceeded',
    ),
    dynamodb: noInvocations(
      order(
        'event 3 is CallbackSucceeded where InvocationCompleted is due; history: 2 CallbackStarted approval, 3 CallbackSucceeded approval, 4 InvocationCompleted, 5 InvocationCompleted, 6 ExecutionSucceeded',
      ),
    ),
  },
  '4-3': { dynamodb: noInvocations() },
  '4-4': { dynamodb: noInvocations() },
  '4-5': {
    runner: order(
      'event 3 is CallbackSucceeded where InvocationCompleted is due; history: 2 CallbackStarted cbname4x5, 3 CallbackSucceeded cbname4x5, 4 InvocationCompleted, 5 InvocationCompleted, 6 ExecutionSucceeded',
    ),
    dynamodb: noInvocations(
      order(
        'event 3 is CallbackSucceeded where InvocationCompleted is due; history: 2 CallbackStarted cbname4x5, 3 CallbackSucceeded cbname4x5, 4 InvocationCompleted, 5 InvocationCompleted, 6 ExecutionSucceeded',
      ),
    ),
  },
  '4-6': {
    runner: order(
      'event 3 is CallbackFailed where InvocationCompleted is due; history: 2 CallbackStarted cbname4x6, 3 CallbackFailed cbname4x6, 4 InvocationCompleted, 5 InvocationCompleted, 6 ExecutionFailed',
    ),
    dynamodb: noInvocations(
      order(
        'event 3 is CallbackFailed where InvocationCompleted is due; history: 2 CallbackStarted cbname4x6, 3 CallbackFailed cbname4x6, 4 InvocationCompleted, 5 InvocationCompleted, 6 ExecutionFailed',
      ),
    ),
  },
  '4-7': {
    runner: order(
      'event 3 is CallbackFailed where StepStarted is due; history: 2 CallbackStarted cbname4x7, 3 CallbackFailed cbname4x7, 4 InvocationCompleted, 5 StepStarted between, 6 StepSucceeded between, 7 InvocationCompleted, 8 ExecutionFailed',
    ),
    dynamodb: noInvocations(
      order(
        'event 3 is CallbackFailed where StepStarted is due; history: 2 CallbackStarted cbname4x7, 3 CallbackFailed cbname4x7, 4 InvocationCompleted, 5 StepStarted between, 6 StepSucceeded between, 7 InvocationCompleted, 8 ExecutionFailed',
      ),
    ),
  },
  '4-8': { dynamodb: noInvocations() },
  '4-9': {
    runner: order(
      'event 3 is CallbackSucceeded where WaitStarted is due; history: 2 CallbackStarted cbname4x9, 3 CallbackSucceeded cbname4x9, 4 InvocationCompleted, 5 WaitStarted, 6 InvocationCompleted, 7 WaitSucceeded, 8 InvocationCompleted, 9 ExecutionSucceeded',
    ),
    dynamodb: noInvocations(
      order(
        'event 3 is CallbackSucceeded where WaitStarted is due; history: 2 CallbackStarted cbname4x9, 3 CallbackSucceeded cbname4x9, 4 InvocationCompleted, 5 WaitStarted, 6 InvocationCompleted, 7 WaitSucceeded, 8 InvocationCompleted, 9 ExecutionSucceeded',
      ),
    ),
  },
  '4-10': {
    runner: order(
      'event 3 is CallbackFailed where WaitStarted is due; history: 2 CallbackStarted cbname4x10, 3 CallbackFailed cbname4x10, 4 InvocationCompleted, 5 WaitStarted, 6 InvocationCompleted, 7 WaitSucceeded, 8 InvocationCompleted, 9 ExecutionFailed',
    ),
    dynamodb: noInvocations(
      order(
        'event 3 is CallbackFailed where WaitStarted is due; history: 2 CallbackStarted cbname4x10, 3 CallbackFailed cbname4x10, 4 InvocationCompleted, 5 WaitStarted, 6 InvocationCompleted, 7 WaitSucceeded, 8 InvocationCompleted, 9 ExecutionFailed',
      ),
    ),
  },
  '4-11': { dynamodb: noInvocations() },
  '4-12': {
    runner: order(
      'event 3 is CallbackSucceeded where InvocationCompleted is due; history: 2 CallbackStarted cbname4x12, 3 CallbackSucceeded cbname4x12, 4 InvocationCompleted, 5 WaitStarted, 6 InvocationCompleted, 7 WaitSucceeded, 8 InvocationCompleted, 9 ExecutionSucceeded',
    ),
    dynamodb: noInvocations(
      order(
        'event 3 is CallbackSucceeded where InvocationCompleted is due; history: 2 CallbackStarted cbname4x12, 3 CallbackSucceeded cbname4x12, 4 InvocationCompleted, 5 WaitStarted, 6 InvocationCompleted, 7 WaitSucceeded, 8 InvocationCompleted, 9 ExecutionSucceeded',
      ),
    ),
  },
  '4-13': {
    runner: order(
      'event 3 is CallbackFailed where InvocationCompleted is due; history: 2 CallbackStarted cbname4x13, 3 CallbackFailed cbname4x13, 4 InvocationCompleted, 5 WaitStarted, 6 InvocationCompleted, 7 WaitSucceeded, 8 InvocationCompleted, 9 ExecutionSucceeded',
    ),
    dynamodb: noInvocations(
      order(
        'event 3 is CallbackFailed where InvocationCompleted is due; history: 2 CallbackStarted cbname4x13, 3 CallbackFailed cbname4x13, 4 InvocationCompleted, 5 WaitStarted, 6 InvocationCompleted, 7 WaitSucceeded, 8 InvocationCompleted, 9 ExecutionSucceeded',
      ),
    ),
  },
  '4-14': { dynamodb: noInvocations() },
  '4-15': {
    runner: order(
      'event 3 is CallbackSucceeded where InvocationCompleted is due; history: 2 CallbackStarted cbname4x15, 3 CallbackSucceeded cbname4x15, 4 InvocationCompleted, 5 InvocationCompleted, 6 ExecutionSucceeded',
    ),
    dynamodb: noInvocations(
      order(
        'event 3 is CallbackSucceeded where InvocationCompleted is due; history: 2 CallbackStarted cbname4x15, 3 CallbackSucceeded cbname4x15, 4 InvocationCompleted, 5 InvocationCompleted, 6 ExecutionSucceeded',
      ),
    ),
  },
  '4-16': {
    runner: order(
      'event 3 is CallbackSucceeded where InvocationCompleted is due; history: 2 CallbackStarted cbname4x16, 3 CallbackSucceeded cbname4x16, 4 InvocationCompleted, 5 InvocationCompleted, 6 ExecutionSucceeded',
    ),
    dynamodb: noInvocations(
      order(
        'event 3 is CallbackSucceeded where InvocationCompleted is due; history: 2 CallbackStarted cbname4x16, 3 CallbackSucceeded cbname4x16, 4 InvocationCompleted, 5 InvocationCompleted, 6 ExecutionSucceeded',
      ),
    ),
  },
  '4-17': {
    runner: order(
      'event 3 is CallbackSucceeded where InvocationCompleted is due; history: 2 CallbackStarted cbnamea4x17, 3 CallbackSucceeded cbnamea4x17, 4 InvocationCompleted, 5 CallbackStarted cbnameb4x17, 6 CallbackSucceeded cbnameb4x17, 7 InvocationCompleted, 8 InvocationCompleted, 9 ExecutionSucceeded',
    ),
    dynamodb: noInvocations(
      order(
        'event 3 is CallbackSucceeded where InvocationCompleted is due; history: 2 CallbackStarted cbnamea4x17, 3 CallbackSucceeded cbnamea4x17, 4 InvocationCompleted, 5 CallbackStarted cbnameb4x17, 6 CallbackSucceeded cbnameb4x17, 7 InvocationCompleted, 8 InvocationCompleted, 9 ExecutionSucceeded',
      ),
    ),
  },
  '4-18': {
    runner: order(
      'event 3 is CallbackSucceeded where CallbackStarted is due; history: 2 CallbackStarted cbnamea4x18, 3 CallbackSucceeded cbnamea4x18, 4 InvocationCompleted, 5 CallbackStarted cbnameb4x18, 6 CallbackSucceeded cbnameb4x18, 7 InvocationCompleted, 8 InvocationCompleted, 9 ExecutionSucceeded',
    ),
    dynamodb: noInvocations(
      order(
        'event 3 is CallbackSucceeded where CallbackStarted is due; history: 2 CallbackStarted cbnamea4x18, 3 CallbackSucceeded cbnamea4x18, 4 InvocationCompleted, 5 CallbackStarted cbnameb4x18, 6 CallbackSucceeded cbnameb4x18, 7 InvocationCompleted, 8 InvocationCompleted, 9 ExecutionSucceeded',
      ),
    ),
  },
  '4-19': {
    runner: order(
      'event 3 is CallbackSucceeded where CallbackStarted is due; history: 2 CallbackStarted cbnamea4x19, 3 CallbackSucceeded cbnamea4x19, 4 InvocationCompleted, 5 CallbackStarted cbnameb4x19, 6 CallbackSucceeded cbnameb4x19, 7 InvocationCompleted, 8 InvocationCompleted, 9 ExecutionSucceeded',
    ),
    dynamodb: noInvocations(
      order(
        'event 3 is CallbackSucceeded where CallbackStarted is due; history: 2 CallbackStarted cbnamea4x19, 3 CallbackSucceeded cbnamea4x19, 4 InvocationCompleted, 5 CallbackStarted cbnameb4x19, 6 CallbackSucceeded cbnameb4x19, 7 InvocationCompleted, 8 InvocationCompleted, 9 ExecutionSucceeded',
      ),
    ),
  },
  '5-1': {
    runner: invokeDetails('ChainedInvokeStarted has no ExecutedVersion'),
    dynamodb: noInvocations(invokeDetails('ChainedInvokeStarted has no ExecutedVersion')),
  },
  '5-2': {
    runner: invokeDetails('ChainedInvokeStarted has no ExecutedVersion'),
    dynamodb: noInvocations(invokeDetails('ChainedInvokeStarted has no ExecutedVersion')),
  },
  '5-3': {
    runner: invokeDetails('ChainedInvokeStarted has no ExecutedVersion'),
    dynamodb: noInvocations(invokeDetails('ChainedInvokeStarted has no ExecutedVersion')),
  },
  '5-4': {
    runner: invokeDetails('ChainedInvokeStarted has no ExecutedVersion'),
    dynamodb: noInvocations(invokeDetails('ChainedInvokeStarted has no ExecutedVersion')),
  },
  '5-5': {
    runner: invokeDetails('ChainedInvokeStarted has no ExecutedVersion'),
    dynamodb: noInvocations(invokeDetails('ChainedInvokeStarted has no ExecutedVersion')),
  },
  '5-6': {
    runner: invokeDetails('ChainedInvokeStarted has no ExecutedVersion'),
    dynamodb: noInvocations(invokeDetails('ChainedInvokeStarted has no ExecutedVersion')),
  },
  '5-7': {
    runner: invokeDetails('ChainedInvokeStarted has no ExecutedVersion'),
    dynamodb: noInvocations(invokeDetails('ChainedInvokeStarted has no ExecutedVersion')),
  },
  '5-8': {
    runner: invokeDetails('ChainedInvokeStarted has no ExecutedVersion and no TenantId'),
    dynamodb: noInvocations(invokeDetails('ChainedInvokeStarted has no ExecutedVersion and no TenantId')),
  },
  '5-9': {
    runner: invokeDetails('ChainedInvokeStarted has no ExecutedVersion'),
    dynamodb: noInvocations(invokeDetails('ChainedInvokeStarted has no ExecutedVersion')),
  },
  '5-10': {
    runner: invokeDetails('ChainedInvokeStarted has no ExecutedVersion'),
    dynamodb: noInvocations(invokeDetails('ChainedInvokeStarted has no ExecutedVersion')),
  },
  '5-11': {
    runner: invokeDetails('ChainedInvokeStarted has no ExecutedVersion'),
    dynamodb: noInvocations(invokeDetails('ChainedInvokeStarted has no ExecutedVersion')),
  },
  '5-12': {
    runner: invokeDetails('ChainedInvokeStarted has no ExecutedVersion'),
    dynamodb: noInvocations(invokeDetails('ChainedInvokeStarted has no ExecutedVersion')),
  },
  '5-13': {
    runner: invokeDetails('ChainedInvokeStarted has no ExecutedVersion'),
    dynamodb: noInvocations(invokeDetails('ChainedInvokeStarted has no ExecutedVersion')),
  },
  '5-14': {
    runner: both(
      invokeDetails('ChainedInvokeStarted has no ExecutedVersion'),
      order(
        'event 6 is ChainedInvokeSucceeded where InvocationCompleted is due; history: 2 ChainedInvokeStarted first, 3 InvocationCompleted, 4 ChainedInvokeSucceeded first, 5 ChainedInvokeStarted second, 6 ChainedInvokeSucceeded second, 7 InvocationCompleted, 8 InvocationCompleted, 9 ExecutionSucceeded',
      ),
    ),
    dynamodb: noInvocations(
      both(
        invokeDetails('ChainedInvokeStarted has no ExecutedVersion'),
        order(
          'event 6 is ChainedInvokeSucceeded where InvocationCompleted is due; history: 2 ChainedInvokeStarted first, 3 InvocationCompleted, 4 ChainedInvokeSucceeded first, 5 ChainedInvokeStarted second, 6 ChainedInvokeSucceeded second, 7 InvocationCompleted, 8 InvocationCompleted, 9 ExecutionSucceeded',
        ),
      ),
    ),
  },
  '5-15': {
    runner: invokeDetails('ChainedInvokeStarted has no ExecutedVersion'),
    dynamodb: noInvocations(invokeDetails('ChainedInvokeStarted has no ExecutedVersion')),
  },
  '5-16': {
    runner: invokeDetails('ChainedInvokeStarted has no ExecutedVersion'),
    dynamodb: noInvocations(invokeDetails('ChainedInvokeStarted has no ExecutedVersion')),
  },
  '6-1': {
    runner: conditionStates('the intermediate checks (events 3, 6) are stored without their state as Result.Payload'),
    dynamodb: noInvocations(
      conditionStates('the intermediate checks (events 3, 6) are stored without their state as Result.Payload'),
    ),
  },
  '6-2': { dynamodb: noInvocations() },
  '6-3': {
    runner: conditionStates('the intermediate checks (event 3) are stored without their state as Result.Payload'),
    dynamodb: noInvocations(
      conditionStates('the intermediate checks (event 3) are stored without their state as Result.Payload'),
    ),
  },
  '6-4': {
    runner: conditionStates('the intermediate checks (events 3, 6) are stored without their state as Result.Payload'),
    dynamodb: noInvocations(
      conditionStates('the intermediate checks (events 3, 6) are stored without their state as Result.Payload'),
    ),
  },
  '6-5': {
    runner: conditionStates('the intermediate checks (events 3, 6) are stored without their state as Result.Payload'),
    dynamodb: noInvocations(
      conditionStates('the intermediate checks (events 3, 6) are stored without their state as Result.Payload'),
    ),
  },
  '6-6': { dynamodb: noInvocations() },
  '6-7': { dynamodb: noInvocations() },
  '6-8': { dynamodb: noInvocations() },
  '6-9': { dynamodb: noInvocations() },
  '6-10': { dynamodb: noInvocations() },
  '6-11': { dynamodb: noInvocations() },
  '6-12': {
    runner: conditionStates('the intermediate checks (event 3) are stored without their state as Result.Payload'),
    dynamodb: noInvocations(
      conditionStates('the intermediate checks (event 3) are stored without their state as Result.Payload'),
    ),
  },
  '6-13': {
    runner: conditionStates('the intermediate checks (events 3, 8) are stored without their state as Result.Payload'),
    dynamodb: noInvocations(
      conditionStates('the intermediate checks (events 3, 8) are stored without their state as Result.Payload'),
    ),
  },
  '7-1': {
    runner: order(
      'event 6 is CallbackSucceeded where InvocationCompleted is due; history: 2 ContextStarted cbname7x1, 3 CallbackStarted, 4 StepStarted, 5 StepSucceeded, 6 CallbackSucceeded, 7 InvocationCompleted, 8 ContextSucceeded cbname7x1, 9 InvocationCompleted, 10 ExecutionSucceeded',
    ),
    dynamodb: noInvocations(
      order(
        'event 6 is CallbackSucceeded where InvocationCompleted is due; history: 2 ContextStarted cbname7x1, 3 CallbackStarted, 4 StepStarted, 5 StepSucceeded, 6 CallbackSucceeded, 7 InvocationCompleted, 8 ContextSucceeded cbname7x1, 9 InvocationCompleted, 10 ExecutionSucceeded',
      ),
    ),
  },
  '7-2': {
    runner: order(
      'event 6 is CallbackSucceeded where InvocationCompleted is due; history: 2 ContextStarted approval, 3 CallbackStarted, 4 StepStarted, 5 StepSucceeded, 6 CallbackSucceeded, 7 InvocationCompleted, 8 ContextSucceeded approval, 9 InvocationCompleted, 10 ExecutionSucceeded',
    ),
    dynamodb: noInvocations(
      order(
        'event 6 is CallbackSucceeded where InvocationCompleted is due; history: 2 ContextStarted approval, 3 CallbackStarted, 4 StepStarted, 5 StepSucceeded, 6 CallbackSucceeded, 7 InvocationCompleted, 8 ContextSucceeded approval, 9 InvocationCompleted, 10 ExecutionSucceeded',
      ),
    ),
  },
  '7-3': {
    runner: order(
      'event 6 is CallbackSucceeded where InvocationCompleted is due; history: 2 ContextStarted, 3 CallbackStarted, 4 StepStarted, 5 StepSucceeded, 6 CallbackSucceeded, 7 InvocationCompleted, 8 ContextSucceeded, 9 InvocationCompleted, 10 ExecutionSucceeded',
    ),
    dynamodb: noInvocations(
      order(
        'event 6 is CallbackSucceeded where InvocationCompleted is due; history: 2 ContextStarted, 3 CallbackStarted, 4 StepStarted, 5 StepSucceeded, 6 CallbackSucceeded, 7 InvocationCompleted, 8 ContextSucceeded, 9 InvocationCompleted, 10 ExecutionSucceeded',
      ),
    ),
  },
  '7-4': {
    runner: order(
      'event 6 is CallbackFailed where InvocationCompleted is due; history: 2 ContextStarted cbname7x4, 3 CallbackStarted, 4 StepStarted, 5 StepSucceeded, 6 CallbackFailed, 7 InvocationCompleted, 8 ContextFailed cbname7x4, 9 InvocationCompleted, 10 ExecutionFailed',
    ),
    dynamodb: noInvocations(
      order(
        'event 6 is CallbackFailed where InvocationCompleted is due; history: 2 ContextStarted cbname7x4, 3 CallbackStarted, 4 StepStarted, 5 StepSucceeded, 6 CallbackFailed, 7 InvocationCompleted, 8 ContextFailed cbname7x4, 9 InvocationCompleted, 10 ExecutionFailed',
      ),
    ),
  },
  '7-5': { dynamodb: noInvocations() },
  '7-6': {
    runner: order(
      'event 6 is CallbackFailed where InvocationCompleted is due; history: 2 ContextStarted cbname7x6, 3 CallbackStarted, 4 StepStarted, 5 StepSucceeded, 6 CallbackFailed, 7 InvocationCompleted, 8 ContextFailed cbname7x6, 9 InvocationCompleted, 10 ExecutionSucceeded',
    ),
    dynamodb: noInvocations(
      order(
        'event 6 is CallbackFailed where InvocationCompleted is due; history: 2 ContextStarted cbname7x6, 3 CallbackStarted, 4 StepStarted, 5 StepSucceeded, 6 CallbackFailed, 7 InvocationCompleted, 8 ContextFailed cbname7x6, 9 InvocationCompleted, 10 ExecutionSucceeded',
      ),
    ),
  },
  '7-7': { dynamodb: noInvocations() },
  '7-8': {
    runner: order(
      'event 7 is CallbackSucceeded where InvocationCompleted is due; history: 2 ContextStarted wrapper, 3 ContextStarted cbname7x8, 4 CallbackStarted, 5 StepStarted, 6 StepSucceeded, 7 CallbackSucceeded, 8 InvocationCompleted, 9 ContextSucceeded cbname7x8, 10 ContextSucceeded wrapper, 11 InvocationCompleted, 12 ExecutionSucceeded',
    ),
    dynamodb: noInvocations(
      order(
        'event 7 is CallbackSucceeded where InvocationCompleted is due; history: 2 ContextStarted wrapper, 3 ContextStarted cbname7x8, 4 CallbackStarted, 5 StepStarted, 6 StepSucceeded, 7 CallbackSucceeded, 8 InvocationCompleted, 9 ContextSucceeded cbname7x8, 10 ContextSucceeded wrapper, 11 InvocationCompleted, 12 ExecutionSucceeded',
      ),
    ),
  },
  '7-9': {
    runner: order(
      'event 6 is CallbackSucceeded where InvocationCompleted is due; history: 2 ContextStarted first, 3 CallbackStarted, 4 StepStarted, 5 StepSucceeded, 6 CallbackSucceeded, 7 InvocationCompleted, 8 ContextSucceeded first, 9 ContextStarted second, 10 CallbackStarted, 11 StepStarted, 12 StepSucceeded, 13 CallbackSucceeded, 14 ContextSucceeded second, 15 InvocationCompleted, 16 InvocationCompleted, 17 ExecutionSucceeded',
    ),
    dynamodb: noInvocations(
      order(
        'event 6 is CallbackSucceeded where InvocationCompleted is due; history: 2 ContextStarted first, 3 CallbackStarted, 4 StepStarted, 5 StepSucceeded, 6 CallbackSucceeded, 7 InvocationCompleted, 8 ContextSucceeded first, 9 ContextStarted second, 10 CallbackStarted, 11 StepStarted, 12 StepSucceeded, 13 CallbackSucceeded, 14 ContextSucceeded second, 15 InvocationCompleted, 16 InvocationCompleted, 17 ExecutionSucceeded',
      ),
    ),
  },
  '7-10': {
    runner: order(
      'event 11 is CallbackSucceeded where InvocationCompleted is due; history: 2 WaitStarted, 3 InvocationCompleted, 4 WaitSucceeded, 5 StepStarted prepare, 6 StepSucceeded prepare, 7 ContextStarted cbname7x10, 8 CallbackStarted, 9 StepStarted, 10 StepSucceeded, 11 CallbackSucceeded, 12 InvocationCompleted, 13 ContextSucceeded cbname7x10, 14 InvocationCompleted, 15 ExecutionSucceeded',
    ),
    dynamodb: noInvocations(
      order(
        'event 11 is CallbackSucceeded where InvocationCompleted is due; history: 2 WaitStarted, 3 InvocationCompleted, 4 WaitSucceeded, 5 StepStarted prepare, 6 StepSucceeded prepare, 7 ContextStarted cbname7x10, 8 CallbackStarted, 9 StepStarted, 10 StepSucceeded, 11 CallbackSucceeded, 12 InvocationCompleted, 13 ContextSucceeded cbname7x10, 14 InvocationCompleted, 15 ExecutionSucceeded',
      ),
    ),
  },
  '7-11': {
    runner: order(
      'event 6 is CallbackSucceeded where InvocationCompleted is due; history: 2 ContextStarted cbname7x11, 3 CallbackStarted, 4 StepStarted, 5 StepSucceeded, 6 CallbackSucceeded, 7 InvocationCompleted, 8 ContextSucceeded cbname7x11, 9 InvocationCompleted, 10 ExecutionSucceeded',
    ),
    dynamodb: noInvocations(
      order(
        'event 6 is CallbackSucceeded where InvocationCompleted is due; history: 2 ContextStarted cbname7x11, 3 CallbackStarted, 4 StepStarted, 5 StepSucceeded, 6 CallbackSucceeded, 7 InvocationCompleted, 8 ContextSucceeded cbname7x11, 9 InvocationCompleted, 10 ExecutionSucceeded',
      ),
    ),
  },
  '7-12': { dynamodb: noInvocations() },
  '7-13': {
    runner: order(
      'event 6 is CallbackSucceeded where InvocationCompleted is due; history: 2 ContextStarted cbname7x13, 3 CallbackStarted, 4 StepStarted, 5 StepSucceeded, 6 CallbackSucceeded, 7 InvocationCompleted, 8 ContextSucceeded cbname7x13, 9 InvocationCompleted, 10 ExecutionSucceeded',
    ),
    dynamodb: noInvocations(
      order(
        'event 6 is CallbackSucceeded where InvocationCompleted is due; history: 2 ContextStarted cbname7x13, 3 CallbackStarted, 4 StepStarted, 5 StepSucceeded, 6 CallbackSucceeded, 7 InvocationCompleted, 8 ContextSucceeded cbname7x13, 9 InvocationCompleted, 10 ExecutionSucceeded',
      ),
    ),
  },
  '7-14': { dynamodb: noInvocations() },
  '7-15': {
    runner: order(
      'event 6 is CallbackSucceeded where InvocationCompleted is due; history: 2 ContextStarted cbname7x15, 3 CallbackStarted, 4 StepStarted, 5 StepSucceeded, 6 CallbackSucceeded, 7 InvocationCompleted, 8 ContextSucceeded cbname7x15, 9 InvocationCompleted, 10 ExecutionSucceeded',
    ),
    dynamodb: noInvocations(
      order(
        'event 6 is CallbackSucceeded where InvocationCompleted is due; history: 2 ContextStarted cbname7x15, 3 CallbackStarted, 4 StepStarted, 5 StepSucceeded, 6 CallbackSucceeded, 7 InvocationCompleted, 8 ContextSucceeded cbname7x15, 9 InvocationCompleted, 10 ExecutionSucceeded',
      ),
    ),
  },
  '8-1': {
    runner: order(
      'items interleaved although maxConcurrency is 1 (every item started before the first ended); history: 2 ContextStarted parallel, 3 ContextStarted parallel-branch-0, 4 ContextStarted parallel-branch-1, 5 StepStarted, 6 StepStarted, 7 StepSucceeded, 8 StepSucceeded, 9 ContextSucceeded parallel-branch-0, 10 ContextSucceeded parallel-branch-1, 11 ContextSucceeded parallel, 12 InvocationCompleted, 13 ExecutionSucceeded',
    ),
    dynamodb: noInvocations(
      order(
        'items interleaved although maxConcurrency is 1 (every item started before the first ended); history: 2 ContextStarted parallel, 3 ContextStarted parallel-branch-0, 4 ContextStarted parallel-branch-1, 5 StepStarted, 6 StepStarted, 7 StepSucceeded, 8 StepSucceeded, 9 ContextSucceeded parallel-branch-0, 10 ContextSucceeded parallel-branch-1, 11 ContextSucceeded parallel, 12 InvocationCompleted, 13 ExecutionSucceeded',
      ),
    ),
  },
  '8-2': {
    runner: order(
      'items interleaved although maxConcurrency is 1 (every item started before the first ended); history: 2 ContextStarted, 3 ContextStarted parallel-branch-0, 4 ContextStarted parallel-branch-1, 5 ContextSucceeded parallel-branch-0, 6 ContextSucceeded parallel-branch-1, 7 ContextSucceeded, 8 InvocationCompleted, 9 ExecutionSucceeded',
    ),
    dynamodb: noInvocations(
      order(
        'items interleaved although maxConcurrency is 1 (every item started before the first ended); history: 2 ContextStarted, 3 ContextStarted parallel-branch-0, 4 ContextStarted parallel-branch-1, 5 ContextSucceeded parallel-branch-0, 6 ContextSucceeded parallel-branch-1, 7 ContextSucceeded, 8 InvocationCompleted, 9 ExecutionSucceeded',
      ),
    ),
  },
  '8-3': {
    runner: order(
      'event 4 is ContextStarted where ContextSucceeded is due; history: 2 ContextStarted named, 3 ContextStarted first, 4 ContextStarted second, 5 ContextSucceeded first, 6 ContextSucceeded second, 7 ContextSucceeded named, 8 InvocationCompleted, 9 ExecutionSucceeded',
    ),
    dynamodb: noInvocations(
      order(
        'event 4 is ContextStarted where ContextSucceeded is due; history: 2 ContextStarted named, 3 ContextStarted first, 4 ContextStarted second, 5 ContextSucceeded first, 6 ContextSucceeded second, 7 ContextSucceeded named, 8 InvocationCompleted, 9 ExecutionSucceeded',
      ),
    ),
  },
  '8-4': {
    runner: order(
      'items interleaved although maxConcurrency is 1 (every item started before the first ended); history: 2 ContextStarted, 3 ContextStarted parallel-branch-0, 4 ContextStarted parallel-branch-1, 5 ContextStarted parallel-branch-2, 6 ContextSucceeded parallel-branch-0, 7 ContextSucceeded parallel-branch-1, 8 ContextSucceeded parallel-branch-2, 9 ContextSucceeded, 10 InvocationCompleted, 11 ExecutionSucceeded',
    ),
    dynamodb: noInvocations(
      order(
        'items interleaved although maxConcurrency is 1 (every item started before the first ended); history: 2 ContextStarted, 3 ContextStarted parallel-branch-0, 4 ContextStarted parallel-branch-1, 5 ContextStarted parallel-branch-2, 6 ContextSucceeded parallel-branch-0, 7 ContextSucceeded parallel-branch-1, 8 ContextSucceeded parallel-branch-2, 9 ContextSucceeded, 10 InvocationCompleted, 11 ExecutionSucceeded',
      ),
    ),
  },
  '8-5': { dynamodb: noInvocations() },
  '8-6': {
    runner: order(
      'items interleaved although maxConcurrency is 1 (every item started before the first ended); history: 2 ContextStarted, 3 ContextStarted parallel-branch-0, 4 ContextStarted parallel-branch-1, 5 ContextSucceeded parallel-branch-0, 6 ContextFailed parallel-branch-1, 7 ContextSucceeded, 8 InvocationCompleted, 9 ExecutionSucceeded',
    ),
    dynamodb: noInvocations(
      order(
        'items interleaved although maxConcurrency is 1 (every item started before the first ended); history: 2 ContextStarted, 3 ContextStarted parallel-branch-0, 4 ContextStarted parallel-branch-1, 5 ContextSucceeded parallel-branch-0, 6 ContextFailed parallel-branch-1, 7 ContextSucceeded, 8 InvocationCompleted, 9 ExecutionSucceeded',
      ),
    ),
  },
  '8-7': { dynamodb: noInvocations() },
  '8-8': {
    runner: order(
      'items interleaved although maxConcurrency is 1 (every item started before the first ended); history: 2 ContextStarted, 3 ContextStarted parallel-branch-0, 4 ContextStarted parallel-branch-1, 5 ContextSucceeded parallel-branch-0, 6 ContextSucceeded parallel-branch-1, 7 ContextSucceeded, 8 InvocationCompleted, 9 ExecutionSucceeded',
    ),
    dynamodb: noInvocations(
      order(
        'items interleaved although maxConcurrency is 1 (every item started before the first ended); history: 2 ContextStarted, 3 ContextStarted parallel-branch-0, 4 ContextStarted parallel-branch-1, 5 ContextSucceeded parallel-branch-0, 6 ContextSucceeded parallel-branch-1, 7 ContextSucceeded, 8 InvocationCompleted, 9 ExecutionSucceeded',
      ),
    ),
  },
  '8-9': {
    runner: order(
      'items interleaved although maxConcurrency is 1 (every item started before the first ended); history: 2 ContextStarted, 3 ContextStarted parallel-branch-0, 4 ContextStarted parallel-branch-1, 5 ContextStarted parallel-branch-2, 6 ContextSucceeded parallel-branch-0, 7 ContextFailed parallel-branch-1, 8 ContextSucceeded parallel-branch-2, 9 ContextSucceeded, 10 InvocationCompleted, 11 ExecutionSucceeded',
    ),
    dynamodb: noInvocations(
      order(
        'items interleaved although maxConcurrency is 1 (every item started before the first ended); history: 2 ContextStarted, 3 ContextStarted parallel-branch-0, 4 ContextStarted parallel-branch-1, 5 ContextStarted parallel-branch-2, 6 ContextSucceeded parallel-branch-0, 7 ContextFailed parallel-branch-1, 8 ContextSucceeded parallel-branch-2, 9 ContextSucceeded, 10 InvocationCompleted, 11 ExecutionSucceeded',
      ),
    ),
  },
  '8-10': {
    runner: order(
      'items interleaved although maxConcurrency is 1 (every item started before the first ended); history: 2 ContextStarted, 3 ContextStarted parallel-branch-0, 4 ContextStarted parallel-branch-1, 5 ContextFailed parallel-branch-0, 6 ContextFailed parallel-branch-1, 7 ContextSucceeded, 8 InvocationCompleted, 9 ExecutionSucceeded',
    ),
    dynamodb: noInvocations(
      order(
        'items interleaved although maxConcurrency is 1 (every item started before the first ended); history: 2 ContextStarted, 3 ContextStarted parallel-branch-0, 4 ContextStarted parallel-branch-1, 5 ContextFailed parallel-branch-0, 6 ContextFailed parallel-branch-1, 7 ContextSucceeded, 8 InvocationCompleted, 9 ExecutionSucceeded',
      ),
    ),
  },
  '8-12': {
    runner: order(
      'event 4 is StepStarted where StepSucceeded is due; history: 2 ContextStarted, 3 StepStarted, 4 StepStarted, 5 StepSucceeded, 6 StepSucceeded, 7 ContextSucceeded, 8 InvocationCompleted, 9 ExecutionSucceeded',
    ),
    dynamodb: noInvocations(
      order(
        'event 4 is StepStarted where StepSucceeded is due; history: 2 ContextStarted, 3 StepStarted, 4 StepStarted, 5 StepSucceeded, 6 StepSucceeded, 7 ContextSucceeded, 8 InvocationCompleted, 9 ExecutionSucceeded',
      ),
    ),
  },
  '8-13': {
    runner: order(
      'items interleaved although maxConcurrency is 1 (every item started before the first ended); history: 2 ContextStarted, 3 ContextStarted parallel-branch-0, 4 ContextStarted parallel-branch-1, 5 ContextFailed parallel-branch-0, 6 ContextFailed parallel-branch-1, 7 ContextSucceeded, 8 InvocationCompleted, 9 ExecutionSucceeded',
    ),
    dynamodb: noInvocations(
      order(
        'items interleaved although maxConcurrency is 1 (every item started before the first ended); history: 2 ContextStarted, 3 ContextStarted parallel-branch-0, 4 ContextStarted parallel-branch-1, 5 ContextFailed parallel-branch-0, 6 ContextFailed parallel-branch-1, 7 ContextSucceeded, 8 InvocationCompleted, 9 ExecutionSucceeded',
      ),
    ),
  },
  '8-14': {
    runner: order(
      'items interleaved although maxConcurrency is 1 (every item started before the first ended); history: 2 ContextStarted, 3 ContextStarted parallel-branch-0, 4 ContextStarted parallel-branch-1, 5 StepStarted, 6 WaitStarted, 7 StepSucceeded, 8 ContextSucceeded parallel-branch-0, 9 InvocationCompleted, 10 WaitSucceeded, 11 ContextSucceeded parallel-branch-1, 12 ContextSucceeded, 13 InvocationCompleted, 14 ExecutionSucceeded',
    ),
    dynamodb: noInvocations(
      order(
        'items interleaved although maxConcurrency is 1 (every item started before the first ended); history: 2 ContextStarted, 3 ContextStarted parallel-branch-0, 4 ContextStarted parallel-branch-1, 5 StepStarted, 6 WaitStarted, 7 StepSucceeded, 8 ContextSucceeded parallel-branch-0, 9 InvocationCompleted, 10 WaitSucceeded, 11 ContextSucceeded parallel-branch-1, 12 ContextSucceeded, 13 InvocationCompleted, 14 ExecutionSucceeded',
      ),
    ),
  },
  '8-15': {
    runner: order(
      'items interleaved although maxConcurrency is 1 (every item started before the first ended); history: 2 ContextStarted, 3 ContextStarted parallel-branch-0, 4 ContextStarted parallel-branch-1, 5 ContextSucceeded parallel-branch-0, 6 ContextSucceeded parallel-branch-1, 7 ContextSucceeded, 8 InvocationCompleted, 9 ExecutionSucceeded',
    ),
    dynamodb: noInvocations(
      order(
        'items interleaved although maxConcurrency is 1 (every item started before the first ended); history: 2 ContextStarted, 3 ContextStarted parallel-branch-0, 4 ContextStarted parallel-branch-1, 5 ContextSucceeded parallel-branch-0, 6 ContextSucceeded parallel-branch-1, 7 ContextSucceeded, 8 InvocationCompleted, 9 ExecutionSucceeded',
      ),
    ),
  },
  '8-16': {
    runner: order(
      'items interleaved although maxConcurrency is 1 (every item started before the first ended); history: 2 ContextStarted, 3 ContextStarted parallel-branch-0, 4 ContextStarted parallel-branch-1, 5 ContextStarted parallel-branch-2, 6 ContextFailed parallel-branch-0, 7 ContextFailed parallel-branch-1, 8 ContextFailed parallel-branch-2, 9 ContextSucceeded, 10 InvocationCompleted, 11 ExecutionSucceeded',
    ),
    dynamodb: noInvocations(
      order(
        'items interleaved although maxConcurrency is 1 (every item started before the first ended); history: 2 ContextStarted, 3 ContextStarted parallel-branch-0, 4 ContextStarted parallel-branch-1, 5 ContextStarted parallel-branch-2, 6 ContextFailed parallel-branch-0, 7 ContextFailed parallel-branch-1, 8 ContextFailed parallel-branch-2, 9 ContextSucceeded, 10 InvocationCompleted, 11 ExecutionSucceeded',
      ),
    ),
  },
  '8-17': {
    runner: order(
      'items interleaved although maxConcurrency is 1 (every item started before the first ended); history: 2 ContextStarted, 3 ContextStarted parallel-branch-0, 4 ContextStarted parallel-branch-1, 5 ContextStarted parallel-branch-2, 6 ContextSucceeded parallel-branch-0, 7 ContextFailed parallel-branch-1, 8 ContextSucceeded parallel-branch-2, 9 ContextSucceeded, 10 InvocationCompleted, 11 ExecutionSucceeded',
    ),
    dynamodb: noInvocations(
      order(
        'items interleaved although maxConcurrency is 1 (every item started before the first ended); history: 2 ContextStarted, 3 ContextStarted parallel-branch-0, 4 ContextStarted parallel-branch-1, 5 ContextStarted parallel-branch-2, 6 ContextSucceeded parallel-branch-0, 7 ContextFailed parallel-branch-1, 8 ContextSucceeded parallel-branch-2, 9 ContextSucceeded, 10 InvocationCompleted, 11 ExecutionSucceeded',
      ),
    ),
  },
  '8-18': {
    runner: order(
      'items interleaved although maxConcurrency is 1 (every item started before the first ended); history: 2 ContextStarted, 3 ContextStarted parallel-branch-0, 4 ContextStarted parallel-branch-1, 5 ContextFailed parallel-branch-0, 6 ContextFailed parallel-branch-1, 7 ContextSucceeded, 8 InvocationCompleted, 9 ExecutionSucceeded',
    ),
    dynamodb: noInvocations(
      order(
        'items interleaved although maxConcurrency is 1 (every item started before the first ended); history: 2 ContextStarted, 3 ContextStarted parallel-branch-0, 4 ContextStarted parallel-branch-1, 5 ContextFailed parallel-branch-0, 6 ContextFailed parallel-branch-1, 7 ContextSucceeded, 8 InvocationCompleted, 9 ExecutionSucceeded',
      ),
    ),
  },
  '8-19': { dynamodb: noInvocations() },
  '8-20': {
    runner: order(
      'items interleaved although maxConcurrency is 1 (every item started before the first ended); history: 2 ContextStarted, 3 ContextStarted parallel-branch-0, 4 ContextStarted parallel-branch-1, 5 ContextStarted parallel-branch-2, 6 ContextSucceeded parallel-branch-0, 7 ContextFailed parallel-branch-1, 8 ContextSucceeded parallel-branch-2, 9 ContextSucceeded, 10 InvocationCompleted, 11 ExecutionSucceeded',
    ),
    dynamodb: noInvocations(
      order(
        'items interleaved although maxConcurrency is 1 (every item started before the first ended); history: 2 ContextStarted, 3 ContextStarted parallel-branch-0, 4 ContextStarted parallel-branch-1, 5 ContextStarted parallel-branch-2, 6 ContextSucceeded parallel-branch-0, 7 ContextFailed parallel-branch-1, 8 ContextSucceeded parallel-branch-2, 9 ContextSucceeded, 10 InvocationCompleted, 11 ExecutionSucceeded',
      ),
    ),
  },
  '8-21': {
    runner: order(
      'items interleaved although maxConcurrency is 1 (every item started before the first ended); history: 2 ContextStarted, 3 ContextStarted parallel-branch-0, 4 ContextStarted, 5 ContextStarted parallel-branch-0, 6 ContextStarted parallel-branch-1, 7 StepStarted, 8 StepStarted, 9 StepSucceeded, 10 StepSucceeded, 11 ContextSucceeded parallel-branch-0, 12 ContextSucceeded parallel-branch-1, 13 ContextSucceeded, 14 ContextSucceeded parallel-branch-0, 15 ContextSucceeded, 16 InvocationCompleted, 17 ExecutionSucceeded',
    ),
    dynamodb: noInvocations(
      order(
        'items interleaved although maxConcurrency is 1 (every item started before the first ended); history: 2 ContextStarted, 3 ContextStarted parallel-branch-0, 4 ContextStarted, 5 ContextStarted parallel-branch-0, 6 ContextStarted parallel-branch-1, 7 StepStarted, 8 StepStarted, 9 StepSucceeded, 10 StepSucceeded, 11 ContextSucceeded parallel-branch-0, 12 ContextSucceeded parallel-branch-1, 13 ContextSucceeded, 14 ContextSucceeded parallel-branch-0, 15 ContextSucceeded, 16 InvocationCompleted, 17 ExecutionSucceeded',
      ),
    ),
  },
  '8-22': {
    runner: order(
      'items interleaved although maxConcurrency is 1 (every item started before the first ended); history: 2 ContextStarted, 3 ContextStarted parallel-branch-0, 4 ContextStarted parallel-branch-1, 5 ContextStarted parallel-branch-2, 6 ContextStarted parallel-branch-3, 7 ContextFailed parallel-branch-0, 8 ContextSucceeded parallel-branch-1, 9 ContextSucceeded parallel-branch-2, 10 ContextSucceeded parallel-branch-3, 11 ContextSucceeded, 12 InvocationCompleted, 13 ExecutionSucceeded',
    ),
    dynamodb: noInvocations(
      order(
        'items interleaved although maxConcurrency is 1 (every item started before the first ended); history: 2 ContextStarted, 3 ContextStarted parallel-branch-0, 4 ContextStarted parallel-branch-1, 5 ContextStarted parallel-branch-2, 6 ContextStarted parallel-branch-3, 7 ContextFailed parallel-branch-0, 8 ContextSucceeded parallel-branch-1, 9 ContextSucceeded parallel-branch-2, 10 ContextSucceeded parallel-branch-3, 11 ContextSucceeded, 12 InvocationCompleted, 13 ExecutionSucceeded',
      ),
    ),
  },
  '9-1': {
    runner: order(
      'items interleaved although maxConcurrency is 1 (every item started before the first ended); history: 2 ContextStarted map, 3 ContextStarted map-item-0, 4 ContextStarted map-item-1, 5 StepStarted, 6 StepStarted, 7 StepSucceeded, 8 StepSucceeded, 9 ContextSucceeded map-item-0, 10 ContextSucceeded map-item-1, 11 ContextSucceeded map, 12 InvocationCompleted, 13 ExecutionSucceeded',
    ),
    dynamodb: noInvocations(
      order(
        'items interleaved although maxConcurrency is 1 (every item started before the first ended); history: 2 ContextStarted map, 3 ContextStarted map-item-0, 4 ContextStarted map-item-1, 5 StepStarted, 6 StepStarted, 7 StepSucceeded, 8 StepSucceeded, 9 ContextSucceeded map-item-0, 10 ContextSucceeded map-item-1, 11 ContextSucceeded map, 12 InvocationCompleted, 13 ExecutionSucceeded',
      ),
    ),
  },
  '9-2': {
    runner: order(
      'items interleaved although maxConcurrency is 1 (every item started before the first ended); history: 2 ContextStarted, 3 ContextStarted map-item-0, 4 ContextStarted map-item-1, 5 ContextSucceeded map-item-0, 6 ContextSucceeded map-item-1, 7 ContextSucceeded, 8 InvocationCompleted, 9 ExecutionSucceeded',
    ),
    dynamodb: noInvocations(
      order(
        'items interleaved although maxConcurrency is 1 (every item started before the first ended); history: 2 ContextStarted, 3 ContextStarted map-item-0, 4 ContextStarted map-item-1, 5 ContextSucceeded map-item-0, 6 ContextSucceeded map-item-1, 7 ContextSucceeded, 8 InvocationCompleted, 9 ExecutionSucceeded',
      ),
    ),
  },
  '9-3': {
    runner: order(
      'items interleaved although maxConcurrency is 1 (every item started before the first ended); history: 2 ContextStarted, 3 ContextStarted map-item-0, 4 ContextStarted map-item-1, 5 ContextStarted map-item-2, 6 ContextSucceeded map-item-0, 7 ContextSucceeded map-item-1, 8 ContextSucceeded map-item-2, 9 ContextSucceeded, 10 InvocationCompleted, 11 ExecutionSucceeded',
    ),
    dynamodb: noInvocations(
      order(
        'items interleaved although maxConcurrency is 1 (every item started before the first ended); history: 2 ContextStarted, 3 ContextStarted map-item-0, 4 ContextStarted map-item-1, 5 ContextStarted map-item-2, 6 ContextSucceeded map-item-0, 7 ContextSucceeded map-item-1, 8 ContextSucceeded map-item-2, 9 ContextSucceeded, 10 InvocationCompleted, 11 ExecutionSucceeded',
      ),
    ),
  },
  '9-4': { dynamodb: noInvocations() },
  '9-5': {
    runner: order(
      'items interleaved although maxConcurrency is 1 (every item started before the first ended); history: 2 ContextStarted, 3 ContextStarted map-item-0, 4 ContextStarted map-item-1, 5 ContextSucceeded map-item-0, 6 ContextFailed map-item-1, 7 ContextSucceeded, 8 InvocationCompleted, 9 ExecutionSucceeded',
    ),
    dynamodb: noInvocations(
      order(
        'items interleaved although maxConcurrency is 1 (every item started before the first ended); history: 2 ContextStarted, 3 ContextStarted map-item-0, 4 ContextStarted map-item-1, 5 ContextSucceeded map-item-0, 6 ContextFailed map-item-1, 7 ContextSucceeded, 8 InvocationCompleted, 9 ExecutionSucceeded',
      ),
    ),
  },
  '9-6': { dynamodb: noInvocations() },
  '9-7': {
    runner: order(
      'items interleaved although maxConcurrency is 1 (every item started before the first ended); history: 2 ContextStarted, 3 ContextStarted map-item-0, 4 ContextStarted map-item-1, 5 ContextSucceeded map-item-0, 6 ContextSucceeded map-item-1, 7 ContextSucceeded, 8 InvocationCompleted, 9 ExecutionSucceeded',
    ),
    dynamodb: noInvocations(
      order(
        'items interleaved although maxConcurrency is 1 (every item started before the first ended); history: 2 ContextStarted, 3 ContextStarted map-item-0, 4 ContextStarted map-item-1, 5 ContextSucceeded map-item-0, 6 ContextSucceeded map-item-1, 7 ContextSucceeded, 8 InvocationCompleted, 9 ExecutionSucceeded',
      ),
    ),
  },
  '9-8': {
    runner: order(
      'items interleaved although maxConcurrency is 1 (every item started before the first ended); history: 2 ContextStarted, 3 ContextStarted map-item-0, 4 ContextStarted map-item-1, 5 ContextStarted map-item-2, 6 ContextSucceeded map-item-0, 7 ContextFailed map-item-1, 8 ContextSucceeded map-item-2, 9 ContextSucceeded, 10 InvocationCompleted, 11 ExecutionSucceeded',
    ),
    dynamodb: noInvocations(
      order(
        'items interleaved although maxConcurrency is 1 (every item started before the first ended); history: 2 ContextStarted, 3 ContextStarted map-item-0, 4 ContextStarted map-item-1, 5 ContextStarted map-item-2, 6 ContextSucceeded map-item-0, 7 ContextFailed map-item-1, 8 ContextSucceeded map-item-2, 9 ContextSucceeded, 10 InvocationCompleted, 11 ExecutionSucceeded',
      ),
    ),
  },
  '9-9': {
    runner: order(
      'items interleaved although maxConcurrency is 1 (every item started before the first ended); history: 2 ContextStarted, 3 ContextStarted map-item-0, 4 ContextStarted map-item-1, 5 ContextFailed map-item-0, 6 ContextFailed map-item-1, 7 ContextSucceeded, 8 InvocationCompleted, 9 ExecutionSucceeded',
    ),
    dynamodb: noInvocations(
      order(
        'items interleaved although maxConcurrency is 1 (every item started before the first ended); history: 2 ContextStarted, 3 ContextStarted map-item-0, 4 ContextStarted map-item-1, 5 ContextFailed map-item-0, 6 ContextFailed map-item-1, 7 ContextSucceeded, 8 InvocationCompleted, 9 ExecutionSucceeded',
      ),
    ),
  },
  '9-10': {
    runner: order(
      'items interleaved although maxConcurrency is 1 (every item started before the first ended); history: 2 ContextStarted, 3 ContextStarted map-item-0, 4 ContextStarted map-item-1, 5 ContextFailed map-item-0, 6 ContextFailed map-item-1, 7 ContextSucceeded, 8 InvocationCompleted, 9 ExecutionSucceeded',
    ),
    dynamodb: noInvocations(
      order(
        'items interleaved although maxConcurrency is 1 (every item started before the first ended); history: 2 ContextStarted, 3 ContextStarted map-item-0, 4 ContextStarted map-item-1, 5 ContextFailed map-item-0, 6 ContextFailed map-item-1, 7 ContextSucceeded, 8 InvocationCompleted, 9 ExecutionSucceeded',
      ),
    ),
  },
  '9-12': {
    runner: order(
      'event 4 is StepStarted where StepSucceeded is due; history: 2 ContextStarted, 3 StepStarted, 4 StepStarted, 5 StepSucceeded, 6 StepSucceeded, 7 ContextSucceeded, 8 InvocationCompleted, 9 ExecutionSucceeded',
    ),
    dynamodb: noInvocations(
      order(
        'event 4 is StepStarted where StepSucceeded is due; history: 2 ContextStarted, 3 StepStarted, 4 StepStarted, 5 StepSucceeded, 6 StepSucceeded, 7 ContextSucceeded, 8 InvocationCompleted, 9 ExecutionSucceeded',
      ),
    ),
  },
  '9-13': {
    runner: order(
      'event 4 is ContextStarted where ContextSucceeded is due; history: 2 ContextStarted named-items, 3 ContextStarted item-1, 4 ContextStarted item-2, 5 ContextSucceeded item-1, 6 ContextSucceeded item-2, 7 ContextSucceeded named-items, 8 InvocationCompleted, 9 ExecutionSucceeded',
    ),
    dynamodb: noInvocations(
      order(
        'event 4 is ContextStarted where ContextSucceeded is due; history: 2 ContextStarted named-items, 3 ContextStarted item-1, 4 ContextStarted item-2, 5 ContextSucceeded item-1, 6 ContextSucceeded item-2, 7 ContextSucceeded named-items, 8 InvocationCompleted, 9 ExecutionSucceeded',
      ),
    ),
  },
  '9-14': {
    runner: order(
      'items interleaved although maxConcurrency is 1 (every item started before the first ended); history: 2 ContextStarted, 3 ContextStarted map-item-0, 4 ContextStarted map-item-1, 5 ContextSucceeded map-item-0, 6 ContextSucceeded map-item-1, 7 ContextSucceeded, 8 InvocationCompleted, 9 ExecutionSucceeded',
    ),
    dynamodb: noInvocations(
      order(
        'items interleaved although maxConcurrency is 1 (every item started before the first ended); history: 2 ContextStarted, 3 ContextStarted map-item-0, 4 ContextStarted map-item-1, 5 ContextSucceeded map-item-0, 6 ContextSucceeded map-item-1, 7 ContextSucceeded, 8 InvocationCompleted, 9 ExecutionSucceeded',
      ),
    ),
  },
  '9-15': {
    runner: order(
      'items interleaved although maxConcurrency is 1 (every item started before the first ended); history: 2 ContextStarted, 3 ContextStarted map-item-0, 4 ContextStarted map-item-1, 5 StepStarted, 6 WaitStarted, 7 StepSucceeded, 8 ContextSucceeded map-item-0, 9 InvocationCompleted, 10 WaitSucceeded, 11 StepStarted, 12 StepSucceeded, 13 ContextSucceeded map-item-1, 14 ContextSucceeded, 15 InvocationCompleted, 16 ExecutionSucceeded',
    ),
    dynamodb: noInvocations(
      order(
        'items interleaved although maxConcurrency is 1 (every item started before the first ended); history: 2 ContextStarted, 3 ContextStarted map-item-0, 4 ContextStarted map-item-1, 5 StepStarted, 6 WaitStarted, 7 StepSucceeded, 8 ContextSucceeded map-item-0, 9 InvocationCompleted, 10 WaitSucceeded, 11 StepStarted, 12 StepSucceeded, 13 ContextSucceeded map-item-1, 14 ContextSucceeded, 15 InvocationCompleted, 16 ExecutionSucceeded',
      ),
    ),
  },
  '9-16': {
    runner: order(
      'items interleaved although maxConcurrency is 1 (every item started before the first ended); history: 2 ContextStarted, 3 ContextStarted map-item-0, 4 ContextStarted map-item-1, 5 ContextStarted map-item-2, 6 ContextStarted map-item-3, 7 ContextSucceeded map-item-0, 8 ContextSucceeded map-item-1, 9 ContextSucceeded map-item-2, 10 ContextSucceeded map-item-3, 11 ContextSucceeded, 12 InvocationCompleted, 13 ExecutionSucceeded',
    ),
    dynamodb: noInvocations(
      order(
        'items interleaved although maxConcurrency is 1 (every item started before the first ended); history: 2 ContextStarted, 3 ContextStarted map-item-0, 4 ContextStarted map-item-1, 5 ContextStarted map-item-2, 6 ContextStarted map-item-3, 7 ContextSucceeded map-item-0, 8 ContextSucceeded map-item-1, 9 ContextSucceeded map-item-2, 10 ContextSucceeded map-item-3, 11 ContextSucceeded, 12 InvocationCompleted, 13 ExecutionSucceeded',
      ),
    ),
  },
  '9-17': {
    runner: order(
      'items interleaved although maxConcurrency is 1 (every item started before the first ended); history: 2 ContextStarted, 3 ContextStarted map-item-0, 4 ContextStarted map-item-1, 5 ContextSucceeded map-item-0, 6 ContextSucceeded map-item-1, 7 ContextSucceeded, 8 WaitStarted, 9 InvocationCompleted, 10 WaitSucceeded, 11 InvocationCompleted, 12 ExecutionSucceeded',
    ),
    dynamodb: noInvocations(
      order(
        'items interleaved although maxConcurrency is 1 (every item started before the first ended); history: 2 ContextStarted, 3 ContextStarted map-item-0, 4 ContextStarted map-item-1, 5 ContextSucceeded map-item-0, 6 ContextSucceeded map-item-1, 7 ContextSucceeded, 8 WaitStarted, 9 InvocationCompleted, 10 WaitSucceeded, 11 InvocationCompleted, 12 ExecutionSucceeded',
      ),
    ),
  },
  '9-18': {
    runner: order(
      'items interleaved although maxConcurrency is 1 (every item started before the first ended); history: 2 ContextStarted, 3 ContextStarted map-item-0, 4 ContextStarted map-item-1, 5 ContextSucceeded map-item-0, 6 ContextFailed map-item-1, 7 ContextSucceeded, 8 WaitStarted, 9 InvocationCompleted, 10 WaitSucceeded, 11 InvocationCompleted, 12 ExecutionSucceeded',
    ),
    dynamodb: noInvocations(
      order(
        'items interleaved although maxConcurrency is 1 (every item started before the first ended); history: 2 ContextStarted, 3 ContextStarted map-item-0, 4 ContextStarted map-item-1, 5 ContextSucceeded map-item-0, 6 ContextFailed map-item-1, 7 ContextSucceeded, 8 WaitStarted, 9 InvocationCompleted, 10 WaitSucceeded, 11 InvocationCompleted, 12 ExecutionSucceeded',
      ),
    ),
  },
  '9-19': {
    runner: order(
      'items interleaved although maxConcurrency is 1 (every item started before the first ended); history: 2 ContextStarted, 3 ContextStarted map-item-0, 4 ContextStarted map-item-1, 5 ContextSucceeded map-item-0, 6 ContextSucceeded map-item-1, 7 ContextSucceeded, 8 InvocationCompleted, 9 ExecutionSucceeded',
    ),
    dynamodb: noInvocations(
      order(
        'items interleaved although maxConcurrency is 1 (every item started before the first ended); history: 2 ContextStarted, 3 ContextStarted map-item-0, 4 ContextStarted map-item-1, 5 ContextSucceeded map-item-0, 6 ContextSucceeded map-item-1, 7 ContextSucceeded, 8 InvocationCompleted, 9 ExecutionSucceeded',
      ),
    ),
  },
  '9-20': {
    runner: order(
      'items interleaved although maxConcurrency is 1 (every item started before the first ended); history: 2 ContextStarted, 3 ContextStarted map-item-0, 4 ContextStarted map-item-1, 5 ContextSucceeded map-item-0, 6 ContextSucceeded map-item-1, 7 ContextSucceeded, 8 WaitStarted, 9 InvocationCompleted, 10 WaitSucceeded, 11 InvocationCompleted, 12 ExecutionSucceeded',
    ),
    dynamodb: noInvocations(
      order(
        'items interleaved although maxConcurrency is 1 (every item started before the first ended); history: 2 ContextStarted, 3 ContextStarted map-item-0, 4 ContextStarted map-item-1, 5 ContextSucceeded map-item-0, 6 ContextSucceeded map-item-1, 7 ContextSucceeded, 8 WaitStarted, 9 InvocationCompleted, 10 WaitSucceeded, 11 InvocationCompleted, 12 ExecutionSucceeded',
      ),
    ),
  },
  '10-1': { dynamodb: noInvocations() },
  '10-2': { dynamodb: noInvocations() },
  '10-3': {
    runner: attempt('event 6 CurrentAttempt 1 (wants 2)'),
    dynamodb: noInvocations(attempt('event 6 CurrentAttempt 1 (wants 2)')),
  },
  '10-4': { dynamodb: noInvocations() },
  '10-5': { dynamodb: noInvocations() },
  '10-6': { dynamodb: noInvocations() },
  '10-7': { dynamodb: noInvocations() },
  '10-8': {
    runner: pluginHooks('onOperationChange is never called for the step that succeeded (no operation-change record)'),
    dynamodb: noInvocations(
      pluginHooks('onOperationChange is never called for the step that succeeded (no operation-change record)'),
    ),
  },
  '10-9': { dynamodb: noInvocations() },
  '10-10': {
    runner: pluginHooks(
      'onOperationEnd is not called for a wait that ended between invocations (only operation-start is recorded)',
    ),
    dynamodb: noInvocations(
      pluginHooks(
        'onOperationEnd is not called for a wait that ended between invocations (only operation-start is recorded)',
      ),
    ),
  },
  '10-11': { dynamodb: noInvocations() },
  '10-12': {
    runner: order(
      'items interleaved although maxConcurrency is 1 (every item started before the first ended); history: 2 ContextStarted parallel, 3 ContextStarted parallel-branch-0, 4 ContextStarted parallel-branch-1, 5 ContextSucceeded parallel-branch-0, 6 ContextSucceeded parallel-branch-1, 7 ContextSucceeded parallel, 8 InvocationCompleted, 9 ExecutionSucceeded',
    ),
    dynamodb: noInvocations(
      order(
        'items interleaved although maxConcurrency is 1 (every item started before the first ended); history: 2 ContextStarted parallel, 3 ContextStarted parallel-branch-0, 4 ContextStarted parallel-branch-1, 5 ContextSucceeded parallel-branch-0, 6 ContextSucceeded parallel-branch-1, 7 ContextSucceeded parallel, 8 InvocationCompleted, 9 ExecutionSucceeded',
      ),
    ),
  },
  '10-13': {
    runner: attempt('event 8 CurrentAttempt 1 (wants 2)'),
    dynamodb: noInvocations(attempt('event 8 CurrentAttempt 1 (wants 2)')),
  },
  '10-14': { dynamodb: noInvocations() },
  '10-15': {
    runner: attempt('event 6 CurrentAttempt 1 (wants 2)'),
    dynamodb: noInvocations(attempt('event 6 CurrentAttempt 1 (wants 2)')),
  },
  '10-16': { dynamodb: noInvocations() },
  '10-17': { dynamodb: noInvocations() },
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
    dynamodb: noInvocations(
      pluginHooks('InvocationEndInfo has no isFirstInvocation (the requirement reads it from the end hook itself)'),
    ),
  },
  '10-20': {
    runner: pluginHooks("the step's operation-end info has no endTimestamp"),
    dynamodb: noInvocations(pluginHooks("the step's operation-end info has no endTimestamp")),
  },
  '10-21': {
    runner: attempt('event 6 CurrentAttempt 1 (wants 2)'),
    dynamodb: noInvocations(attempt('event 6 CurrentAttempt 1 (wants 2)')),
  },
  '10-22': {
    runner: pluginHooks('onOperationChange is never called for the step that succeeded'),
    dynamodb: noInvocations(pluginHooks('onOperationChange is never called for the step that succeeded')),
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
