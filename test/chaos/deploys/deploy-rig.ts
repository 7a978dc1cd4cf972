/**
 * One durable function deployed as AWS runs it, in virtual time: the production backend
 * (`ProductionBackend` with its engine, Lambda's version policy and store, its wakers and wake-up receiver) in a
 * container per invocation, the control API (the `DurableApi` entry's engine and waker) and the
 * reconciler, on a simulated Lambda, SQS and Scheduler (`sim-cloud`). The random deploy world and
 * the scripted scenarios both drive it.
 *
 * Its code records every step body's execution with where it ran (the container's qualifier and
 * version), so the checks can hold each run to the qualifier it is recorded with. The workflow:
 * a step, a 3-minute wait (the wake-up queue), a callback the outside completes, a step that fails
 * its first attempt (a 3-second retry on the queue), a 20-minute wait (Scheduler and a final hop),
 * a last step.
 */
import { type ApiResponse, createControlApi } from '@durable-lambda/api';
import { LambdaInvoker, ProductionBackend, readProductionConfig, type VersionPinning } from '@durable-lambda/aws';
import { type Engine, parseCallbackId, runIdFor } from '@durable-lambda/engine';
import type { LambdaContextLike } from '@durable-lambda/protocol';
import { type DurableContext, type RetryPolicy, type StepContext, withDurableExecution } from '@durable-lambda/sdk';
import { functionTarget } from '../../../packages/cdk/src/runtime/control-api-config';
import { controlApiEngine, immediateInvokeWaker } from '../../../packages/cdk/src/runtime/control-api-engine';
import { type ContainerFaults, faultyStore, InjectedStoreFault, NO_FAULTS, type StoreKit } from './container-stores';
import { SimCloud } from './sim-cloud';
import { type CloudFaults, type Container, ProcessKilled, SimFunction, unqualifiedArn } from './sim-functions';
import type { Dice, SimTime } from './sim-time';

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

/** No cloud faults (a scripted scenario). */
export const NO_CLOUD_FAULTS: CloudFaults = {
  throttle: 0,
  lostResponse: 0,
  eventTwice: 0,
  eventDropped: 0,
  messageEarly: 0,
  messageLate: 0,
  messageTwice: 0,
  messageLost: 0,
  scheduleLate: 0,
  startAgainAtWake: 0,
  wakeThroughAlias: 0,
};

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

/** Options of a {@link DeployRig}. */
export interface DeployRigOptions {
  time: SimTime;
  dice: Dice;
  kit: StoreKit;
  policy: VersionPinning;
  functionName: string;
  cloudFaults: CloudFaults;
  /** The faults of each new container (invocation). */
  containerFaults(): ContainerFaults;
  /** When the outside completes a callback handed out, ms after. */
  callbackDelayMs(): number;
}

/** The deployment: the function with its versions and alias, the control API, the reconciler. */
export class DeployRig {
  readonly time: SimTime;
  readonly cloud: SimCloud;
  readonly fn: SimFunction;
  readonly policy: VersionPinning;
  readonly functionName: string;
  /** Whether runs start on the alias (`live`), as the construct has it unless `latest`. */
  readonly startsOnAlias: boolean;
  readonly apiEngine: Engine;
  readonly executions: StepExecution[] = [];
  /** Runs an operator cancelled through the control API (it answered 200, the run CANCELLED). */
  readonly cancelled = new Set<string>();
  /** Callback id to the payload the outside completes it with. */
  readonly callbacks = new Map<string, string>();
  /** Callback completions the control API accepted, by id. */
  readonly completions = new Map<string, number>();
  readonly errors: string[] = [];
  private readonly api: ReturnType<typeof createControlApi>;
  private readonly reconciler: ProductionBackend;
  private readonly options: DeployRigOptions;

