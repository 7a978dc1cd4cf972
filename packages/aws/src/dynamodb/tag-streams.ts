/**
 * The tag index read newest first (`tag-index.ts`): each tag's 16 shards queried in parallel and
 * merged by sort key, and the tags of a query intersected on the entries themselves (a run's
 * entries under every tag share one sort key, `<createdAt>#<runId>`), so a search by several tags
 * reads run items only for runs that have an entry under each, whichever tag is the rare one.
 */
import { Expressions } from './expressions';
import { PK, SK } from './layout';
import type { Item, TableAccess } from './table-access';
import { tagPks } from './tag-index';

/** A tag index entry: where its run sorts. */
export interface TagEntry {
  runId: string;
  createdAt: number;
  sk: string;
}

/** The sort-key range a search reads: at or above `lower`, below `upper` (each when set). */
export interface SkRange {
  lower?: string | undefined;
  upper?: string | undefined;
}

/** One shard's Query, read a page at a time, newest first. */
class Shard {
  private readonly pages: AsyncGenerator<Item[]>;
  buffer: TagEntry[] = [];
  done = false;

  constructor(
    access: TableAccess,
    pk: string,
    private readonly range: SkRange,
    size: number,
  ) {
    const e = new Expressions();
    const conditions = [`${e.name(PK)} = ${e.value(pk)}`];
    const { lower, upper } = range;
    if (lower !== undefined && upper !== undefined) {
      conditions.push(`${e.name(SK)} BETWEEN ${e.value(lower)} AND ${e.value(upper)}`);
    } else if (lower !== undefined) conditions.push(`${e.name(SK)} >= ${e.value(lower)}`);
    else if (upper !== undefined) conditions.push(`${e.name(SK)} < ${e.value(upper)}`);
    this.pages = access.queryPages({
      KeyConditionExpression: conditions.join(' AND '),
      ScanIndexForward: false,
      Limit: size,
      ...e.attributes(),
    });
  }

  /** Reads the next page when the buffer is empty and more may follow. */
  async fill(): Promise<void> {
    while (this.buffer.length === 0 && !this.done) {
      const next = await this.pages.next();
      if (next.done) {
        this.done = true;
        return;
      }
      for (const item of next.value) {
        const sk = String(item[SK]);
        // BETWEEN includes its upper bound: the cursor's own entry is not after it.
        if (this.range.upper !== undefined && sk >= this.range.upper) continue;
        this.buffer.push({ runId: String(item.runId), createdAt: Number(item.createdAt), sk });
      }
    }
  }
}

/** One tag's shards merged newest first (by sort key, descending). */
class TagStream {
  private readonly shards: Shard[];

  constructor(access: TableAccess, tag: [string, string], range: SkRange, size: number) {
    this.shards = tagPks(...tag).map((pk) => new Shard(access, pk, range, size));
  }

  /** The newest entry not taken, or undefined at the end. */
  async peek(): Promise<TagEntry | undefined> {
    return this.best()?.buffer[0] ?? (await this.filled()).best()?.buffer[0];
  }

  /** Takes the entry {@link peek} answered. */
  pop(): void {
    this.best()?.buffer.shift();
  }

  private async filled(): Promise<this> {
    await Promise.all(this.shards.map((shard) => shard.fill()));
    return this;
  }

  /** The shard with the newest head, once every shard that may have more has a head. */
  private best(): Shard | undefined {
    let best: Shard | undefined;
    for (const shard of this.shards) {
      const head = shard.buffer[0];
      if (!head) {
        if (!shard.done) return undefined;
        continue;
      }
      if (!best || head.sk > (best.buffer[0] as TagEntry).sk) best = shard;
    }
    return best;
  }
}

/**
 * The entries present under every tag of a query, newest first. Counts the entries it passed
 * over, and the smallest sort key it has decided (every entry above it has been taken or passed).
 */
export class TagIntersection {
  private readonly streams: TagStream[];
  /** Entries read and decided (matched or passed over). */
  read = 0;
  /** The oldest entry decided so far: nothing newer is left undecided. */
  decided: TagEntry | undefined;
  /** The last entry {@link next} answered. */
  lastTaken: TagEntry | undefined;

  constructor(
    access: TableAccess,
    tags: Array<[string, string]>,
    range: SkRange,
    size: number,
    /** Entries to read at most: past them {@link next} answers undefined and {@link capped} is true. */
    private readonly maxRead: number,
  ) {
    this.streams = tags.map((tag) => new TagStream(access, tag, range, size));
  }

  /** Whether reading stopped at `maxRead` entries (more may follow {@link decided}). */
  get capped(): boolean {
    return this.read >= this.maxRead;
  }

  /** The next entry every tag has, or undefined when one tag has no more or `maxRead` is reached. */
  async next(): Promise<TagEntry | undefined> {
    for (;;) {
      if (this.capped) return undefined;
      const heads = await Promise.all(this.streams.map((stream) => stream.peek()));
      if (heads.some((head) => head === undefined)) return undefined;
      const entries = heads as TagEntry[];
      const oldest = entries.reduce((a, b) => (a.sk < b.sk ? a : b));
      if (entries.every((entry) => entry.sk === oldest.sk)) {
        for (const stream of this.streams) stream.pop();
        this.note(oldest);
        this.lastTaken = oldest;
        return oldest;
      }
      // An entry newer than another tag's newest cannot be under that tag: passed over.
      for (const [i, stream] of this.streams.entries()) {
        const head = entries[i] as TagEntry;
        if (head.sk > oldest.sk) {
          stream.pop();
          this.note(head);
        }
      }
    }
  }

  private note(entry: TagEntry): void {
    this.read += 1;
    if (!this.decided || entry.sk < this.decided.sk) this.decided = entry;
  }
}
