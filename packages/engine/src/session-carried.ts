/**
 * What an invocation's writes carry besides its operations and history counts: the run's published
 * state (`session-published.ts`) and its search tags (`session-tags.ts`), each held until a write
 * that carried it succeeded.
 */
import type { CommitWrite } from './ports';
import type { RunPatch, RunRecord } from './run-record';
import { HeldPublication } from './session-published';
import { HeldTags } from './session-tags';

/** What one write carried: confirmed with {@link CarriedFields.written} once it succeeded. */
export interface Carried {
  published: object | undefined;
  tags: Record<string, string> | undefined;
}

export class CarriedFields {
  private readonly published: HeldPublication;
  private readonly tags: HeldTags;

  constructor(private readonly run: Pick<RunRecord, 'published' | 'tags' | 'createdAt'>) {
    this.published = new HeldPublication(run.published);
    this.tags = new HeldTags(run.tags);
  }

  /** Holds a published state (`ctx.publish`). */
  publish(state: string, at: number): void {
    this.published.hold(state, at);
  }

  /** Holds search tags (`ctx.tag`). */
  tag(tags: Readonly<Record<string, string>>): void {
    this.tags.hold(tags);
  }

  /** The write of `operations` with `patch` and what is held, and what it carries. */
  write(operations: CommitWrite['operations'], patch: RunPatch | undefined): [write: CommitWrite, sent: Carried] {
    const published = this.published.with(patch);
    const { patch: run, before, sent } = this.tags.with(published.patch);
    const write: CommitWrite = run ? { operations, run } : { operations };
    if (before !== undefined) write.tagged = { before, createdAt: this.run.createdAt };
    return [write, { published: published.sent, tags: sent }];
  }

  /** A write succeeded: what it carried is stored. */
  written(sent: Carried): void {
    this.published.written(sent.published);
    this.tags.written(sent.tags);
  }
}
