/**
 * The deploy world: one durable function deployed as AWS runs it, through the production backend
 * (`ProductionBackend` with its pinning engine and store, its wakers and wake-up receiver), the
 * control API's engine and the reconciler, on a simulated Lambda, SQS and Scheduler (`sim-cloud`)
 * in virtual time. Runs start through the alias, through the control API (pinned on their first
 * invocation), opted out of pinning (`$LATEST`), or on `$LATEST` directly; new versions are deployed
 * at random times while they run (the alias moves, sometimes back), old versions are kept or
 * deleted; events come twice or never, queue messages early, late, twice or never, processes die
 * between any two store calls, and pin writes fail.
 *
 * Every step body records where it ran (the container's qualifier and version), so the checks can
 * hold each run to the qualifier it is recorded with.
 */
import { createControlApi } from '@durable-lambda/api';
import { LambdaInvoker, ProductionBackend, readProductionConfig, type VersionPinning } from '@durable-lambda/aws';
import { type RunRecord, runIdFor } from '@durable-lambda/engine';
import type { LambdaContextLike, Operation } from '@durable-lambda/protocol';
import { type DurableContext, type RetryPolicy, type StepContext, withDurableExecution } from '@durable-lambda/sdk';
import { functionTarget } from '../../../packages/cdk/src/runtime/control-api-config';
import { AliasStartingEngine, immediateInvokeWaker } from '../../../packages/cdk/src/runtime/control-api-engine';
import { mulberry32 } from '../../support/seeded-random';
import { type ContainerFaults, faultyStore, InjectedStoreFault, NO_FAULTS, type StoreKit } from './container-stores';
import { type CloudFaults, type Container, ProcessKilled, SimCloud, SimFunction, unqualifiedArn } from './sim-cloud';
import { Dice, SimTime } from './sim-time';

/** One execution of a step body, and where it ran. */
export interface StepExecution {
  runId: string;
  operationId: string;
  step: string;
  attempt: number;
  idempotencyKey: string;
  container: Container;
  at: number;
}

/** A run the world started, and how. */
export interface StartedRun {
  tag: string;
  how: 'alias invoke' | 'control API' | 'control API, latest' | '$LATEST invoke';
  runId: string;
  payload: string;
}

/** Rates of the container faults. */
export interface ContainerFaultRates {
  /** An invocation's process dies, between two store calls. */
  kill: number;
  /** A store call refused or its answer lost (each). */
  storeCall: number;
  /** The pin write of a first lease refused or its answer lost (each). */
  pinWrite: number;
}

/** The fault mix of the deploy suites. */
export const DEPLOY_FAULTS: { cloud: CloudFaults; containers: ContainerFaultRates; race: number } = {
  cloud: {
    throttle: 0.03,
    lostResponse: 0.03,
    eventTwice: 0.15,
    eventDropped: 0.05,
    messageEarly: 0.1,
    messageLate: 0.1,
    messageTwice: 0.1,
    messageLost: 0.05,
    scheduleLate: 0.1,
    startAgainAtWake: 0.15,
    wakeThroughAlias: 0.15,
  },
  containers: { kill: 0.04, storeCall: 0.005, pinWrite: 0.2 },
  race: 0.05,
};

/** Everything one seed's world did, for the checks. */
export interface DeployEvidence {
  seed: number;
  policy: VersionPinning;
  functionName: string;
  fn: SimFunction;
  cloud: SimCloud;
  runs: StartedRun[];
  /** The runs as stored at the end (by run id). */
  finals: Map<string, RunRecord | undefined>;
  executions: StepExecution[];
  /** Callback id to the payload the outside completes it with. */
  callbacks: Map<string, string>;
  /** Callback completions the control API accepted, by id. */
  completions: Map<string, number>;
  /** Versions deleted, with when. */
  deletions: Array<{ version: string; at: number; careless: boolean }>;
  deploys: Array<{ version: string; alias: string; at: number }>;
  outcome: 'done' | 'idle' | 'timeout';
  /** Errors of the world itself (a task that threw, an API answer not expected). */
  worldErrors: string[];
  /** Faults injected in containers, by kind. */
  containerFaults: Record<string, number>;
  /** Each run's operations at the end. */
  operations: Map<string, Operation[]>;
}

