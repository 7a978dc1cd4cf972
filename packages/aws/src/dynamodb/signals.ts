/**
 * The signal inbox on DynamoDB (`ctx.waitForSignal`, issue 27): one item per signal in the run's
 * partition, `sk = SIG#<run createdAt>#<seq, 10 digits>` (the run's creation in the key, so a run
 * created again under its id starts with an empty inbox), read with one Query. Sort keys past
 * `RUN`, so the operation reads (`CHUNK#` to `RUN`) never see them.
 *
 * A signal is one TransactWriteItems: the signal item put (only if new), the run item updated
 * (`signalSeq` to the new seq only while it is still the one read, `eventSeq` + 1 and due at once
 * for a RUNNING run, as an outside event) and, with a dedupe key, a marker item put (only if new)
 * naming the seq. A transaction whose response was lost is sent again by the client with the same
 * ClientRequestToken, which DynamoDB answers as the success it was; a later retry with the same
 * key finds the marker. A collision with another signal (the seq moved) is read again and retried.
 */
import { createHash } from 'node:crypto';
import type { RunStatus, SignalAppend, SignalRecord, SignalSend } from '@durable-lambda/engine';
import { failedAnyCondition, failedConditionAt } from './errors';
import { Expressions } from './expressions';
import { DUE_SHARD, dueShard, keyFits, PK, RUN_SK, runPk, SK, TTL } from './layout';
import type { StoreContext } from './store-context';
import type { Item } from './table-access';

/** Prefix of signal items' sort keys. */
export const SIGNAL_PREFIX = 'SIG#';
/** Prefix of dedupe markers' sort keys (never a prefix match of {@link SIGNAL_PREFIX}). */
export const SIGNAL_KEY_PREFIX = 'SIGK#';
/** The signal record on a signal item. */
const SIGNAL = 'signal';
/** Attempts at a signal whose seq another signal took meanwhile. */
const ATTEMPTS = 20;
/** What the append reads of the run item. */
const RUN_READ = ['status', 'createdAt', 'signalSeq', 'expiresAt', 'functionName'];

function signalSk(createdAt: number, seq: number): string {
  return `${SIGNAL_PREFIX}${createdAt}#${String(seq).padStart(10, '0')}`;
}

function markerSk(createdAt: number, key: string): string {
  return `${SIGNAL_KEY_PREFIX}${createdAt}#${createHash('sha256').update(key, 'utf8').digest('hex')}`;
}

/** `Store.appendSignal` on DynamoDB. */
export async function appendSignal(ctx: StoreContext, runId: string, send: SignalSend): Promise<SignalAppend> {
  const pk = runPk(runId);
  if (!keyFits(pk)) return { kind: 'not_found' };
  for (let attempt = 1; ; attempt++) {
    const run = await ctx.access.getItem(pk, RUN_SK, RUN_READ);
    if (!run || !ctx.live(run)) return { kind: 'not_found' };
    const createdAt = Number(run.createdAt);
    const status = run.status as RunStatus;
    const functionName = String(run.functionName);
    if (status !== 'RUNNING' && status !== 'QUEUED') {
      // A keyed retry of a signal stored before the run ended still gets its first answer.
      const earlier = send.dedupeKey === undefined ? undefined : await markedSignal(ctx, pk, createdAt, send.dedupeKey);
      return earlier
        ? { kind: 'stored', signal: earlier, created: false, status, functionName }
        : { kind: 'ended', status };
    }
    const previous = typeof run.signalSeq === 'number' ? run.signalSeq : 0;
    const signal: SignalRecord = {
      runId,
      seq: previous + 1,
      name: send.name,
      sentAt: send.sentAt,
      ...(send.payload === undefined ? {} : { payload: send.payload }),
      ...(send.dedupeKey === undefined ? {} : { dedupeKey: send.dedupeKey }),
    };
    try {
      await ctx.access.transact(appendItems(ctx, pk, createdAt, previous, status, signal, run));
      return { kind: 'stored', signal, created: true, status, functionName };
    } catch (error) {
      if (!failedAnyCondition(error) || attempt >= ATTEMPTS) throw error;
      // The key's marker is there: a retry of a keyed send, answered by the signal it stored
      // (read only now, so a first send pays no read for it).
      if (send.dedupeKey !== undefined && failedConditionAt(error, 2)) {
        const earlier = await markedSignal(ctx, pk, createdAt, send.dedupeKey);
        if (earlier) return { kind: 'stored', signal: earlier, created: false, status, functionName };
      }
      // Else the run moved (another signal took the seq, it ended): read it again.
    }
  }
}

