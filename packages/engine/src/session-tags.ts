/**
 * A run's search tags as one invocation holds them (`ctx.tag`): the tags the SDK handed over
 * since the last write, merged over the run's stored tags and written with the session's next
 * write (a checkpoint, or the write that ends the invocation), as the published state is
 * (`session-published.ts`): no write request of its own on the memory and SQLite stores; on
 * DynamoDB the store writes the tag's index entries beside it (`aws/src/dynamodb/tag-index.ts`).
 *
 * Held until a write that carried them succeeded: a failed write leaves them held for the next.
 * Only this invocation writes the run's tags while it holds the lease (the fence), so the stored
 * tags it knows are the run's, and each write says which tags it replaces (`CommitWrite.tagged`) for a
 * store that indexes them. The SDK hands over only tags made past the point the run had reached,
 * so a replay never sets a key back to an older value.
 */
import { type RunTags, tagsProblem } from '@durable-lambda/protocol';
import { EngineInputError } from './errors';
import type { RunPatch } from './run-record';

export class HeldTags {
  /** Tags handed over and not yet written, key to value. */
  private held: RunTags | undefined;
  /** The tags as stored (after the last write that carried some). */
  private stored: RunTags;

  constructor(stored: RunTags | undefined) {
    this.stored = { ...stored };
  }

  /** Holds `tags` over those held before; refused when a tag is bad or the run would carry too many. */
  hold(tags: Readonly<RunTags>): void {
    const merged = { ...this.stored, ...this.held };
    const problem = tagsProblem(tags, merged);
    if (problem) throw new EngineInputError(problem.field, problem.message);
    // A tag equal to what is stored changes nothing: no write (no index entry) for it.
    const changes = Object.entries(tags).filter(([key, value]) => merged[key] !== value);
    if (changes.length === 0) return;
    this.held = { ...this.held, ...Object.fromEntries(changes) };
  }

  /**
   * The patch that writes the held tags (the run's whole set, with `patch`'s own fields), the tags
   * it replaces, and a token for {@link written}. `patch` unchanged when nothing is held.
   */
  with(patch: RunPatch | undefined): { patch: RunPatch | undefined; before?: RunTags; sent?: RunTags } {
    const held = this.held;
    if (!held) return { patch };
    return { patch: { ...patch, tags: { ...this.stored, ...held } }, before: { ...this.stored }, sent: held };
  }

  /** The write that carried `sent` succeeded: those tags are stored; tags held since stay held. */
  written(sent: RunTags | undefined): void {
    if (sent === undefined) return;
    this.stored = { ...this.stored, ...sent };
    if (this.held === sent) this.held = undefined;
  }
}
