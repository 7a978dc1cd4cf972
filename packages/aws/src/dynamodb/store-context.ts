import type { RunRecord } from '@durable-lambda/engine';
import type { Expressions } from './expressions';
import { InlineHints } from './inline-operations';
import { type ItemLimits, itemRefs, runFromItem } from './items';
import { PK, ttlSeconds } from './layout';
import type { Item, TableAccess } from './table-access';

/**
 * What every part of the {@link DynamoDbStore} shares: the table, the clock, the item limits, the
 * TTL ceiling and the hints on inline STARTs, with the few rules about a run's retention they all
 * apply. One object, so the store's concerns (run writes, operation reads, outside events) live in
 * separate modules without each of them re-deriving the options.
 */
export class StoreContext {
  /** What this store last knew of its runs' inline operations: a guess, checked by every write. */
  readonly inline = new InlineHints();
  /** Function base names this store has put in the table's `FUNCTIONS` registry (once each). */
  readonly registered = new Set<string>();

  constructor(
    readonly access: TableAccess,
    readonly clock: { now(): number },
    readonly limits: ItemLimits,
    /** How long operation and chunk items live past their last write, when the run's retention is unknown. */
    readonly ceilingMs: number,
  ) {}

  /** The table's name, for requests built by hand. */
  get table(): string {
    return this.access.tableName;
  }

  /** The run's retention has not passed (DynamoDB may not have deleted it yet). */
  liveCondition(e: Expressions, now = this.clock.now()): string {
    const expiresAt = e.name('expiresAt');
    return `(attribute_not_exists(${expiresAt}) OR ${expiresAt} > ${e.value(now)})`;
  }

  /** Whether a run item is within its retention. */
  live(item: Item): boolean {
    return typeof item.expiresAt !== 'number' || item.expiresAt > this.clock.now();
  }

  /** The TTL of operation and chunk items written now: the ceiling, or the run's retention if later. */
  itemTtl(now: number, expiresAt: number | undefined): number {
    return ttlSeconds(Math.max(now + this.ceilingMs, expiresAt ?? 0));
  }

  /** The run record of a run item, with its chunked fields read. */
  async runOf(item: Item): Promise<RunRecord> {
    const refs = itemRefs(item);
    const pool = await this.access.readChunks(String(item[PK]), refs, this.clock.now());
    return runFromItem(item, pool);
  }
}
