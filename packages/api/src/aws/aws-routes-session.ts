/**
 * Invocations of the Lambda-shaped routes with no session kept in memory: each call rebuilds the
 * invocation's session from its checkpoint token and the stored run, so any API container can
 * serve any call. Also the two ends Lambda's service plays around a handler on AWS's SDK: opening
 * an invocation (its input, with the first token) and closing it with the handler's output.
 */
import { timingSafeEqual } from 'node:crypto';
import {
  type AwsOperation,
  childRunKey,
  type Engine,
  EngineSession,
  EXECUTION_OPERATION_ID,
  expireRun,
  fromAwsOutput,
  issueCallbackId,
  loadReplayOperations,
  OutsideEvents,
  pastDeadline,
  type RunRecord,
  runIdFor,
  toAwsOperation,
} from '@durable-lambda/engine';
import type { InvocationOutput, Operation } from '@durable-lambda/protocol';
import type { ControlEngine } from '../server/deps';
import {
  type CheckpointTokenClaims,
  decodeCheckpointToken,
  encodeCheckpointToken,
  executionArn,
} from './aws-routes-token';
import { AwsRouteError } from './aws-routes-wire';

/** The engine settings a rebuilt session must share with the engine (same defaults as `Engine`'s). */
export interface AwsSessionOptions {
  /** The engine's `maxPayloadBytes`. Default 6 MiB. */
  maxPayloadBytes?: number;
  /** The engine's `retentionMs`. Default: runs are kept. */
  retentionMs?: number;
  /** The engine's `faultRetryMs`. Default 5 s. */
  faultRetryMs?: number;
  /** Operations per page of the state (and of the invocation input). Default 1,000 (Lambda's). */
  pageSize?: number;
}

/**
 * What the sessions need of the engine: its ports, and `startRun` for child runs. A run past its
 * execution deadline is ended with the engine's own `expireRun`, on these ports.
 */
export type AwsSessionEngine = Pick<ControlEngine, 'store' | 'waker' | 'invoker' | 'clock' | 'startRun'>;

type SessionDeps = ConstructorParameters<typeof EngineSession>[3];

/** An invocation rebuilt from its token: the stored run and a session fenced by its lease. */
export interface AttachedInvocation {
  run: RunRecord;
  claims: CheckpointTokenClaims;
  session: EngineSession;
}

const invalidToken = (why: string) =>
  new AwsRouteError(400, 'InvalidParameterValueException', `Invalid Checkpoint Token: ${why}`);

