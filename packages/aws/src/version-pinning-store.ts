import type { LeaseGrant, RunRecord, Store } from '@durable-lambda/engine';
import { DynamoDbStore, type DynamoDbStoreOptions } from './dynamodb';
import { UpdateCommand } from './dynamodb/commands';
import { FUNCTION_BASE, functionBaseOf, PK, RUN_SK, runPk, SK } from './dynamodb/layout';
import { namePinnedAtLease, type RunningCode, type VersionPinning } from './version-pinning';

/**
 * The store of a backend that pins runs (the production backend's is {@link PinningStore}): it is
 * told the code each invocation runs, pins the runs it leases there ({@link pinnedGrant}), and
 * reads a run ahead for the engine's own read of it.
 */
export interface PinnedRunStore extends Store {
  /** Sets the code the current invocation runs (a container runs one invocation at a time). */
  runningOn(code: RunningCode): void;
  /** Reads a run, and keeps it for the engine's own read of it that follows at once. */
  readAhead(runId: string): Promise<RunRecord | undefined>;
}

/**
 * Re-records the run `grant` just leased where the running `code` pins it
 * ({@link namePinnedAtLease}), by `rename` (a write conditional on the name read, the lease's
 * token and the run still RUNNING; true once the run has the new name, also when a retried write
 * finds it done). A rename that fails or throws leaves the grant's name as it was: the engine
 * then releases the run without running it (see `PinnedRunsEngine`), so a run never runs unpinned.
 */
export async function pinnedGrant(
  grant: LeaseGrant,
  leaseToken: string,
  code: RunningCode,
  pinning: VersionPinning,
  rename: (runId: string, from: string, to: string, leaseToken: string) => Promise<boolean>,
): Promise<LeaseGrant> {
  const pinned = namePinnedAtLease(grant.run.functionName, code, pinning);
  if (pinned === undefined) return grant;
  const recorded = await rename(grant.run.runId, grant.run.functionName, pinned, leaseToken).catch(() => false);
  return recorded ? { ...grant, run: { ...grant.run, functionName: pinned } } : grant;
}

/**
 * The production backend's store: a {@link DynamoDbStore} that pins a run to the code version
 * it first runs on. When an invocation takes the lease of a run not pinned yet (started by the
 * control API or a parent's `invoke`, so recorded unqualified or on the alias), it re-records the
 * run as `name:<version>` (one conditional write, only then), so every later wake-up, resume
 * and reconciler wake targets that version.
 *
 * Faults: the write is conditional on the lease just taken (its token) and on the name read, so
 * it never overwrites a newer lease's pin; a retry after a lost answer finds the name it wrote.
 * If it fails, the invocation runs nothing: `PinnedRunsEngine` releases the run, due again in a
 * moment, and the next lease pins it (or finds it pinned and hands it to that version). A crash
 * between the lease and the write leaves it unpinned for the next lease likewise.
 */
export class PinningStore extends DynamoDbStore implements PinnedRunStore {
  private code: RunningCode | undefined;
  private primed: RunRecord | undefined;

  constructor(
    private readonly pinningOptions: DynamoDbStoreOptions,
    private readonly pinning: VersionPinning,
  ) {
    super(pinningOptions);
  }

  /** Sets the code the current invocation runs (a container runs one invocation at a time). */
  runningOn(code: RunningCode): void {
    this.code = code;
    this.primed = undefined;
  }

  /**
   * Reads a run, and keeps it for the engine's own read of it that follows at once (the first
   * step of opening a run), so checking where a run is pinned costs no extra read.
   */
  async readAhead(runId: string): Promise<RunRecord | undefined> {
    const run = await super.getRun(runId);
    this.primed = run;
    return run;
  }

  override async getRun(runId: string): Promise<RunRecord | undefined> {
    const primed = this.primed;
    this.primed = undefined;
    if (primed?.runId === runId) return primed;
    return super.getRun(runId);
  }

  override async acquireLease(
    runId: string,
    now: number,
    leaseExpiresAt: number,
    leaseToken: string,
  ): Promise<LeaseGrant | undefined> {
    this.primed = undefined;
    const grant = await super.acquireLease(runId, now, leaseExpiresAt, leaseToken);
    if (!grant || !this.code) return grant;
    return pinnedGrant(grant, leaseToken, this.code, this.pinning, (id, from, to, token) =>
      this.rename(id, from, to, token),
    );
  }

  /**
   * Re-records the run as `to`, with the `functionBase` the `byFunctionBase` index lists it by
   * (in the same write, so a run listed by its bare name is never missing in between).
   */
  private async rename(runId: string, from: string, to: string, leaseToken: string): Promise<boolean> {
    const base = functionBaseOf(to);
    try {
      await this.transport.send(
        new UpdateCommand({
          TableName: this.pinningOptions.tableName,
          Key: { [PK]: runPk(runId), [SK]: RUN_SK },
          UpdateExpression: base === undefined ? 'SET #fn = :to REMOVE #base' : 'SET #fn = :to, #base = :base',
          ConditionExpression: '#fn = :from AND #token = :token AND #status = :running',
          ExpressionAttributeNames: {
            '#fn': 'functionName',
            '#base': FUNCTION_BASE,
            '#token': 'leaseToken',
            '#status': 'status',
          },
          ExpressionAttributeValues: {
            ':to': to,
            ':from': from,
            ':token': leaseToken,
            ':running': 'RUNNING',
            ...(base === undefined ? {} : { ':base': base }),
          },
        }),
      );
      return true;
    } catch (error) {
      // A retry of a write that succeeded finds the name already changed: that is success too.
      if ((error as { name?: unknown }).name === 'ConditionalCheckFailedException') {
        return (await super.getRun(runId))?.functionName === to;
      }
      throw error;
    }
  }
}