function appendItems(
  ctx: StoreContext,
  pk: string,
  createdAt: number,
  previous: number,
  status: RunStatus,
  signal: SignalRecord,
  run: Item,
) {
  const now = ctx.clock.now();
  const ttl = ctx.itemTtl(now, typeof run.expiresAt === 'number' ? run.expiresAt : undefined);
  const e = new Expressions();
  e.setTo('signalSeq', signal.seq).setTo('updatedAt', now);
  if (status === 'RUNNING') {
    e.adds('eventSeq', 1);
    // As an outside event: due at once unless an invocation holds the lease (its release sees
    // `eventSeq` moved and leaves the run due).
    e.setToExpression('dueAt', `if_not_exists(${e.name('leaseExpiresAt')}, ${e.value(now)})`);
    e.setTo(DUE_SHARD, dueShard(signal.runId));
  }
  const seq = e.name('signalSeq');
  const condition = [
    `attribute_exists(${e.name(PK)})`,
    ctx.liveCondition(e, now),
    `${e.name('createdAt')} = ${e.value(createdAt)}`,
    `${e.name('status')} = ${e.value(status)}`,
    previous === 0 ? `attribute_not_exists(${seq})` : `${seq} = ${e.value(previous)}`,
  ].join(' AND ');
  const items = [
    {
      Put: {
        TableName: ctx.table,
        Item: { [PK]: pk, [SK]: signalSk(createdAt, signal.seq), [TTL]: ttl, [SIGNAL]: signal },
        ConditionExpression: 'attribute_not_exists(#pk)',
        ExpressionAttributeNames: { '#pk': PK },
      },
    },
    {
      Update: {
        TableName: ctx.table,
        Key: { [PK]: pk, [SK]: RUN_SK },
        UpdateExpression: e.update(),
        ConditionExpression: condition,
        ...e.attributes(),
      },
    },
  ];
  if (signal.dedupeKey === undefined) return items;
  return [
    ...items,
    {
      Put: {
        TableName: ctx.table,
        Item: { [PK]: pk, [SK]: markerSk(createdAt, signal.dedupeKey), [TTL]: ttl, seq: signal.seq },
        ConditionExpression: 'attribute_not_exists(#pk)',
        ExpressionAttributeNames: { '#pk': PK },
      },
    },
  ];
}

/** The signal a dedupe key's marker names, if the run's inbox has one. */
async function markedSignal(
  ctx: StoreContext,
  pk: string,
  createdAt: number,
  key: string,
): Promise<SignalRecord | undefined> {
  const marker = await ctx.access.getItem(pk, markerSk(createdAt, key), ['seq']);
  if (typeof marker?.seq !== 'number') return undefined;
  const item = await ctx.access.getItem(pk, signalSk(createdAt, marker.seq), [SIGNAL]);
  return item?.[SIGNAL] as SignalRecord | undefined;
}

/**
 * `Store.listSignals` on DynamoDB: one Query of the inbox, after a read of the run item's
 * creation unless the caller gave it (`createdAt`: an invocation holding the run knows it).
 */
export async function listSignals(ctx: StoreContext, runId: string, createdAt?: number): Promise<SignalRecord[]> {
  const pk = runPk(runId);
  if (!keyFits(pk)) return [];
  if (createdAt !== undefined) return listSignalsOf(ctx, runId, createdAt);
  const run = await ctx.access.getItem(pk, RUN_SK, ['createdAt', 'expiresAt']);
  if (!run || !ctx.live(run)) return [];
  return listSignalsOf(ctx, runId, Number(run.createdAt));
}

/** The inbox of the run created at `createdAt`, with one Query (strongly consistent). */
export async function listSignalsOf(ctx: StoreContext, runId: string, createdAt: number): Promise<SignalRecord[]> {
  const e = new Expressions();
  const items = await ctx.access.queryAll({
    KeyConditionExpression: `${e.name(PK)} = ${e.value(runPk(runId))} AND begins_with(${e.name(SK)}, ${e.value(`${SIGNAL_PREFIX}${createdAt}#`)})`,
    ProjectionExpression: e.name(SIGNAL),
    ...e.attributes(),
  });
  return items.map((item) => item[SIGNAL] as SignalRecord);
}
