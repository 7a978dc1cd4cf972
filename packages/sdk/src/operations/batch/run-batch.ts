import type { ErrorObject } from '@durable-lambda/protocol';
import { parseConfigObject, parseSerdes } from '../../config';
import type { Scope } from '../../context/scope';
import { describe } from '../../duration';
import { ErrorCode } from '../../errors/codes';
import type { ChildContextError } from '../../errors/durable-errors';
import { asAwsBatchItemError, contextFailure, toErrorObject } from '../../errors/error-object';
import { InvalidArgumentError } from '../../errors/invalid-argument';
import { executionArnOf } from '../../runtime/execution-arn';
import { defaultSerdes, deserializeChecked } from '../../serdes/checked';
import { type BatchItem, type BatchResult, NestingType } from '../../types/batch';
import { BatchItemStatus } from '../../types/batch-status';
import type { CompletionReason } from '../../types/completion';
import type { DurableContext } from '../../types/durable-context';
import { OperationSubType } from '../../types/operation-enums';
import type { Serdes } from '../../types/serdes';
import { runContextOperation } from '../child-context';
import { BatchResultImpl, isCompletionReason, restoreBatchResult } from './batch-result';
import { type CompletionPolicy, type Progress, parseCompletion, parseMaxConcurrency } from './completion';
import { runFlatItem } from './flat-item';

/** One item (map) or branch (parallel) of a batch. */
export interface BatchUnit<TOutput> {
  /** The operation name of its child context. */
  name: string;
  /** The name the user gave it (`itemNamer`, a branch's `name`), shown to `shouldComplete`. */
  ownName: string | undefined;
  run: (context: DurableContext) => Promise<TOutput>;
}

/** The options of a batch, validated at the call. */
export interface BatchOptions<TOutput> {
  maxConcurrency: number;
  completion: CompletionPolicy;
  itemSerdes: Serdes<TOutput>;
  /** A custom serdes for the whole BatchResult (compat); by default our summary. */
  serdes: Serdes<BatchResult<TOutput>> | undefined;
  summaryGenerator: ((result: BatchResult<TOutput>) => string) | undefined;
  /** `nesting: FLAT`: items run without CONTEXT records of their own (see {@link runFlatItem}). */
  flat: boolean;
}

/** A batch, parsed and validated at the call. */
export interface BatchPlan<TOutput> extends BatchOptions<TOutput> {
  name: string | undefined;
  kind: 'Map' | 'Parallel';
  units: Array<BatchUnit<TOutput>>;
}

/** Config keys both `map` and `parallel` accept. */
export const BATCH_CONFIG_KEYS = [
  'maxConcurrency',
  'completionConfig',
  'itemSerdes',
  'serdes',
  'summaryGenerator',
  'nesting',
] as const;

/** Validates the options shared by `map` and `parallel` (the caller checks the keys). */
export function parseBatchOptions<TOutput>(scope: Scope, config: unknown): BatchOptions<TOutput> {
  const c = (config ?? {}) as Record<string, unknown>;
  if (c.nesting !== undefined && c.nesting !== NestingType.NESTED && c.nesting !== NestingType.FLAT) {
    throw new InvalidArgumentError('config.nesting', `must be NestingType.NESTED or FLAT, got ${describe(c.nesting)}`);
  }
  if (c.summaryGenerator !== undefined && typeof c.summaryGenerator !== 'function') {
    throw new InvalidArgumentError(
      'config.summaryGenerator',
      `must be a function, got ${describe(c.summaryGenerator)}`,
    );
  }
  return {
    maxConcurrency: parseMaxConcurrency(c.maxConcurrency, 'config.maxConcurrency'),
    completion: parseCompletion(c.completionConfig, 'config.completionConfig'),
    itemSerdes: scope.serdesOr(
      parseSerdes<TOutput>(c.itemSerdes, 'config.itemSerdes'),
      defaultSerdes as Serdes<TOutput>,
    ),
    serdes: parseSerdes<BatchResult<TOutput>>(c.serdes, 'config.serdes'),
    summaryGenerator: c.summaryGenerator as BatchOptions<TOutput>['summaryGenerator'],
    flat: c.nesting === NestingType.FLAT,
  };
}

