import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import {
  LocalDurableTestRunner,
  parseRecordedRun,
  type RecordedRun,
  RecordedRunError,
  WaitingOperationStatus,
} from '@durable-lambda/local';
import type { DurableLambdaHandler } from '@durable-lambda/sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fakeApprovalServices, sampleRequest } from '../../examples/approval/fakes';
import { createApprovalHandler } from '../../examples/approval/handler';
import { fakeCheckoutServices, sampleOrder } from '../../examples/checkout/fakes';
import { handler as checkoutHandler, createCheckoutHandler } from '../../examples/checkout/handler';
import { importAwsSdk } from '../support/aws-sdk';
import { handlerCopy, removeHandlerCopies } from '../support/replay-handler-copies';

const START = Date.UTC(2025, 0, 6, 9, 0, 0);
const here = dirname(fileURLToPath(import.meta.url));

/** The `handler` export of a modified copy of examples/checkout/handler.ts. */
async function checkoutCopy(name: string, edits: ReadonlyArray<readonly [string, string]>) {
  const file = handlerCopy('checkout', name, edits);
  return ((await import(pathToFileURL(file).href)) as { handler: DurableLambdaHandler }).handler;
}

/** A runner over `handler`, used only to replay (nothing runs on it). */
const replayer = (handler: DurableLambdaHandler) => new LocalDurableTestRunner({ handlerFunction: handler });

let finished: RecordedRun;

beforeAll(async () => {
  // A real run of the example with the current code, recorded by the runner.
  const runner = new LocalDurableTestRunner({
    handlerFunction: createCheckoutHandler(fakeCheckoutServices().services),
    functionName: 'checkout',
    startTime: START,
  });
  expect((await runner.run({ payload: sampleOrder() })).getStatus()).toBe('SUCCEEDED');
  finished = await runner.exportRun();
});

afterAll(() => removeHandlerCopies());

describe('replaying a recorded run of examples/checkout', () => {
  it('replays cleanly to its end on the code that recorded it, without running a step', async () => {
    // The deployed export: its step bodies would call HTTP services that are not there.
    const report = await replayer(checkoutHandler).replay(finished);
    expect(report).toMatchObject({ outcome: 'clean', reached: 'end', recordedStatus: 'SUCCEEDED' });
    expect(report.resultChanged).toBeUndefined();
  });

  it('passes a compatible change: other code inside a step body and a new log line', async () => {
    const handler = await checkoutCopy('compatible', [
      ['() => validateOrder(order)', '() => { console.log("validating"); return validateOrder(order); }'],
      [
        'const { orderId } = order;',
        "const { orderId } = order;\n    ctx.logger.info('order validated', { orderId });",
      ],
    ]);
    expect((await replayer(handler).replay(finished)).outcome).toBe('clean');
  });

  it('catches a renamed step, naming the recorded operation and the one the code asked for', async () => {
    const handler = await checkoutCopy('renamed', [["ctx.step('reserve-stock'", "ctx.step('reserve-inventory'"]]);
    const report = await replayer(handler).replay(JSON.stringify(finished));
    expect(report.outcome).toBe('non_deterministic');
    expect(report.divergence).toMatchObject({
      code: 'non_deterministic',
      kind: 'name',
      recorded: { type: 'STEP', name: 'reserve-stock', position: 2, context: 'root', status: 'SUCCEEDED' },
      asked: { type: 'STEP', name: 'reserve-inventory', position: 2, context: 'root' },
    });
    expect(report.divergence?.message).toContain('"reserve-stock"');
    expect(report.divergence?.message).toContain('"reserve-inventory"');
  });

  it('catches two operations swapped (the check moved before the wait), with both names', async () => {
    const handler = await checkoutCopy('reordered', [
      [
        "await ctx.wait('cancellation-window', CANCELLATION_WINDOW);\n\n    if (await ctx.step('check-cancellation', () => services.orders.isCancelled(orderId))) {",
        "const cancelled = await ctx.step('check-cancellation', () => services.orders.isCancelled(orderId));\n    await ctx.wait('cancellation-window', CANCELLATION_WINDOW);\n    if (cancelled) {",
      ],
    ]);
    const report = await replayer(handler).replay(finished);
    expect(report.divergence).toMatchObject({
      kind: 'type',
      recorded: { type: 'WAIT', name: 'cancellation-window', position: 4 },
      // Found by replaying again without the record there: AWS's message names only the type.
      asked: { type: 'STEP', name: 'check-cancellation', position: 4 },
    });
  });

  it('catches new work after the end of a finished run', async () => {
    const handler = await checkoutCopy('extra-step', [
      [
        "return { status: 'confirmed', orderId, chargeId, amountCents };",
        "await ctx.step('audit', async () => 1);\n    return { status: 'confirmed', orderId, chargeId, amountCents };",
      ],
    ]);
    const report = await replayer(handler).replay(finished);
    expect(report.divergence).toMatchObject({ kind: 'unexpected', asked: { type: 'STEP', name: 'audit' } });
    expect(report.divergence?.recorded).toBeUndefined();
  });

  it('replays the committed old history (a run in flight, written by `durable export`) and catches code that skips its wait', async () => {
    const old = readFileSync(join(here, 'fixtures/recorded-checkout-v1.json'), 'utf8');
    // A checkout recorded waiting out its cancellation window: clean up to that wait.
    expect(await replayer(checkoutHandler).replay(old)).toMatchObject({ outcome: 'clean', reached: 'frontier' });

    // New code that no longer waits: the run in flight would finish without the wait it is in.
    const early = await checkoutCopy('no-window', [
      [
        "await ctx.wait('cancellation-window', CANCELLATION_WINDOW);",
        "return { status: 'confirmed', orderId, chargeId, amountCents };",
      ],
    ]);
    const report = await replayer(early).replay(old);
    expect(report.divergence).toMatchObject({
      kind: 'missing',
      recorded: { type: 'WAIT', name: 'cancellation-window', status: 'STARTED', position: 4 },
    });
    expect(report.divergence?.asked).toBeUndefined();
  });

  it('tells a step inserted before where a run stands (diverges) from the same change behind patched() (clean)', async () => {
    const old = readFileSync(join(here, 'fixtures/recorded-checkout-v1.json'), 'utf8');
    const wait = "await ctx.wait('cancellation-window', CANCELLATION_WINDOW);";
    const inserted = await checkoutCopy('fraud-check', [
      [wait, `await ctx.step('fraud-check', async () => true);\n    ${wait}`],
    ]);
    const patched = await checkoutCopy('fraud-check-patched', [
      [wait, `if (ctx.patched('fraud-check')) await ctx.step('fraud-check', async () => true);\n    ${wait}`],
    ]);
    expect((await replayer(inserted).replay(old)).divergence).toMatchObject({
      kind: 'type',
      recorded: { type: 'WAIT', name: 'cancellation-window', position: 4 },
      asked: { type: 'STEP', name: 'fraud-check', position: 4 },
    });
    expect(await replayer(patched).replay(old)).toMatchObject({ outcome: 'clean', reached: 'frontier' });
  });
});