function sameSecret(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

/** The run's operations in AWS's shape, the execution first (AWS's SDK reads the input there). */
export function awsOperations(operations: readonly Operation[]): AwsOperation[] {
  const ordered = [...operations].sort(
    (a, b) => Number(b.Id === EXECUTION_OPERATION_ID) - Number(a.Id === EXECUTION_OPERATION_ID),
  );
  return ordered.map(toAwsOperation);
}

/** Rebuilds invocations from checkpoint tokens, each call against the stored run. */
export class AwsCheckpointSessions {
  readonly pageSize: number;
  private readonly outside: OutsideEvents;
  private readonly maxPayloadBytes: number;
  private readonly retentionMs: number | undefined;
  private readonly faultRetryMs: number;

  constructor(
    private readonly engine: AwsSessionEngine,
    options: AwsSessionOptions = {},
  ) {
    this.maxPayloadBytes = options.maxPayloadBytes ?? 6 * 1024 * 1024;
    this.retentionMs = options.retentionMs;
    this.faultRetryMs = options.faultRetryMs ?? 5_000;
    const size = options.pageSize ?? 1000;
    if (!Number.isInteger(size) || size < 1) throw new TypeError('pageSize: must be a positive integer');
    this.pageSize = size;
    this.outside = new OutsideEvents({
      store: engine.store,
      waker: engine.waker,
      invoker: engine.invoker,
      clock: engine.clock,
      maxPayloadBytes: this.maxPayloadBytes,
      retentionMs: this.retentionMs,
      startChild: async (request) => (await engine.startRun(request)).run,
    });
  }

  /**
   * The invocation `token` was issued to, when it still holds the run: the run is RUNNING, its
   * fence and lease token are the token's, its lease is live and its execution deadline has not
   * passed. Anything else is an invalid checkpoint token, which AWS's SDK takes as the end of
   * this invocation (not of the run). A run found past its deadline is ended `TIMED_OUT` first,
   * as the engine's own session does at its next checkpoint: nothing of it is written after.
   */
  async attach(token: unknown): Promise<AttachedInvocation> {
    const claims = decodeCheckpointToken(token);
    const { store, clock } = this.engine;
    const run = await store.getRun(claims.runId);
    if (!run) throw invalidToken('no such execution');
    if (run.status !== 'RUNNING') throw invalidToken(`the execution has ended (${run.status})`);
    if (run.fence !== claims.fence || !run.leaseToken || !sameSecret(run.leaseToken, claims.leaseToken)) {
      throw invalidToken('a newer invocation owns the execution');
    }
    const now = clock.now();
    if (pastDeadline(run, now)) {
      await this.expire(run);
      throw invalidToken('the execution passed its execution timeout');
    }
    if (run.leaseExpiresAt === undefined || run.leaseExpiresAt <= now) {
      throw invalidToken("the invocation's lease has lapsed");
    }
    // The replay scope, as the engine's own invocations load: what sits under finished contexts
    // is read only for an update that reaches there (`adoptOutOfScope`), so a request costs the
    // same after a thousand completed operations in contexts as after ten.
    const operations = await loadReplayOperations(store, run.runId);
    const leaseEnd = run.leaseExpiresAt;
    const session = new EngineSession(
      run,
      operations,
      false,
      this.deps(run, () => Math.max(0, leaseEnd - clock.now())),
    );
    return { run, claims, session };
  }

  /** The token that follows `claims`. */
  next(claims: CheckpointTokenClaims): string {
    return encodeCheckpointToken({ ...claims, seq: claims.seq + 1 });
  }

  /**
   * Closes the invocation `token` was issued to with the handler's output (AWS's
   * `DurableExecutionInvocationOutput`): the run ends, or waits for its next wake-up. A result
   * the SDK checkpointed instead of returning (too large for a response) is read from the run.
   */
  async close(token: unknown, output: unknown): Promise<InvocationOutput> {
    const { run, session } = await this.attach(token);
    return session.close(fromAwsOutput(output, run.result));
  }

  /**
   * Ends a run past its deadline `TIMED_OUT` with its callbacks and child runs, as the engine's
   * own sessions do (`expireRun`; a run whose deadline has not passed is left alone). Idempotent;
   * when it fails, the run is still due at its deadline, so the reconciler ends it.
   */
  private async expire(run: RunRecord): Promise<void> {
    if (run.deadlineAt === undefined) return;
    await expireRun({ store: this.engine.store, clock: this.engine.clock, outside: this.outside }, run.runId);
  }

  private deps(run: RunRecord, remainingTimeMs: () => number): SessionDeps {
    const { store, waker, clock, invoker } = this.engine;
    const runId = run.runId;
    return {
      store,
      waker,
      clock,
      limits: { maxPayloadBytes: this.maxPayloadBytes },
      retentionMs: this.retentionMs,
      remainingTimeMs,
      faultRetryMs: this.faultRetryMs,
      ids: {
        callbackId: (operationId) => issueCallbackId(runId, operationId),
        childRunId: (operationId) => runIdFor(childRunKey(run, operationId)),
      },
      hooks: {
        canInvoke: (name) => invoker !== undefined && invoker.knows?.(name) !== false,
        startChild: (parentRun, op) => this.outside.startChildFor(parentRun, op),
        finished: (ended) => this.outside.childFinished(ended),
        wake: (target) => this.outside.wake(target),
        // A call that passes the deadline after `attach` is fenced at its checkpoint too.
        expire: (target) => this.expire(target),
      },
    };
  }
}

/** AWS's invocation input for a handler on AWS's SDK (`DurableExecutionInvocationInput`). */
export interface AwsInvocationInputWire {
  DurableExecutionArn: string;
  CheckpointToken: string;
  InitialExecutionState: { Operations: AwsOperation[]; NextMarker?: string };
}

/**
 * Opens an invocation of `runId` the way Lambda's service does before invoking a handler on AWS's
 * SDK: takes the run's lease and answers the handler's input, whose token the Lambda-shaped
 * routes accept until the lease ends. Close it with {@link AwsCheckpointSessions.close} and the
 * handler's output. Undefined when there is nothing to run (as `Engine.openRun`).
 */
export async function openAwsInvocation(
  engine: Pick<Engine, 'openRun' | 'store'>,
  runId: string,
  options: { remainingTimeMs?: () => number; pageSize?: number } = {},
): Promise<AwsInvocationInputWire | undefined> {
  const session = await engine.openRun(
    runId,
    options.remainingTimeMs ? { remainingTimeMs: options.remainingTimeMs } : {},
  );
  if (!session) return undefined;
  const run = await engine.store.getRun(runId);
  if (!run?.leaseToken) throw new Error(`run ${runId}: its lease token is not stored`);
  const operations = awsOperations(session.operations);
  const size = options.pageSize ?? 1000;
  return {
    DurableExecutionArn: executionArn(run.functionName, run.runId, run.incarnation),
    CheckpointToken: encodeCheckpointToken({ runId, fence: run.fence, leaseToken: run.leaseToken, seq: 0 }),
    InitialExecutionState:
      operations.length > size
        ? { Operations: operations.slice(0, size), NextMarker: String(size) }
        : { Operations: operations },
  };
}