/** How one started item stands: its stored result (raw itemSerdes output) or stored error. */
interface ItemRecord {
  index: number;
  status: BatchItemStatus;
  /** SUCCEEDED: the item's stored result, undefined when it returned nothing (or when kept in the item's record). */
  result?: string;
  /** FAILED: the stored error. */
  error?: ErrorObject;
}

/** What a batch's body produces: the started items, by index, and why the batch stopped. */
interface BatchOutcome {
  items: ItemRecord[];
  completionReason: CompletionReason;
}

/** The stored summary: the batch CONTEXT's result, readable in the operation history. */
interface StoredSummary {
  type: 'MapResult' | 'ParallelResult';
  completionReason: CompletionReason;
  status: 'SUCCEEDED' | 'FAILED';
  totalCount: number;
  successCount: number;
  failureCount: number;
  startedCount: number;
  /** Set when the results were too large to keep here: they are read back from the items' records. */
  resultsInItems?: true;
  /** A custom `summaryGenerator`'s output (only with `resultsInItems`). */
  summary?: string;
  items: ItemRecord[];
}

/**
 * Runs a batch as ONE CONTEXT operation (subType `Map` / `Parallel`) whose items are child
 * CONTEXTs (`MapIteration` / `ParallelBranch`) with ids assigned up front in index order (with
 * `nesting: FLAT`, items have no CONTEXT: their operations sit directly under the batch's). The
 * batch stores a summary from which the BatchResult is rebuilt; a first run reads its result
 * back from that summary too, so live and replayed results are the same.
 */
export async function runBatch<TOutput>(scope: Scope, plan: BatchPlan<TOutput>): Promise<BatchResult<TOutput>> {
  const custom = plan.serdes;
  const summary = custom ? undefined : summarySerdes(scope, plan);
  const serdes: Serdes<unknown> = custom
    ? {
        serialize: (value, context) => custom.serialize(value as BatchResult<TOutput>, context),
        deserialize: async (data, context) => restoreBatchResult(await custom.deserialize(data, context)),
      }
    : (summary as Serdes<unknown>);
  const value = await runContextOperation<unknown>(scope, {
    name: plan.name,
    subType: plan.kind,
    serdes,
    replayChildren: () => summary?.resultsInItems === true,
    body: async (_context, batchScope) => {
      // Each item's id is fixed by its index, whatever order items start or finish in.
      const ids = plan.units.map(() => batchScope.nextId());
      const outcome = await execute(batchScope, plan, ids);
      return custom ? buildResult(scope, plan, outcome, ids, false) : outcome;
    },
  });
  return value as BatchResult<TOutput>;
}

