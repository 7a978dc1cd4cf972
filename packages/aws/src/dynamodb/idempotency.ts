import type { IdempotencyRecord } from '@durable-lambda/engine';
import { approximateSize, type ChunkItem, type ChunkRef, chunkItems, splitField } from './chunks';
import { DeleteCommand, PutCommand, UpdateCommand } from './commands';
import { isConditionFailure } from './errors';
import { Expressions } from './expressions';
import type { ItemLimits } from './items';
import { chunkBytes } from './items';
import { IDEMPOTENCY_SK, idempotencyPk, PK, SK, TTL, ttlSeconds } from './layout';
import { conditionFailureItem } from './returned-items';
import type { Item, TableAccess } from './table-access';

/** On an idempotency item: the record (its response body moved out when large). */
const RECORD = 'record';
/** On an idempotency item: the chunk reference of a large response body. */
const BODY_REF = 'bodyRef';

type Response = NonNullable<IdempotencyRecord['response']>;

/**
 * Idempotency records of the control API, one item each: `pk=IDEM#<key>`, `sk=IDEM`, the record
 * in `record`, `expiresAt` (ms) for conditions and `ttl` (s) for deletion. A record past
 * `expiresAt` counts as absent, as DynamoDB may keep it a while.
 */
export class IdempotencyRecords {
  constructor(
    private readonly access: TableAccess,
    private readonly limits: ItemLimits,
  ) {}

  /**
   * A PutItem conditioned on no live record. A failed claim gets the live record back with the
   * failure (no read); a record holding this claim's own `claimToken` is its own earlier success
   * (the SDK sent the PutItem again after its response was lost), so it is claimed, not refused.
   */
  async claim(
    record: IdempotencyRecord,
    now: number,
  ): Promise<{ claimed: true } | { claimed: false; existing: IdempotencyRecord }> {
    const pk = idempotencyPk(record.key);
    const { item, chunks } = this.item(pk, record, record.response);
    await this.access.writeChunks(chunks);
    for (let attempt = 0; attempt < 5; attempt++) {
      const e = new Expressions();
      let existing: Item | undefined;
      try {
        await this.access.client.send(
          new PutCommand({
            TableName: this.access.tableName,
            Item: item,
            ConditionExpression: `attribute_not_exists(${e.name(PK)}) OR ${e.name('expiresAt')} <= ${e.value(now)}`,
            ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
            ...e.attributes(),
          }),
        );
        return { claimed: true };
      } catch (error) {
        if (!isConditionFailure(error)) throw error;
        existing = conditionFailureItem(error) ?? (await this.access.getItem(pk, IDEMPOTENCY_SK));
      }
      if (existing && Number(existing.expiresAt) > now) {
        const stored = existing[RECORD] as IdempotencyRecord;
        if (record.claimToken !== undefined && stored.claimToken === record.claimToken) return { claimed: true };
        return { claimed: false, existing: await this.read(existing, now) };
      }
    }
    throw new Error(`idempotency key ${record.key}: the stored record kept changing`);
  }

  async complete(
    key: string,
    response: Response,
    now: number,
    claim?: { claimToken: string; expiresAt: number },
  ): Promise<void> {
    const pk = idempotencyPk(key);
    const e = new Expressions();
    let stored: Response = response;
    if (approximateSize(response) > this.limits.maxItemBytes / 2) {
      // Rare: read the record for its retention, so the body's chunks live as long as it does.
      const current = await this.access.getItem(pk, IDEMPOTENCY_SK, ['expiresAt']);
      if (!current) return;
      const keptUntil = claim?.expiresAt ?? Number(current.expiresAt);
      const split = splitField(response.body, chunkBytes(this.limits), this.limits.objectBytes);
      await this.access.writeChunks(chunkItems(pk, split, ttlSeconds(Math.max(keptUntil, now))));
      const { body: _body, ...rest } = response;
      stored = rest as Response;
      e.setTo(BODY_REF, split.ref);
    } else {
      e.removes(BODY_REF);
    }
    e.setTo(`${RECORD}.state`, 'COMPLETED').setTo(`${RECORD}.response`, stored);
    const conditions = [`attribute_exists(${e.name(PK)})`];
    if (claim) {
      // Only this claim's record, which now lives for the key's whole retention.
      conditions.push(`${e.name(`${RECORD}.claimToken`)} = ${e.value(claim.claimToken)}`);
      e.setTo(`${RECORD}.expiresAt`, claim.expiresAt).setTo('expiresAt', claim.expiresAt);
      e.setTo(TTL, ttlSeconds(claim.expiresAt));
    }
    try {
      await this.access.client.send(
        new UpdateCommand({
          TableName: this.access.tableName,
          Key: { [PK]: pk, [SK]: IDEMPOTENCY_SK },
          UpdateExpression: e.update(),
          ConditionExpression: conditions.join(' AND '),
          ...e.attributes(),
        }),
      );
    } catch (error) {
      // No record (released, or never claimed): nothing to complete.
      if (!isConditionFailure(error)) throw error;
    }
  }

  async release(key: string, claimToken?: string): Promise<void> {
    const e = new Expressions();
    const condition =
      claimToken === undefined
        ? {}
        : { ConditionExpression: `${e.name(`${RECORD}.claimToken`)} = ${e.value(claimToken)}` };
    try {
      await this.access.client.send(
        new DeleteCommand({
          TableName: this.access.tableName,
          Key: { [PK]: idempotencyPk(key), [SK]: IDEMPOTENCY_SK },
          ...condition,
          ...e.attributes(),
        }),
      );
    } catch (error) {
      // Another claim's record (this one expired and was taken again): not ours to delete.
      if (!isConditionFailure(error)) throw error;
    }
  }

  private item(
    pk: string,
    record: IdempotencyRecord,
    response: Response | undefined,
  ): { item: Item; chunks: ChunkItem[] } {
    const item: Item = {
      [PK]: pk,
      [SK]: IDEMPOTENCY_SK,
      [RECORD]: record,
      expiresAt: record.expiresAt,
      [TTL]: ttlSeconds(record.expiresAt),
    };
    if (!response || approximateSize(response) <= this.limits.maxItemBytes / 2) return { item, chunks: [] };
    const split = splitField(response.body, chunkBytes(this.limits), this.limits.objectBytes);
    const { body: _body, ...rest } = response;
    item[RECORD] = { ...record, response: rest };
    item[BODY_REF] = split.ref;
    return { item, chunks: chunkItems(pk, split, ttlSeconds(record.expiresAt)) };
  }

  private async read(item: Item, now: number): Promise<IdempotencyRecord> {
    const record = item[RECORD] as IdempotencyRecord;
    const ref = item[BODY_REF] as ChunkRef | undefined;
    if (!ref || !record.response) return record;
    const pool = await this.access.readChunks(String(item[PK]), [ref], now);
    return { ...record, response: { ...record.response, body: pool?.join(String(item[PK]), ref) as string } };
  }
}
