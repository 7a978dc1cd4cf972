/**
 * The workflow of the flow seeds (`flow-world.ts`): one function declared with
 * `concurrency: { key, limit }`, started directly, by trigger events (SQS, EventBridge, DynamoDB
 * Streams) and by schedule firings, whose handler body records each entry, per key, in world order.
 */
import {
  type DurableContext,
  type DurableLambdaHandler,
  type RetryPolicy,
  type StepContext,
  withDurableExecution,
} from '@durable-lambda/sdk';
import type { OutsideWorld } from './outside-world';
import type { LoggedWrite, WorldOrder } from './store-log';

/** The function's name, in the driver and in the slot keys. */
export const KEYED = 'keyed';

/** What a run of the keyed function works on: its job id and its concurrency key. */
export interface Job {
  id: string;
  key: string;
}

/** Enough attempts that injected deaths never exhaust a step. */
const RETRY: RetryPolicy = { maxAttempts: 40, initialMs: 1_000, maxMs: 1_000, jitter: 'NONE' };

/** Statuses a run ends with: its slot must be free. */
export const ENDED = new Set(['SUCCEEDED', 'FAILED', 'CANCELLED', 'TIMED_OUT', 'STOPPED']);

/**
 * The job of a run's input, whatever started it: a direct start's `{ id, key }`, an SQS message's
 * body, an EventBridge event's detail, a stream record's new image, a schedule's input.
 */
export function jobOf(input: unknown): Job {
  const event = (input ?? {}) as Record<string, unknown>;
  if (typeof event.body === 'string') return jobOf(JSON.parse(event.body));
  if (event.detail && typeof event.detail === 'object') return jobOf(event.detail);
  const image = (event.dynamodb as { NewImage?: Record<string, { S?: string }> } | undefined)?.NewImage;
  if (image) return { id: image.id?.S ?? '?', key: image.key?.S ?? '?' };
  if (typeof event.id === 'string' && typeof event.key === 'string') return { id: event.id, key: event.key };
  throw new Error(`no job in ${JSON.stringify(input)}`);
}

/** One entry of a handler body: the run passed its admission and its handler runs. */
export interface BodyEntry {
  seq: number;
  runId: string;
  key: string;
}

/**
 * The handler bodies of keyed runs, entered per key. A run's body counts as executing from its
 * entry until its end is durable (its slot is held through its waits and its killed invocations;
 * only its end, or an operator's, lets it go); at each entry the runs of the key executing then are
 * counted, and more than `limit` is a violation.
 */
export class KeyedBodies {
  readonly entries: BodyEntry[] = [];
  readonly violations: string[] = [];
  /** The most bodies of one key seen executing at once. */
  readonly peak = new Map<string, number>();

  constructor(
    private readonly order: WorldOrder,
    private readonly log: readonly LoggedWrite[],
    readonly limit: number,
  ) {}

  /** A body entered; checks the key's bodies executing now against the limit. */
  enter(runId: string, key: string): void {
    const seq = this.order.next();
    this.entries.push({ seq, runId, key });
    const executing = this.executing(key);
    this.peak.set(key, Math.max(this.peak.get(key) ?? 0, executing.length));
    if (executing.length > this.limit) {
      this.violations.push(
        `key ${key} had ${executing.length} handler bodies executing at once (limit ${this.limit}): ${executing.join(', ')}`,
      );
    }
  }

  /** Runs of `key` whose last body entry is after their last durable end. */
  executing(key: string): string[] {
    const lastEntry = new Map<string, number>();
    for (const e of this.entries) if (e.key === key) lastEntry.set(e.runId, e.seq);
    const lastEnd = new Map<string, number>();
    for (const w of this.log) {
      if (w.status !== undefined && ENDED.has(w.status) && lastEntry.has(w.runId)) lastEnd.set(w.runId, w.seq);
    }
    return [...lastEntry].filter(([runId, seq]) => seq > (lastEnd.get(runId) ?? 0)).map(([runId]) => runId);
  }
}

/**
 * The keyed function: a step that fails its first attempt (so a skip finds it waiting), for a
 * direct job a callback, a wait, a second step; it returns `{ id, a, b }`. `limit` runs of a key
 * at most.
 */
export function keyedFunction(
  world: OutsideWorld,
  bodies: KeyedBodies,
  limit: number,
): Record<string, DurableLambdaHandler> {
  const body = (step: string, value: string, failures: number) => async (context: StepContext) => {
    const n = await world.step(step, context);
    if (n <= failures) throw new Error(`planned failure ${n} of ${step}`);
    return value;
  };
  const keyed = withDurableExecution(
    async (event: unknown, ctx: DurableContext) => {
      const job = jobOf(event);
      bodies.enter(ctx.runId, job.key);
      const a = await ctx.step('a', body('a', `a-${job.id}`, 1), { retry: RETRY });
      if (job.id.startsWith('j')) {
        // Direct jobs wait on a callback the outside completes (maybe twice) while they hold their slot.
        await ctx.waitForCallback<string>(
          'approve',
          async (callbackId, step) => {
            await world.step('approve-submit', step);
            world.handOut(callbackId, `ok-${job.id}`);
          },
          { retryStrategy: () => ({ shouldRetry: true, delay: { seconds: 1 } }) },
        );
      }
      await ctx.wait('pause', { seconds: 20 });
      const b = await ctx.step('b', body('b', `b-${job.id}`, 0), { retry: RETRY });
      return { id: job.id, a, b };
    },
    { concurrency: { key: (event: unknown) => jobOf(event).key, limit } },
  );
  return { [KEYED]: keyed };
}

/** The result a keyed run must give (a skipped step is given the value its body returns). */
export function expectedResult(result: unknown): boolean {
  const r = result as { id?: unknown; a?: unknown; b?: unknown } | undefined;
  return typeof r?.id === 'string' && r.a === `a-${r.id}` && r.b === `b-${r.id}`;
}
