/**
 * AWS's own SDK self-hosted "on Lambda": handlers wrapped by AWS's `withDurableExecution` and by
 * our `selfHosted`, each with the production backend of a deployed function (DynamoDbStore on
 * DynamoDB Local, a SchedulerWaker and a LambdaInvoker whose AWS clients talk to a fake Lambda and
 * Scheduler endpoint). Nothing drives the runs but what would on AWS: asynchronous invokes and
 * fired schedules delivered back to the handlers, our control API and CLI for callbacks, and the
 * reconciler's Lambda handler for a lost wake-up.
 */
import { runCli } from '@durable-lambda/cli';
import { runIdFor } from '@durable-lambda/engine';
import { describe, expect, it } from 'vitest';
import { eventually, result, useLambdaWorld } from './aws-sdk-on-lambda.world';

const world = useLambdaWorld();
const { cloud, deploy, controlApi, ended } = world;

describe("AWS's SDK self-hosted on Lambda (DynamoDB Local, faked Lambda and Scheduler)", () => {
  it('runs steps with retries, a wait and callbacks completed through our control API and our CLI', async () => {
    let attempts = 0;
    const callbackIds: string[] = [];
    deploy(
      'shop',
      world.aws.withDurableExecution(async (event: { order: string }, ctx) => {
        const charged = await ctx.step(
          'charge',
          async () => {
            attempts += 1;
            if (attempts < 3) throw new Error(`card network busy (${attempts})`);
            return `charged ${event.order}`;
          },
          { retryStrategy: (_error, attempt) => ({ shouldRetry: attempt < 5, delay: { seconds: 1 } }) },
        );
        // Longer than the Scheduler waker's immediate window: a real one-time schedule.
        await ctx.wait('cool-off', { seconds: 3 });
        // AWS's callbacks hand over the payload as sent (JSON text from our API and CLI).
        const approval = await ctx.waitForCallback<string>('approval', async (id) => {
          callbackIds.push(id);
        });
        const [signed, signature] = await ctx.createCallback<string>('signature');
        await ctx.step('ask-signature', async () => {
          callbackIds.push(signature);
        });
        let rejected: string | undefined;
        try {
          await ctx.waitForCallback<string>('audit', async (id) => {
            callbackIds.push(id);
          });
        } catch (error) {
          rejected = (error as Error).message;
        }
        return { charged, approval: JSON.parse(approval), signed: JSON.parse(await signed), rejected };
      }),
    );
    const { url, api } = await controlApi(['shop']);
    const started = await api.startRun({ function: 'shop', input: { order: 'o-1' } });
    const runId = started.run.runId;

    await api.succeedCallback(await eventually(() => callbackIds[0]), 'approved');
    const lines: string[] = [];
    const io = { out: (t: string) => lines.push(t), err: (t: string) => lines.push(t), env: {} };
    expect(
      await runCli(
        ['callback', 'succeed', await eventually(() => callbackIds[1]), '--result', '"ink"', '--url', url],
        io,
      ),
    ).toBe(0);
    await api.failCallback(await eventually(() => callbackIds[2]), { message: 'not audited', code: 'AuditFailed' });
    const run = await ended(runId);

    expect(run.status).toBe('SUCCEEDED');
    expect(result(run)).toEqual({
      charged: 'charged o-1',
      approval: 'approved',
      signed: 'ink',
      rejected: expect.stringContaining('not audited'),
    });
    expect(attempts).toBe(3);
    const ops = await world.store.loadOperations(runId);
    const byName = (name: string) => ops.find((op) => op.Name === name);
    expect(byName('charge')?.StepDetails?.FailedAttempts?.map((f) => f.Error.ErrorMessage)).toEqual([
      'card network busy (1)',
      'card network busy (2)',
    ]);
    const wait = byName('cool-off');
    expect(wait?.Status).toBe('SUCCEEDED');
    expect((wait?.EndTimestamp ?? 0) - (wait?.StartTimestamp ?? 0)).toBeGreaterThanOrEqual(3_000);
    expect(byName('approval')?.Status).toBe('SUCCEEDED');
    expect(byName('signature')?.Status).toBe('SUCCEEDED');
    // The wait was a real schedule, fired by Scheduler; the retries were immediate invokes.
    expect(cloud.schedules.some((s) => s.name.includes('-due-') && !s.dropped)).toBe(true);
    expect(cloud.deliveries.filter((d) => d.via === 'schedule').length).toBeGreaterThan(0);
    expect(cloud.deliveries.every((d) => d.error === undefined)).toBe(true);
  }, 180_000);

  it('completes a run whose callbacks all succeed, with its result', async () => {
    const callbackIds: string[] = [];
    deploy(
      'desk',
      world.aws.withDurableExecution(async (_event: unknown, ctx) => {
        const answer = await ctx.waitForCallback<string>('answer', async (id) => {
          callbackIds.push(id);
        });
        return { answer: JSON.parse(answer) as unknown };
      }),
    );
    const { url, api } = await controlApi(['desk']);
    const { run } = await api.startRun({ function: 'desk' });
    const io = { out: () => {}, err: () => {}, env: { DURABLE_API_URL: url } };
    expect(
      await runCli(['callback', 'succeed', await eventually(() => callbackIds[0]), '--result', '{"ok":true}'], io),
    ).toBe(0);
    const done = await ended(run.runId);
    expect([done.status, result(done)]).toEqual(['SUCCEEDED', { answer: { ok: true } }]);
    expect((await api.getRun(run.runId)).result).toEqual({ answer: { ok: true } });
  }, 120_000);

  it('chains invokes across two functions, with map, parallel and child contexts', async () => {
    deploy(
      'pricing',
      world.aws.withDurableExecution(async (event: { sku: string }, ctx) => {
        await ctx.wait({ seconds: 3 });
        return ctx.step('price', async () => event.sku.length * 10);
      }),
    );
    deploy(
      'orders',
      world.aws.withDurableExecution(async (event: { skus: string[] }, ctx) => {
        const first = await ctx.invoke<{ sku: string }, number>('price-first', 'pricing', { sku: event.skus[0] ?? '' });
        const mapped = await ctx.map('pack', event.skus, async (child, sku) =>
          child.step(`pack-${sku}`, async () => sku.toUpperCase()),
        );
        const both = await ctx.parallel('checks', [
          async (c) => c.step('fraud', async () => 'clean'),
          async (c) => {
            // Short enough that its end often passes before the invocation closes PENDING: the
            // engine then leaves the run due at once (session.close), never without a wake-up.
            await c.wait({ seconds: 1 });
            return c.step('stock', async () => 'in stock');
          },
        ]);
        const inner = await ctx.runInChildContext('ship', async (c) => {
          const label = await c.step('label', async () => `label-${first}`);
          return `${label}/shipped`;
        });
        return { first, packed: mapped.getResults(), checks: both.getResults(), inner };
      }),
    );
    // Started the way a client starts a self-hosted function: an asynchronous invoke of a plain event.
    const requestId = 'start-orders-1';
    await cloud.invoke('orders', { skus: ['ab', 'cde'] }, requestId);
    const run = await ended(runIdFor(requestId));

    expect([run.status, result(run)]).toEqual([
      'SUCCEEDED',
      { first: 20, packed: ['AB', 'CDE'], checks: ['clean', 'in stock'], inner: 'label-20/shipped' },
    ]);
    const children = (await world.store.loadOperations(run.runId)).filter((op) => op.Type === 'CHAINED_INVOKE');
    expect(children).toHaveLength(1);
    // The child ran as its own function, woken by its own schedule group's schedule.
    expect(cloud.deliveries.some((d) => d.functionName === 'pricing' && d.via === 'schedule')).toBe(true);
  }, 180_000);

  it('runs nothing twice when every wake-up and invoke is delivered twice', async () => {
    const executions = new Map<string, number>();
    const count = (name: string, value: string) => {
      executions.set(name, (executions.get(name) ?? 0) + 1);
      return value;
    };
    deploy(
      'twice',
      world.aws.withDurableExecution(async (_event: unknown, ctx) => {
        const a = await ctx.step('a', async () => count('a', 'A'));
        await ctx.wait({ seconds: 3 });
        const b = await ctx.step('b', async () => count('b', 'B'));
        return a + b;
      }),
    );
    cloud.rule = () => 'twice';
    const requestId = 'start-twice-1';
    // The start event itself arrives twice (Lambda's at-least-once delivery).
    await Promise.all([cloud.invoke('twice', {}, requestId), cloud.invoke('twice', {}, requestId)]);
    const run = await ended(runIdFor(requestId));

    expect([run.status, result(run)]).toEqual(['SUCCEEDED', 'AB']);
    expect(Object.fromEntries(executions)).toEqual({ a: 1, b: 1 });
    expect(cloud.deliveries.filter((d) => d.via === 'schedule').length).toBeGreaterThanOrEqual(2);
    expect(cloud.deliveries.every((d) => d.error === undefined)).toBe(true);
  }, 120_000);
});