const START = Date.UTC(2031, 0, 1);
const DAY = 86_400_000;
/** Enough attempts that injected deaths never exhaust a step. */
const RETRY: RetryPolicy = { maxAttempts: 40, initialMs: 3_000, maxMs: 3_000, jitter: 'NONE' };
const QUEUE_URL = 'https://sqs.us-east-1.amazonaws.com/123456789012/orders-wake-ups';

/** Whether `error` (or one of its causes) is a fault the world injected. */
export function isInjected(error: unknown): boolean {
  for (let e = error, depth = 0; e && depth < 10; e = (e as { cause?: unknown }).cause, depth++) {
    if (e instanceof ProcessKilled || e instanceof InjectedStoreFault) return true;
    const name = (e as { name?: unknown }).name;
    if (name === 'TooManyRequestsException' || name === 'ThrottlingException' || name === 'TimeoutError') return true;
  }
  return false;
}

/** Options of one seed. */
export interface DeploySeedOptions {
  kit: (clock: SimTime['clock']) => StoreKit;
  faults?: typeof DEPLOY_FAULTS;
  /**
   * Virtual ms between the reconciler's passes. Default 120,000 (the construct's default period); a
   * pass reads every shard of the DynamoDB store's due index, so the DynamoDB suite passes less often.
   */
  reconcilePeriodMs?: number;
}

