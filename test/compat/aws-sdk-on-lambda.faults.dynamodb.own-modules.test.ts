/**
 * AWS's own SDK self-hosted "on Lambda", as in aws-sdk-on-lambda.dynamodb.test.ts, under what goes
 * wrong on AWS: a wake-up lost (the reconciler's Lambda handler finds the run), a backend fault
 * (thrown, so Lambda retries the event), a run started through an alias (it stays on it), and
 * the one-line form that builds its backend from the environment.
 */
import { createProductionBackend, createReconcilerHandler, selfHosted } from '@durable-lambda/aws';
import { runIdFor } from '@durable-lambda/engine';
import type { DurableBackend, DurableInvocation } from '@durable-lambda/protocol';
import { describe, expect, it } from 'vitest';
import { functionArn } from './aws-sdk-on-lambda.cloud';
import { eventually, result, useLambdaWorld } from './aws-sdk-on-lambda.world';

const world = useLambdaWorld();
const { cloud, deploy, ended, functionEnv, setEnv } = world;

describe("AWS's SDK self-hosted on Lambda, under faults", () => {
  it('finishes a run whose wake-up was lost, woken by the reconciler', async () => {
    deploy(
      'sleepy',
      world.aws.withDurableExecution(async (_event: unknown, ctx) => {
        await ctx.wait('nap', { seconds: 3 });
        return ctx.step('after', async () => 'awake');
      }),
    );
    // The wait's schedule is accepted by Scheduler and never fires.
    cloud.rule = ({ via, event }) =>
      via === 'schedule' && (event as { durableLambda?: unknown }).durableLambda ? 'drop' : undefined;
    const requestId = 'start-sleepy-1';
    await cloud.invoke('sleepy', {}, requestId);
    const runId = runIdFor(requestId);
    await eventually(() => (cloud.schedules.some((s) => s.name.includes('-due-')) ? true : undefined));
    const lost = cloud.schedules.find((s) => s.name.includes('-due-'));
    expect(lost?.dropped).toBe(true);
    cloud.rule = () => undefined;

    const reconciler = createReconcilerHandler({
      env: { ...functionEnv('reconciler'), DURABLE_RECONCILER_FUNCTIONS: '["sleepy"]' },
      graceMs: 0,
      write: () => {},
    });
    const context = {
      functionName: 'durable-reconciler',
      invokedFunctionArn: functionArn('durable-reconciler'),
      getRemainingTimeInMillis: () => 55_000,
    };
    let woken = 0;
    // The reconciler runs every minute on AWS; here until it has woken the run and the run ended.
    const until = Date.now() + 120_000;
    while ((await world.store.getRun(runId))?.status === 'RUNNING' && Date.now() < until) {
      woken += (await reconciler({}, context)).woken;
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
    const run = await ended(runId);
    expect(woken).toBeGreaterThanOrEqual(1);
    expect([run.status, result(run)]).toEqual(['SUCCEEDED', 'awake']);
  }, 180_000);

  it('keeps a run started through an alias on that alias: every wake-up targets the qualified ARN', async () => {
    deploy(
      'versioned',
      world.aws.withDurableExecution(async (_event: unknown, ctx) => {
        await ctx.step('before', async () => 'ok');
        await ctx.wait({ seconds: 3 });
        return ctx.step('after', async () => 'done');
      }),
    );
    const requestId = 'start-versioned-1';
    await cloud.invoke('versioned', {}, requestId, 'live');
    const run = await ended(runIdFor(requestId));
    expect([run.status, run.functionName, result(run)]).toEqual(['SUCCEEDED', 'versioned:live', 'done']);
    const woken = cloud.deliveries.filter((d) => d.requestId !== requestId);
    expect(woken.length).toBeGreaterThan(0);
    expect(new Set(woken.map((d) => d.arn))).toEqual(new Set([`${functionArn('versioned')}:live`]));
  }, 120_000);

  it('throws a backend fault so Lambda retries the event, and finishes the run', async () => {
    let failures = 1;
    const flaky = (inner: DurableBackend): DurableBackend => ({
      async open(event, context) {
        const opened = await inner.open(event, context);
        if (!opened.opened) return opened;
        const session = opened.opened;
        const invocation = session.invocation;
        // The store's first checkpoint write fails as a throttled DynamoDB request would.
        const faulty = new Proxy(invocation, {
          get(target, property) {
            if (property === 'checkpoint') {
              return async (...args: Parameters<DurableInvocation['checkpoint']>) => {
                if (failures-- > 0) {
                  throw Object.assign(new Error('Rate of requests exceeds the allowed throughput'), {
                    name: 'ThrottlingException',
                  });
                }
                return target.checkpoint(...args);
              };
            }
            const value = Reflect.get(target, property, target) as unknown;
            return typeof value === 'function' ? value.bind(target) : value;
          },
        });
        return {
          opened: { invocation: faulty, close: (output) => session.close(output), abort: (e) => session.abort(e) },
        };
      },
    });
    deploy(
      'flaky',
      world.aws.withDurableExecution(async (_event: unknown, ctx) => ctx.step('work', async () => 'done')),
      flaky,
    );
    const requestId = 'start-flaky-1';
    await cloud.invoke('flaky', {}, requestId);
    const run = await ended(runIdFor(requestId));
    expect([run.status, result(run)]).toEqual(['SUCCEEDED', 'done']);
    const delivery = cloud.deliveries.find((d) => d.requestId === requestId);
    // The first attempt threw (Lambda saw the failure), the retry with the same request id finished it.
    expect(delivery?.attempts).toBe(2);
    expect(failures).toBeLessThan(0);
  }, 120_000);

  it('builds its production backend from the environment without a config line', async () => {
    const env = functionEnv('plain');
    setEnv(env);
    try {
      // The one line a team on AWS's SDK writes.
      const handler = selfHosted(
        world.aws.withDurableExecution(async (event: { n: number }, ctx) =>
          ctx.step('double', async () => event.n * 2),
        ),
      );
      cloud.register('plain', handler);
      const requestId = 'start-plain-1';
      await cloud.invoke('plain', { n: 21 }, requestId);
      const run = await ended(runIdFor(requestId));
      expect([run.status, result(run)]).toEqual(['SUCCEEDED', 42]);
      // It is the container's production backend: the one createProductionBackend hands out.
      const backend = createProductionBackend(process.env);
      expect(backend.config.tableName).toBe(world.tableName);
      // Invoked unqualified, it ran on $LATEST, and is recorded there (it never runs on a version).
      expect(await backend.engine.getRun(run.runId)).toMatchObject({
        status: 'SUCCEEDED',
        functionName: 'plain:$LATEST',
      });
    } finally {
      for (const name of Object.keys(env)) {
        if (world.saved[name] === undefined) delete process.env[name];
        else process.env[name] = world.saved[name];
        delete world.saved[name];
      }
    }
  }, 120_000);
});