  constructor(options: DeployRigOptions) {
    this.options = options;
    const { time, dice, kit, policy, functionName } = options;
    this.time = time;
    this.policy = policy;
    this.functionName = functionName;
    this.startsOnAlias = policy !== 'latest';
    this.cloud = new SimCloud(time, dice, options.cloudFaults, isInjected);
    const config = readProductionConfig({
      DURABLE_TABLE_NAME: 'durable-chaos-deploys',
      DURABLE_SCHEDULE_GROUP: 'durable-orders',
      DURABLE_SCHEDULER_ROLE_ARN: 'arn:aws:iam::123456789012:role/durable-orders-scheduler',
      DURABLE_WAKE_QUEUE_URL: QUEUE_URL,
      AWS_REGION: 'us-east-1',
    });
    this.fn = new SimFunction(functionName, async (event: unknown, context: LambdaContextLike, container) => {
      const faults = options.containerFaults();
      const backend = new ProductionBackend(
        config,
        {},
        { pinning: policy, aliases: {} },
        {},
        {
          clock: time.clock,
          sleep: time.sleep,
          lambda: this.cloud.lambdaClient(faults.alive),
          sqs: this.cloud.sqsClient(faults.alive),
          scheduler: this.cloud.schedulerClient(faults.alive),
          store: faultyStore(kit.container(faults), faults),
        },
      );
      const handler = withDurableExecution(this.workflow(container), {
        backend,
        inProcessWaitMs: 0,
        logSink: () => {},
      });
      return (handler as (e: unknown, c: LambdaContextLike) => Promise<unknown>)(event, context);
    });
    this.cloud.add(this.fn);
    // The construct's wake-up queue feeds the alias (`$LATEST` under `latest`).
    this.cloud.queueTarget = this.startsOnAlias ? { functionName, qualifier: 'live' } : { functionName };
    this.deploy();

    // The control API (the DurableApi's entry: its engine and waker), over the shared table.
    const aliases: Record<string, string> = this.startsOnAlias ? { [functionName]: 'live' } : {};
    const apiInvoker = new LambdaInvoker({
      client: this.cloud.lambdaClient(),
      targetArn: (name) => functionTarget({ [functionName]: unqualifiedArn(functionName) }, name),
    });
    this.apiEngine = controlApiEngine({
      aliases,
      store: kit.shared,
      clock: time.clock,
      invoker: apiInvoker,
      waker: immediateInvokeWaker(apiInvoker, time.clock, time.sleep),
    });
    this.api = createControlApi({
      engine: this.apiEngine,
      functions: [functionName],
      invoker: apiInvoker,
      onError: (error) => {
        if (!isInjected(error))
          this.errors.push(`control API: ${error instanceof Error ? error.stack : String(error)}`);
      },
    });

    // The reconciler: its own backend, bound to its own ARN; a run not pinned yet is woken
    // through the function's alias (its DURABLE_FUNCTION_ALIASES).
    this.reconciler = new ProductionBackend(
      config,
      {},
      { pinning: 'version', aliases },
      {},
      {
        clock: time.clock,
        sleep: time.sleep,
        lambda: this.cloud.lambdaClient(),
        sqs: this.cloud.sqsClient(),
        scheduler: this.cloud.schedulerClient(),
        store: kit.container(NO_FAULTS),
      },
    );
    this.reconciler.bindInvokedArn(unqualifiedArn('durable-reconciler'));
  }

  /** Publishes the next version (`$LATEST` holds its code) and points `live` at `alias` (default: it). */
  deploy(alias?: string): string {
    const version = this.fn.publish(`v${this.fn.versions.size + 1}`);
    this.fn.aliases.set('live', alias ?? version);
    return version;
  }

  /** A run started by an asynchronous invoke (of the alias, or of `$LATEST`): its run id. */
  invokeStart(tag: string, through: 'alias' | '$LATEST'): string {
    const requestId = `start-${tag}`;
    const arn = through === 'alias' ? `${unqualifiedArn(this.functionName)}:live` : unqualifiedArn(this.functionName);
    this.cloud.invokeAsync(arn, { tag }, { requestId, droppable: false });
    this.cloud.startEvents.set(runIdFor(requestId), { arn, payload: { tag }, requestId });
    return runIdFor(requestId);
  }