/** Runs the items under the concurrency bound until the completion policy stops the batch. */
function execute<TOutput>(scope: Scope, plan: BatchPlan<TOutput>, ids: readonly string[]): Promise<BatchOutcome> {
  const total = plan.units.length;
  const itemSubType = plan.kind === 'Map' ? OperationSubType.MAP_ITERATION : OperationSubType.PARALLEL_BRANCH;
  const records: Array<ItemRecord | undefined> = new Array(total);
  const progress: Progress = {
    successCount: 0,
    failureCount: 0,
    completedCount: 0,
    totalCount: total,
    items: () =>
      plan.units.map((unit, index) => {
        const status = records[index]?.status;
        return {
          index,
          ...(unit.ownName === undefined ? {} : { name: unit.ownName }),
          ...(status === undefined ? {} : { status }),
        };
      }),
  };
  const policy = plan.completion;
  let next = 0;
  let active = 0;
  let done = false;

  return new Promise<BatchOutcome>((resolve, reject) => {
    const guarded = (work: () => void) => {
      if (done) return; // the batch completed: items still in flight are abandoned
      try {
        work();
      } catch (error) {
        // e.g. a throwing shouldComplete: the batch fails with its error.
        done = true;
        reject(error);
      }
    };
    const finish = () => {
      const completionReason = policy.reason(progress);
      done = true;
      resolve({
        items: records.filter((r): r is ItemRecord => r !== undefined).map((r) => ({ ...r })),
        completionReason,
      });
    };
    const pump = () => {
      while (active < plan.maxConcurrency && next < total && policy.shouldContinue(progress)) start(next++);
      // Nothing runs and nothing may start (no items, or shouldComplete said so at once).
      if (active === 0) finish();
    };
    const settle = (record: ItemRecord) =>
      guarded(() => {
        active--;
        records[record.index] = record;
        progress.completedCount++;
        if (record.status === BatchItemStatus.SUCCEEDED) progress.successCount++;
        else progress.failureCount++;
        if (policy.isComplete(progress) || !policy.shouldContinue(progress)) finish();
        else pump();
      });
    const start = (index: number) => {
      const unit = plan.units[index] as BatchUnit<TOutput>;
      const id = ids[index] as string;
      active++;
      records[index] = { index, status: BatchItemStatus.STARTED };
      if (plan.flat) {
        runFlatItem(scope, id, unit.name, plan.itemSerdes, unit.run).then((outcome) =>
          settle(
            outcome.ok
              ? {
                  index,
                  status: BatchItemStatus.SUCCEEDED,
                  ...(outcome.result === undefined ? {} : { result: outcome.result }),
                }
              : { index, status: BatchItemStatus.FAILED, error: outcome.error },
          ),
        );
        return;
      }
      let stored: { error: ErrorObject | undefined } | undefined;
      runContextOperation(scope, {
        id,
        name: unit.name,
        subType: itemSubType,
        serdes: plan.itemSerdes,
        body: (context) => unit.run(context),
        failure: (error) => {
          stored = { error };
          return contextFailure(error);
        },
      }).then(
        () => {
          const result = scope.runtime.get(id)?.ContextDetails?.Result;
          settle({ index, status: BatchItemStatus.SUCCEEDED, ...(result === undefined ? {} : { result }) });
        },
        (error: unknown) =>
          settle({
            index,
            status: BatchItemStatus.FAILED,
            // The item's stored error; or the error itself (e.g. its stored result could not be read).
            error: stored ? (stored.error ?? {}) : toErrorObject(error, ErrorCode.CHILD_CONTEXT_FAILED),
          }),
      );
    };
    guarded(pump);
  });
}

/** The serdes of the batch CONTEXT's result: outcome → stored summary → BatchResult. */
function summarySerdes<TOutput>(
  scope: Scope,
  plan: BatchPlan<TOutput>,
): Serdes<unknown> & { readonly resultsInItems: boolean } {
  const idsOf = (batchId: string) => {
    const batchScope = scope.child(batchId);
    return plan.units.map(() => batchScope.nextId());
  };
  // Set once the summary written left the results in the items' records (replay needs them).
  let resultsInItems = false;
  return {
    get resultsInItems() {
      return resultsInItems;
    },
    async serialize(value, context) {
      const outcome = value as BatchOutcome;
      const head = {
        type: plan.kind === 'Map' ? ('MapResult' as const) : ('ParallelResult' as const),
        completionReason: outcome.completionReason,
        ...counts(outcome),
      };
      const inline: StoredSummary = { ...head, items: outcome.items };
      const data = JSON.stringify(inline);
      // FLAT items have no records to read results back from: their results stay here.
      if (plan.flat || Buffer.byteLength(data, 'utf8') <= scope.runtime.settings.maxPayloadBytes) return data;
      // Too large to keep the results twice: keep statuses (and errors) only, results stay in the items' records.
      resultsInItems = true;
      const compact: StoredSummary = {
        ...head,
        resultsInItems: true,
        items: outcome.items.map(({ index, status, error }) => {
          if (!error) return { index, status };
          const { StackTrace: _dropped, ...rest } = error;
          return { index, status, error: rest };
        }),
      };
      if (plan.summaryGenerator) {
        compact.summary = String(
          plan.summaryGenerator(await buildResult(scope, plan, outcome, idsOf(context.entityId), false)),
        );
      }
      return JSON.stringify(compact);
    },
    async deserialize(data, context) {
      const stored = parseSummary(data);
      const outcome = { items: stored.items, completionReason: stored.completionReason };
      return buildResult(scope, plan, outcome, idsOf(context.entityId), stored.resultsInItems === true);
    },
  };
}