/** Runs one seed's world to its end and returns what happened. */
export async function runDeployWorld(seed: number, options: DeploySeedOptions): Promise<DeployEvidence> {
  const rates = options.faults ?? DEPLOY_FAULTS;
  const dice = new Dice(mulberry32(seed * 2_654_435_761));
  const policy: VersionPinning = dice.chance(0.7) ? 'version' : dice.pick(['alias', 'latest'] as const);
  const careless = dice.chance(0.1);
  const time = new SimTime(START + (seed % 10_000) * 30 * DAY, dice, rates.race);
  const kit = options.kit(time.clock);
  const cloud = new SimCloud(time, dice, rates.cloud, isInjected);
  const functionName = `orders-${seed}`;
  const worldErrors: string[] = [];
  const executions: StepExecution[] = [];
  const callbacks = new Map<string, string>();
  const completions = new Map<string, number>();
  const containerFaults: Record<string, number> = {};
  const tally = (kind: string) => {
    containerFaults[kind] = (containerFaults[kind] ?? 0) + 1;
  };
  const config = readProductionConfig({
    DURABLE_TABLE_NAME: 'durable-chaos-deploys',
    DURABLE_SCHEDULE_GROUP: 'durable-orders',
    DURABLE_SCHEDULER_ROLE_ARN: `arn:aws:iam::123456789012:role/durable-orders-scheduler`,
    DURABLE_WAKE_QUEUE_URL: QUEUE_URL,
    AWS_REGION: 'us-east-1',
  });
  // The construct's aliases: runs start on `live` (not under `latest`), the reconciler wakes a run
  // not pinned yet through it, the wake-up queue feeds it (`$LATEST` under `latest`).
  const startsOnAlias = policy !== 'latest';
  const aliases: Record<string, string> = startsOnAlias ? { [functionName]: 'live' } : {};

  /** The outside hands a callback id out; it completes it (once, retried until accepted) later. */
  const handOut = (callbackId: string, payload: string) => {
    if (callbacks.has(callbackId)) return;
    callbacks.set(callbackId, payload);
    const key = `cb-${callbackId}`;
    const complete = async (attempt: number): Promise<void> => {
      const answer = await api.handle({
        method: 'POST',
        path: `/v1/callbacks/${encodeURIComponent(callbackId)}/succeed`,
        headers: { 'content-type': 'application/json', 'idempotency-key': key },
        body: JSON.stringify({ result: payload }),
      });
      if (answer.status === 200) {
        completions.set(callbackId, (completions.get(callbackId) ?? 0) + 1);
        return;
      }
      if (attempt < 20) time.after(30_000, `complete ${callbackId} again`, () => complete(attempt + 1));
      else worldErrors.push(`callback ${callbackId} never accepted: ${answer.status} ${answer.body}`);
    };
    time.after(dice.between(1_000, 30 * 60_000), `complete ${callbackId}`, () => complete(1));
  };

  /** The function's code, as published version `code` runs it in `container`. */
  const workflow = (container: Container) => {
    const body =
      (step: string, failures = 0) =>
      async (context: StepContext): Promise<string> => {
        const key = context.idempotencyKey;
        const runId = key.slice(0, key.indexOf(':'));
        executions.push({
          runId,
          operationId: key.slice(key.indexOf(':') + 1, key.lastIndexOf(':')),
          step,
          attempt: context.attempt,
          idempotencyKey: key,
          container,
          at: time.now(),
        });
        if (context.attempt <= failures) throw new Error(`planned failure of ${step}`);
        return `${step} by ${container.code}`;
      };
    return async (input: { tag: string }, ctx: DurableContext) => {
      const quote = await ctx.step('quote', body('quote'), { retry: RETRY });
      await ctx.wait('short', { minutes: 3 });
      const approval = await ctx.waitForCallback<string>(
        'approve',
        async (callbackId, step) => {
          await body('approve-submit')(step);
          handOut(callbackId, `ok-${input.tag}`);
        },
        { retryStrategy: () => ({ shouldRetry: true, delay: { seconds: 3 } }) },
      );
      // Fails its first attempt: its retry waits 3 s on the wake-up queue.
      const charged = await ctx.step('charge', body('charge', 1), { retry: RETRY });
      await ctx.wait('long', { minutes: 20 });
      const finish = await ctx.step('finish', body('finish'), { retry: RETRY });
      return { quote, approval, charged, finish };
    };
  };

  /** A container's faults: maybe a death between two store calls, rare refused or lost calls. */
  const faultsOfContainer = (): ContainerFaults => {
    let alive = true;
    const killAt = dice.chance(rates.containers.kill) ? dice.between(1, 14) : Number.POSITIVE_INFINITY;
    let calls = 0;
    return {
      alive: () => alive,
      beforeCall: () => {
        calls += 1;
        if (alive && calls >= killAt) {
          alive = false;
          tally('process killed');
        }
      },
      storeFault: () => {
        if (dice.chance(rates.containers.storeCall)) {
          tally('store call refused');
          return 'throw';
        }
        if (dice.chance(rates.containers.storeCall)) {
          tally('store answer lost');
          return 'lost';
        }
        return undefined;
      },
      pinWriteFault: () => {
        if (dice.chance(rates.containers.pinWrite)) {
          tally('pin write refused');
          return 'throw';
        }
        if (dice.chance(rates.containers.pinWrite)) {
          tally('pin write answer lost');
          return 'lost';
        }
        return undefined;
      },
    };
  };

  const fn = new SimFunction(functionName, async (event: unknown, context: LambdaContextLike, container) => {
    const faults = faultsOfContainer();
    const backend = new ProductionBackend(
      config,
      {},
      { pinning: policy, aliases: {} },
      {},
      {
        clock: time.clock,
        sleep: time.sleep,
        lambda: cloud.lambdaClient(faults.alive),
        sqs: cloud.sqsClient(faults.alive),
        scheduler: cloud.schedulerClient(faults.alive),
        store: faultyStore(kit.container(policy, faults), faults),
      },
    );
    const handler = withDurableExecution(workflow(container), { backend, inProcessWaitMs: 0, logSink: () => {} });
    return (handler as (e: unknown, c: LambdaContextLike) => Promise<unknown>)(event, context);
  });
  cloud.add(fn);
  cloud.queueTarget = startsOnAlias ? { functionName, qualifier: 'live' } : { functionName };
  const deploys: DeployEvidence['deploys'] = [];
  const first = fn.publish('v1');
  fn.aliases.set('live', first);
  deploys.push({ version: first, alias: first, at: time.now() });

  // The control API (the DurableApi's entry: its engine and waker), over the shared table.
  const apiInvoker = new LambdaInvoker({
    client: cloud.lambdaClient(),
    targetArn: (name) => functionTarget({ [functionName]: unqualifiedArn(functionName) }, name),
  });
  const apiEngine = new AliasStartingEngine({
    aliases,
    store: kit.shared,
    clock: time.clock,
    invoker: apiInvoker,
    waker: immediateInvokeWaker(apiInvoker, time.clock, time.sleep),
  });
  const api = createControlApi({
    engine: apiEngine,
    functions: [functionName],
    invoker: apiInvoker,
    onError: (error) => {
      if (!isInjected(error)) worldErrors.push(`control API: ${error instanceof Error ? error.stack : String(error)}`);
    },
  });

  // The reconciler (its own backend, bound to its own ARN), every two minutes by default.
  const period = options.reconcilePeriodMs ?? 120_000;
  const reconciler = new ProductionBackend(
    config,
    {},
    { pinning: 'version', aliases },
    {},
    {
      clock: time.clock,
      sleep: time.sleep,
      lambda: cloud.lambdaClient(),
      sqs: cloud.sqsClient(),
      scheduler: cloud.schedulerClient(),
      store: kit.container('version', NO_FAULTS),
    },
  );
  reconciler.bindInvokedArn(unqualifiedArn('durable-reconciler'));

  // The runs: two to four, started within the first ten minutes, each its own way.
  const runs: StartedRun[] = [];
  const count = dice.between(2, 4);
  let startsPending = count;
  for (let i = 0; i < count; i++) {
    const tag = `s${seed}-r${i}`;
    const how: StartedRun['how'] = startsOnAlias
      ? dice.pick(['alias invoke', 'alias invoke', 'control API', 'control API, latest', '$LATEST invoke'] as const)
      : dice.pick(['$LATEST invoke', 'control API', 'control API, latest'] as const);
    time.after(dice.between(0, 10 * 60_000), `start ${tag}`, async () => {
      try {
        const runId = await start(tag, how);
        if (runId) runs.push({ tag, how, runId, payload: `ok-${tag}` });
      } finally {
        startsPending -= 1;
      }
    });
  }

  async function start(tag: string, how: StartedRun['how']): Promise<string | undefined> {
    if (how === 'alias invoke' || how === '$LATEST invoke') {
      const requestId = `start-${tag}`;
      const arn = how === 'alias invoke' ? `${unqualifiedArn(functionName)}:live` : unqualifiedArn(functionName);
      cloud.invokeAsync(arn, { tag }, { requestId, droppable: false });
      cloud.startEvents.set(runIdFor(requestId), { arn, payload: { tag }, requestId });
      return runIdFor(requestId);
    }
    const body = {
      function: functionName,
      input: { tag },
      runKey: `key-${tag}`,
      ...(how === 'control API' ? {} : { latest: true }),
    };
    for (let attempt = 1; attempt <= 20; attempt++) {
      const answer = await api.handle({
        method: 'POST',
        path: '/v1/runs',
        headers: { 'content-type': 'application/json', 'idempotency-key': `start-${tag}` },
        body: JSON.stringify(body),
      });
      if (answer.status === 201 || answer.status === 200) {
        const runId = (JSON.parse(answer.body) as { runId: string }).runId;
        // A client repeats the start later (same key and input): it finds the run, pinned or not.
        if (dice.chance(0.3)) {
          time.after(dice.between(1_000, 3_600_000), `start ${tag} again`, async () => {
            const again = await api.handle({
              method: 'POST',
              path: '/v1/runs',
              headers: { 'content-type': 'application/json' },
              body: JSON.stringify(body),
            });
            const id = again.status === 200 ? (JSON.parse(again.body) as { runId: string }).runId : undefined;
            if (id !== runId && !(again.status >= 500)) {
              worldErrors.push(`start of ${tag} repeated answered ${again.status} ${again.body}`);
            }
          });
        }
        return runId;
      }
      if (answer.status < 500) {
        worldErrors.push(`start of ${tag} answered ${answer.status} ${answer.body}`);
        return undefined;
      }
      time.clock.advanceBy(1_000);
    }
    worldErrors.push(`start of ${tag} never answered`);
    return undefined;
  }

  // Deploys: one to four, within the first hour, while runs wait; versions deleted when no run is on them
  // (the README's check), or, in a careless seed, whatever runs on them.
  const deletions: DeployEvidence['deletions'] = [];
  const deployCount = dice.between(1, 4);
  for (let i = 0; i < deployCount; i++) {
    // Half of them while runs are still starting (between a run's first invocation and its next).
    const at = dice.chance(0.5) ? dice.between(10_000, 15 * 60_000) : dice.between(10_000, 3_600_000);
    time.after(at, 'deploy', async () => {
      const version = fn.publish(`v${fn.versions.size + 1}`);
      const live = fn.aliases.get('live') as string;
      const existing = [...fn.versions.keys()].filter((v) => !fn.deleted.has(v));
      // Mostly forward; sometimes a rollback to an older version still there.
      const target = dice.chance(0.85) ? version : dice.pick(existing);
      fn.aliases.set('live', target);
      deploys.push({ version, alias: target, at: time.now() });
      if (!dice.chance(0.4)) return;
      const candidates = existing.filter((v) => v !== target && v !== live && v !== version);
      if (candidates.length === 0) return;
      const victim = dice.pick(candidates);
      if (!careless) {
        const page = await apiEngine.listRuns({
          functionName: `${functionName}:${victim}`,
          status: 'RUNNING',
          limit: 1,
        });
        if (page.runs.length > 0) return;
      }
      fn.deleted.add(victim);
      deletions.push({ version: victim, at: time.now(), careless });
    });
  }

  const finals = new Map<string, RunRecord | undefined>();
  let allEnded = false;
  const stranded = (run: RunRecord) => {
    const qualifier = run.functionName.split(':')[1];
    return qualifier !== undefined && fn.deleted.has(qualifier);
  };
  const reconcile = async () => {
    try {
      await reconciler.engine.reconcile({ graceMs: 120_000 });
    } catch (error) {
      if (!isInjected(error)) worldErrors.push(`reconciler: ${error instanceof Error ? error.message : String(error)}`);
    }
    if (startsPending === 0) {
      let ended = true;
      for (const run of runs) {
        const stored = await kit.shared.getRun(run.runId);
        if (stored?.status === 'RUNNING' && !stranded(stored)) ended = false;
      }
      allEnded = ended;
    }
    time.after(period, 'reconciler', reconcile);
  };
  time.after(period, 'reconciler', reconcile);

  const outcome = await time.runUntil(() => allEnded, time.now() + 5 * DAY);
  // A key begins with its run's id (and, past it, whatever tells re-creations of the run apart).
  for (const e of executions) {
    const run = runs.find((r) => e.runId === r.runId || e.runId.startsWith(`${r.runId}.`));
    if (run) e.runId = run.runId;
  }
  const operations = new Map<string, Operation[]>();
  for (const run of runs) {
    finals.set(run.runId, await kit.shared.getRun(run.runId));
    operations.set(run.runId, await kit.shared.loadOperations(run.runId));
  }
  // Leave nothing due on a shared table: a stranded run is cancelled (the next seed's reconciler
  // would find it otherwise).
  for (const run of finals.values()) {
    if (run?.status === 'RUNNING') await apiEngine.cancelRun(run.runId).catch(() => undefined);
  }
  worldErrors.push(...time.taskErrors);
  return {
    seed,
    policy,
    functionName,
    fn,
    cloud,
    runs,
    finals,
    executions,
    callbacks,
    completions,
    deletions,
    deploys,
    outcome,
    worldErrors,
    containerFaults,
    operations,
  };
}
