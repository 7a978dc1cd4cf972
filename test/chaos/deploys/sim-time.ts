/**
 * Virtual time for the deploy world: a queue of tasks by due time, run one after another (or, as
 * a fault, two at once: racing invocations), the clock jumping to each. An invocation that sleeps
 * (an early wake-up held, an immediate wake-up's wait) moves the clock itself.
 */
import { VirtualClock } from '@durable-lambda/local';

interface Task {
  at: number;
  seq: number;
  label: string;
  run: () => Promise<void>;
}

/** The faults a seed's world injects, each decided by its seeded random numbers. */
export class Dice {
  constructor(private readonly random: () => number) {}

  /** True with probability `p`. */
  chance(p: number): boolean {
    return this.random() < p;
  }

  /** A whole number from `min` to `max`, both included. */
  between(min: number, max: number): number {
    return min + Math.floor(this.random() * (max - min + 1));
  }

  /** One of `items`. */
  pick<T>(items: readonly T[]): T {
    return items[Math.floor(this.random() * items.length)] as T;
  }
}

/** The task queue of one world, on its own virtual clock. */
export class SimTime {
  readonly clock: VirtualClock;
  private readonly tasks: Task[] = [];
  private seq = 0;
  /** Errors thrown by tasks (a task's own failures are handled inside it; these are bugs). */
  readonly taskErrors: string[] = [];

  constructor(
    start: number,
    private readonly dice: Dice,
    /** Probability that a task runs at once with the next one due within a second (a race). */
    private readonly raceProbability: number,
  ) {
    this.clock = new VirtualClock(start);
  }

  now(): number {
    return this.clock.now();
  }

  /** Runs `run` at `at` (now, if that has passed). */
  at(at: number, label: string, run: () => Promise<void>): void {
    this.tasks.push({ at: Math.max(at, this.now()), seq: this.seq++, label, run });
  }

  /** Runs `run` `ms` from now. */
  after(ms: number, label: string, run: () => Promise<void>): void {
    this.at(this.now() + ms, label, run);
  }

  /** How an invocation sleeps: virtual time moves on. */
  sleep = async (ms: number): Promise<void> => {
    this.clock.advanceBy(ms);
  };

  /** Runs tasks in time order until `done` says so, or nothing is left, or `until` passes. */
  async runUntil(done: () => boolean, until: number): Promise<'done' | 'idle' | 'timeout'> {
    for (;;) {
      if (done()) return 'done';
      const first = this.take();
      if (!first) return 'idle';
      if (first.at > until) return 'timeout';
      this.clock.advanceTo(first.at);
      const batch = [first];
      const second = this.peek();
      if (second && second.at <= first.at + 1_000 && this.dice.chance(this.raceProbability)) {
        batch.push(this.take() as Task);
      }
      await Promise.all(batch.map((task) => this.runTask(task)));
    }
  }

  private async runTask(task: Task): Promise<void> {
    try {
      await task.run();
    } catch (error) {
      this.taskErrors.push(`${task.label}: ${error instanceof Error ? error.stack : String(error)}`);
    }
  }

  private peek(): Task | undefined {
    let best: Task | undefined;
    for (const t of this.tasks) if (!best || t.at < best.at || (t.at === best.at && t.seq < best.seq)) best = t;
    return best;
  }

  private take(): Task | undefined {
    const best = this.peek();
    if (best) this.tasks.splice(this.tasks.indexOf(best), 1);
    return best;
  }
}
