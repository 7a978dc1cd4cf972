/**
 * For comparison only (not part of `npm test`; run with `CONFORMANCE_AWS_RUNNER=1 npx vitest run
 * test/conformance/aws-runner-comparison.test.ts`): the same requirements, with the same handler
 * functions wrapped by AWS's SDK 2.4.0 and run on AWS's `LocalDurableTestRunner` 1.1.4 with time
 * skipped, matched against the same expectations. Prints how many pass per suite.
 *
 * AWS's runner fakes the global timers, so each requirement runs in its own test environment. Its
 * callbacks are completed as a user's test does it there: once the callback's operation exists
 * (`waitForData`), with no wait for the invocation to suspend.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { type AwsDurableTesting, importAwsTesting } from '../compat/dual/harness/load-aws-testing';
import { type AwsDurableSdk, importAwsSdk } from '../support/aws-sdk';
import { validatorJson } from './harness/callback-actions';
import { sourceOf } from './harness/durable';
import { matchLogs } from './harness/log-match';
import { clearLog, readLog } from './harness/log-stream';
import { type ActualEvent, Bindings, matchHistory, matchOutcome } from './harness/match';
import type { CallbackAction, Requirement } from './harness/requirement';
import { NOT_LOCAL } from './not-local';
import { SUITES } from './suites';

type AwsRunner = InstanceType<AwsDurableTesting['LocalDurableTestRunner']>;
type AwsOperation = ReturnType<AwsRunner['getOperationByIndex']>;

const lines: string[] = [];

/** The suite handler wrapped by AWS's SDK instead of ours. */
function rewrap(aws: AwsDurableSdk, handler: object) {
  const source = sourceOf(handler);
  if (!source) throw new Error('a suite handler not made with the harness withDurableExecution');
  return aws.withDurableExecution(source.fn as never, source.config as never);
}

function nameMatches(wanted: string | RegExp, name: string, bindings: Bindings): boolean {
  if (wanted instanceof RegExp) return wanted.test(name);
  const resolved = bindings.substitute(wanted);
  return resolved === '*' || resolved === name;
}

async function send(op: AwsOperation, action: CallbackAction, bindings: Bindings): Promise<void> {
  const payload = bindings.substitute(action.payload);
  if (action.send === 'heartbeat') await op.sendCallbackHeartbeat();
  else if (action.send === 'success')
    await op.sendCallbackSuccess(payload === undefined ? undefined : validatorJson(payload));
  else await op.sendCallbackFailure(payload as never);
}

/** Completes the requirement's callbacks as they appear, in the order the operations appear. */
async function driveCallbacks(runner: AwsRunner, actions: readonly CallbackAction[], bindings: Bindings) {
  const used = new Set<number>();
  for (let index = 0; used.size < actions.length; index += 1) {
    const op = await runner
      .getOperationByIndex(index)
      .waitForData()
      .catch(() => undefined);
    if (!op) return;
    const waitsForCallback = op.getType() === 'CONTEXT' && op.getSubType() === 'WaitForCallback';
    // A waitForCallback's inner callback has no name: it is completed through its context.
    if (!waitsForCallback && (op.getType() !== 'CALLBACK' || !op.getName())) continue;
    const name = op.getName() ?? '';
    for (;;) {
      const at = actions.findIndex((action, i) => !used.has(i) && nameMatches(action.name, name, bindings));
      const action = actions[at];
      if (!action) break;
      used.add(at);
      await send(op, action, bindings).catch(() => {});
      if (action.send !== 'heartbeat') break;
    }
  }
}

async function runOnAwsRunner(req: Requirement, aws: AwsDurableSdk, testing: AwsDurableTesting): Promise<string[]> {
  const bindings = new Bindings(req.vars);
  await testing.LocalDurableTestRunner.setupTestEnvironment({ skipTime: true });
  try {
    const runner = new testing.LocalDurableTestRunner({ handlerFunction: rewrap(aws, req.handler) });
    for (const [name, fn] of Object.entries(req.functions ?? {})) runner.registerDurableFunction(name, rewrap(aws, fn));
    clearLog();
    const running = runner.run({ payload: bindings.substitute(req.input) });
    running.catch(() => {});
    await driveCallbacks(runner, req.callbacks ?? [], bindings);
    const result = await running;
    const log = readLog();
    const status = String(result.getStatus());
    let text: string | undefined;
    if (status === 'SUCCEEDED') {
      const value = result.getResult();
      text = value === undefined ? undefined : JSON.stringify(value);
    }
    return [
      ...matchHistory(req.history, result.getHistoryEvents() as unknown as ActualEvent[], bindings),
      ...matchOutcome(req.expect, { status, ...(text === undefined ? {} : { result: text }) }, bindings),
      ...matchLogs(req.logs ?? [], log, bindings),
    ];
  } catch (error) {
    return [`threw: ${String(error)}`];
  } finally {
    await testing.LocalDurableTestRunner.teardownTestEnvironment();
  }
}

describe.skipIf(!process.env.CONFORMANCE_AWS_RUNNER)("conformance requirements on AWS's runner (comparison)", () => {
  afterAll(() => {
    for (const line of lines) console.log(line);
  });
  for (const suite of SUITES) {
    it(`${suite.name} suite`, async () => {
      const [aws, testing] = await Promise.all([importAwsSdk(), importAwsTesting()]);
      let passed = 0;
      const failed: string[] = [];
      const runnable = suite.requirements.filter((req) => !(req.id in NOT_LOCAL));
      for (const req of runnable) {
        const problems = await runOnAwsRunner(req, aws, testing);
        if (problems.length === 0) passed += 1;
        else failed.push(`${req.id}: ${problems.slice(0, 2).join('; ')}`);
      }
      lines.push(
        `conformance ${suite.name}: AWS's runner (SDK 2.4.0, testing 1.1.4) passes ${passed}/${runnable.length}`,
      );
      if (process.env.CONFORMANCE_AWS_RUNNER === 'verbose') lines.push(...failed.map((f) => `  ${f}`));
      expect(passed + failed.length).toBe(runnable.length);
    }, 300_000);
  }
});