  /** `POST /v1/runs` (keyed by `runKey`; `latest` opts the run out of pinning), as a client sends it. */
  apiStart(tag: string, latest: boolean, idempotencyKey?: string): Promise<ApiResponse> {
    const body = { function: this.functionName, input: { tag }, runKey: `key-${tag}`, ...(latest ? { latest } : {}) };
    return this.api.handle({
      method: 'POST',
      path: '/v1/runs',
      headers: {
        'content-type': 'application/json',
        ...(idempotencyKey === undefined ? {} : { 'idempotency-key': idempotencyKey }),
      },
      body: JSON.stringify(body),
    });
  }

  /** `POST /v1/runs/{runId}/cancel` (with `tree`, its child runs too), as an operator sends it. */
  async apiCancel(runId: string, tree: boolean, actionId: string): Promise<ApiResponse> {
    const answer = await this.api.handle({
      method: 'POST',
      path: `/v1/runs/${runId}/cancel`,
      headers: { 'content-type': 'application/json', 'idempotency-key': actionId },
      body: JSON.stringify({ tree }),
    });
    // A tree cancel of a run that had ended answers 200 too (it cancels the running children): only
    // a run the answer shows CANCELLED was ended by it.
    if (answer.status === 200 && (JSON.parse(answer.body) as { status?: string }).status === 'CANCELLED') {
      this.cancelled.add(runId);
    }
    return answer;
  }

  /** One reconciler pass. */
  async reconcile(): Promise<void> {
    try {
      await this.reconciler.engine.reconcile({ graceMs: 120_000 });
    } catch (error) {
      if (!isInjected(error)) this.errors.push(`reconciler: ${error instanceof Error ? error.message : String(error)}`);
    }
  }

  /** The reconciler every `periodMs`, from now on. */
  reconcileEvery(periodMs: number): void {
    const pass = async () => {
      await this.reconcile();
      this.time.after(periodMs, 'reconciler', pass);
    };
    this.time.after(periodMs, 'reconciler', pass);
  }

  /** The outside hands a callback id out; it completes it (once, retried until accepted) later. */
  private handOut(callbackId: string, payload: string): void {
    if (this.callbacks.has(callbackId)) return;
    this.callbacks.set(callbackId, payload);
    const complete = async (attempt: number): Promise<void> => {
      const answer = await this.api.handle({
        method: 'POST',
        path: `/v1/callbacks/${encodeURIComponent(callbackId)}/succeed`,
        headers: { 'content-type': 'application/json', 'idempotency-key': `cb-${callbackId}` },
        body: JSON.stringify({ result: payload }),
      });
      if (answer.status === 200) {
        this.completions.set(callbackId, (this.completions.get(callbackId) ?? 0) + 1);
        return;
      }
      // A run an operator cancelled refuses its callbacks' completions: nothing to retry.
      if (answer.status === 409 && this.cancelled.has(parseCallbackId(callbackId).runId)) return;
      if (attempt < 20) this.time.after(30_000, `complete ${callbackId} again`, () => complete(attempt + 1));
      else this.errors.push(`callback ${callbackId} never accepted: ${answer.status} ${answer.body}`);
    };
    this.time.after(this.options.callbackDelayMs(), `complete ${callbackId}`, () => complete(1));
  }

  /** The function's code, as the version behind `container` runs it. */
  private workflow(container: Container) {
    const body =
      (step: string, failures = 0) =>
      async (context: StepContext): Promise<string> => {
        const key = context.idempotencyKey;
        this.executions.push({
          // The key begins with its run's id; the checks match it to the runs started.
          runId: key.slice(0, key.indexOf(':')),
          operationId: key.slice(key.indexOf(':') + 1, key.lastIndexOf(':')),
          step,
          attempt: context.attempt,
          idempotencyKey: key,
          container,
          at: this.time.now(),
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
          this.handOut(callbackId, `ok-${input.tag}`);
        },
        { retryStrategy: () => ({ shouldRetry: true, delay: { seconds: 3 } }) },
      );
      // Fails its first attempt: its retry waits 3 s on the wake-up queue.
      const charged = await ctx.step('charge', body('charge', 1), { retry: RETRY });
      await ctx.wait('long', { minutes: 20 });
      const finish = await ctx.step('finish', body('finish'), { retry: RETRY });
      return { quote, approval, charged, finish };
    };
  }
}