function counts(outcome: BatchOutcome) {
  let successCount = 0;
  let failureCount = 0;
  let startedCount = 0;
  for (const item of outcome.items) {
    if (item.status === BatchItemStatus.SUCCEEDED) successCount++;
    else if (item.status === BatchItemStatus.FAILED) failureCount++;
    else startedCount++;
  }
  const custom = outcome.completionReason;
  const failed =
    custom === 'CUSTOM_COMPLETION_FAILED' || (custom !== 'CUSTOM_COMPLETION_SUCCEEDED' && failureCount > 0);
  return {
    status: failed ? ('FAILED' as const) : ('SUCCEEDED' as const),
    totalCount: outcome.items.length,
    successCount,
    failureCount,
    startedCount,
  };
}

const STATUSES: ReadonlySet<string> = new Set(Object.values(BatchItemStatus));

/** Reads a stored summary back, refusing anything else (e.g. a record written by other code). */
function parseSummary(data: string | undefined): StoredSummary {
  const stored = (data === undefined ? undefined : JSON.parse(data)) as Partial<StoredSummary> | undefined;
  const valid =
    typeof stored === 'object' &&
    stored !== null &&
    isCompletionReason(stored.completionReason) &&
    Array.isArray(stored.items) &&
    stored.items.every(
      (item) => typeof item === 'object' && item !== null && Number.isInteger(item.index) && STATUSES.has(item.status),
    );
  if (!valid) throw new Error('the stored value is not a batch summary');
  return stored as StoredSummary;
}

/** Builds the BatchResult of an outcome: item results through itemSerdes, errors as ChildContextError. */
async function buildResult<TOutput>(
  scope: Scope,
  plan: BatchPlan<TOutput>,
  outcome: BatchOutcome,
  ids: readonly string[],
  resultsInItems: boolean,
): Promise<BatchResult<TOutput>> {
  const runtime = scope.runtime;
  const all: Array<BatchItem<TOutput>> = [];
  for (const item of outcome.items) {
    const { index, status } = item;
    const id = ids[index];
    if (id === undefined) throw new Error(`the stored batch summary names item ${index}, beyond the batch`);
    if (status === BatchItemStatus.SUCCEEDED) {
      const data = resultsInItems ? runtime.get(id)?.ContextDetails?.Result : item.result;
      const context = { entityId: id, durableExecutionArn: executionArnOf(runtime.invocation) };
      all.push({ index, status, result: await deserializeChecked(plan.itemSerdes, data, context) });
    } else if (status === BatchItemStatus.FAILED) {
      // AWS's: a failed item's error is the ChildContextError of its child context, with the
      // cause chain AWS's stored batch result reads back (the same live and on replay).
      all.push({ index, status, error: asAwsBatchItemError(contextFailure(item.error) as ChildContextError) });
    } else {
      all.push({ index, status });
    }
  }
  return new BatchResultImpl(all, outcome.completionReason);
}

/** Validates a config argument: a plain object with known keys, or undefined. */
export function checkConfigKeys(config: unknown, allowed: readonly string[]): void {
  parseConfigObject(config, 'config', allowed);
}