describe('replaying a run in flight', () => {
  it('replays up to where it stands (a callback), running nothing again', async () => {
    const fakes = fakeApprovalServices();
    const handler = createApprovalHandler(fakes.services);
    const runner = new LocalDurableTestRunner({ handlerFunction: handler, startTime: START });
    const running = runner.run({ payload: sampleRequest() });
    const approval = await runner.getOperation('approval').waitForData(WaitingOperationStatus.STARTED);
    await runner.getOperation('send-reminder').waitForData(WaitingOperationStatus.COMPLETED);
    const inFlight = await runner.exportRun();
    await approval.sendCallbackSuccess(JSON.stringify({ approvedBy: 'bob@example.com' }));
    await running;

    expect(inFlight.run.status).toBe('RUNNING');
    const sent = fakes.mailer.sent.length;
    const report = await replayer(createApprovalHandler(fakes.services)).replay(inFlight);
    expect(report).toMatchObject({ outcome: 'clean', reached: 'frontier' });
    // Nothing ran again: no mail went out during the replay.
    expect(fakes.mailer.sent.length).toBe(sent);
  });
});

describe('reading an exported run', () => {
  it('names the field and a stable code for a bad file', () => {
    const bad = structuredClone(finished) as unknown as { operations: Array<Record<string, unknown>> };
    (bad.operations[1] as Record<string, unknown>).Type = 'SPEP';
    const error = (() => {
      try {
        parseRecordedRun(bad);
      } catch (e) {
        return e as RecordedRunError;
      }
    })();
    expect(error).toBeInstanceOf(RecordedRunError);
    expect(error).toMatchObject({ code: 'invalid_recorded_run', field: 'operations[1].Type' });
    expect(() => parseRecordedRun({ ...finished, version: 2 })).toThrow(
      expect.objectContaining({ code: 'unsupported_recorded_run_version', field: 'version' }),
    );
  });
});

type Ctx = {
  step(name: string, fn: () => Promise<unknown>): Promise<unknown>;
  wait(name: string, duration: { seconds: number }): Promise<void>;
};

/** A handler on AWS's own SDK: two steps around a wait, the second's name given. */
async function awsHandler(second: string) {
  const aws = await importAwsSdk();
  const wrap = aws.withDurableExecution as unknown as (fn: (event: unknown, ctx: Ctx) => Promise<unknown>) => never;
  return wrap(async (_event, ctx) => {
    const a = await ctx.step('first', async () => 1);
    await ctx.wait('pause', { seconds: 30 });
    return [a, await ctx.step(second, async () => 2)];
  });
}

describe('replaying a run of a handler on AWS SDK', () => {
  it('is clean on the same code, and names both operations of a renamed step (AWS stores hashed ids)', async () => {
    const runner = new LocalDurableTestRunner({ handlerFunction: await awsHandler('second') });
    expect((await runner.run()).getStatus()).toBe('SUCCEEDED');
    const recorded = await runner.exportRun();

    const same = await new LocalDurableTestRunner({ handlerFunction: await awsHandler('second') }).replay(recorded);
    expect(same.outcome).toBe('clean');
    const renamed = await new LocalDurableTestRunner({ handlerFunction: await awsHandler('other') }).replay(recorded);
    expect(renamed.divergence).toMatchObject({
      kind: 'name',
      recorded: { name: 'second', position: 3 },
      asked: { name: 'other', position: 3 },
    });
  });
});
