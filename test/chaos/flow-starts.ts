/**
 * Runs that start themselves in a flow seed: trigger events (an SQS batch, an EventBridge event, a
 * DynamoDB Streams batch) delivered through the `TriggerReceiver` once, twice, twice at once and
 * late (after their run ended), and schedule firings through the `ScheduleReceiver`, duplicated
 * (also at once) and late, under the seed's overlap policy. Every delivery goes through the
 * driver's engine, invoker and waker, so under the seed's faults; a delivery the event source
 * would retry (a batch item failure, a thrown EventBridge start) is delivered again.
 */
import {
  type OverlapPolicy,
  runIdFor,
  ScheduleReceiver,
  scheduleRunKey,
  TriggerReceiver,
  triggerBatchOf,
} from '@durable-lambda/engine';
import { isInjectedFault, type TestDriver } from '@durable-lambda/local';
import { KEYED } from './flow-workflow';

/** Redeliveries of one event before the source gives up (SQS's maxReceiveCount, Lambda's retries). */
const REDELIVERIES = 10;

/** What the starts did, for the summary and the invariants. */
export interface StartTally {
  /** Trigger events delivered (each record of a batch counts), duplicates and late ones included. */
  deliveries: number;
  /** Deliveries made after their run ended. */
  late: number;
  /** Deliveries made at the same time as another of the same event. */
  concurrent: number;
  /** Schedule firings delivered (duplicates and late ones included). */
  firings: number;
  /** Firings that started nothing by the overlap policy. */
  skipped: number;
  /** Runs a cancelPrevious firing cancelled. */
  cancelled: number;
}

/** One trigger event: its raw Lambda event, and the run key its source gives it. */
export interface TriggerEvent {
  name: string;
  event: unknown;
  /** The run keys of its records. */
  runKeys: string[];
}

/** One firing of the seed's schedule. */
export interface Firing {
  scheduledTime: string;
  runKey: string;
}

/** The starts of one flow seed over its driver. */
export class FlowStarts {
  readonly tally: StartTally = {
    deliveries: 0,
    late: 0,
    concurrent: 0,
    firings: 0,
    skipped: 0,
    cancelled: 0,
  };
  readonly triggers: TriggerEvent[];
  readonly firings: Firing[];
  /** Firings delivered at least once, and those that started (or found) their run. */
  readonly fired = new Set<string>();
  readonly started = new Set<string>();
  /** Run ids answered for each run key, over every delivery (one each, or the invariant fails). */
  readonly answered = new Map<string, Set<string>>();
  /** Errors the receivers threw that were not injected (the engine's, to report). */
  readonly errors: string[] = [];
  readonly scheduleName: string;
  private readonly scheduleInput: string;
  private readonly trigger: TriggerReceiver;
  private readonly schedule: ScheduleReceiver;

  constructor(
    private readonly driver: TestDriver,
    seed: number,
    keys: readonly string[],
    readonly overlap: OverlapPolicy,
    private readonly random: () => number,
  ) {
    const { engine } = driver;
    const deps = { invoker: engine.invoker, waker: engine.waker, clock: driver.clock };
    this.trigger = new TriggerReceiver({ engine, ...deps });
    this.schedule = new ScheduleReceiver({ engine, ...deps });
    const key = (i: number) => keys[i % keys.length] as string;
    const sqs = (id: string, k: string) => ({
      messageId: id,
      receiptHandle: `rh-${id}`,
      body: JSON.stringify({ id, key: k }),
      attributes: { ApproximateReceiveCount: '1' },
      messageAttributes: {},
      eventSource: 'aws:sqs',
      eventSourceARN: 'arn:aws:sqs:us-east-1:123456789012:chaos-in',
    });
    const [m1, m2, e1, d1] = [`m1-${seed}`, `m2-${seed}`, `e1-${seed}`, `d1-${seed}`];
    this.triggers = [
      {
        name: 'sqs',
        event: { Records: [sqs(m1, key(0)), sqs(m2, key(1))] },
        runKeys: [`sqs:${KEYED}:${m1}`, `sqs:${KEYED}:${m2}`],
      },
      {
        name: 'eventbridge',
        event: {
          version: '0',
          id: e1,
          'detail-type': 'JobPlaced',
          source: 'chaos',
          account: '123456789012',
          time: '2030-01-01T00:00:00Z',
          region: 'us-east-1',
          resources: [],
          detail: { id: e1, key: key(2) },
        },
        runKeys: [`events:${KEYED}:${e1}`],
      },
      {
        name: 'dynamodb-stream',
        event: {
          Records: [
            {
              eventID: d1,
              eventName: 'INSERT',
              eventSource: 'aws:dynamodb',
              eventSourceARN: 'arn:aws:dynamodb:us-east-1:123456789012:table/jobs/stream/2030-01-01T00:00:00.000',
              dynamodb: {
                Keys: { id: { S: d1 } },
                NewImage: { id: { S: d1 }, key: { S: key(3) } },
                SequenceNumber: `${seed}01`,
              },
            },
          ],
        },
        runKeys: [`dynamodb:${KEYED}:${d1}`],
      },
    ];
    this.scheduleName = `tick-${seed}`;
    this.scheduleInput = JSON.stringify({ id: `tick-${seed}`, key: key(0) });
    // Three firings 45 s apart: a run takes longer (a wait of 20 s, backoffs, its queue), so they overlap.
    const at = driver.clock.now();
    this.firings = [0, 1, 2].map((i) => {
      const scheduledTime = new Date(at + i * 45_000).toISOString();
      return { scheduledTime, runKey: scheduleRunKey(KEYED, this.scheduleName, scheduledTime) };
    });
  }

  /** Delivers every trigger event once, some twice (one after the other, or at once). */
  async deliverTriggers(): Promise<void> {
    for (const t of this.triggers) {
      const roll = this.random();
      if (roll < 0.3) await Promise.all([this.deliver(t, 'concurrent'), this.deliver(t, 'concurrent')]);
      else {
        await this.deliver(t, 'first');
        if (roll < 0.6) await this.deliver(t, 'again');
      }
    }
  }

  /** Delivers each trigger event again after every run ended: each must find its ended run. */
  async deliverLate(): Promise<void> {
    for (const t of this.triggers) await this.deliver(t, 'late');
    for (const f of this.firings) if (this.started.has(f.runKey)) await this.fire(f, 'late');
  }

  /** Fires the firings due by now not fired yet (some twice, some at once). */
  async fireDue(): Promise<void> {
    const now = this.driver.clock.now();
    for (const f of this.firings) {
      if (this.fired.has(f.runKey) || Date.parse(f.scheduledTime) > now) continue;
      const roll = this.random();
      if (roll < 0.3) await Promise.all([this.fire(f, 'concurrent'), this.fire(f, 'concurrent')]);
      else {
        await this.fire(f, 'first');
        if (roll < 0.6) await this.fire(f, 'again');
      }
    }
  }

  /** Fires every firing not fired yet (the world went quiet before its time came). */
  async fireRest(): Promise<boolean> {
    const rest = this.firings.filter((f) => !this.fired.has(f.runKey));
    for (const f of rest) await this.fire(f, 'first');
    return rest.length > 0;
  }

  private async deliver(t: TriggerEvent, how: 'first' | 'again' | 'concurrent' | 'late'): Promise<void> {
    const batch = triggerBatchOf(t.event);
    if (!batch) throw new Error(`the ${t.name} event is not a trigger batch`);
    this.count(how, batch.records.length);
    let records = batch.records;
    for (let attempt = 1; records.length > 0 && attempt <= REDELIVERIES; attempt++) {
      try {
        const answer = await this.trigger.receive({ ...batch, records }, KEYED);
        if ('runId' in answer) {
          this.answer(t.runKeys[0] as string, answer.runId);
          records = [];
        } else {
          const failed = new Set(answer.batchItemFailures.map((f) => f.itemIdentifier));
          for (const r of records) {
            if (!failed.has(r.itemIdentifier ?? '')) {
              const runKey = this.trigger.runKeyOf(r, KEYED);
              this.answer(runKey, runIdFor(runKey));
            }
          }
          records = records.filter((r) => failed.has(r.itemIdentifier ?? ''));
        }
      } catch (error) {
        if (!isInjectedFault(error)) {
          this.errors.push(`${t.name}: ${error instanceof Error ? error.message : String(error)}`);
          return;
        }
      }
    }
  }

  private async fire(f: Firing, how: 'first' | 'again' | 'concurrent' | 'late'): Promise<void> {
    this.fired.add(f.runKey);
    this.tally.firings += 1;
    if (how === 'late') this.tally.late += 1;
    const event = {
      durableLambda: {
        action: 'schedule' as const,
        name: this.scheduleName,
        scheduledTime: f.scheduledTime,
        overlap: this.overlap,
        input: this.scheduleInput,
      },
    };
    for (let attempt = 1; attempt <= REDELIVERIES; attempt++) {
      try {
        const answer = await this.schedule.receive(event, KEYED);
        if ('skipped' in answer) this.tally.skipped += 1;
        else {
          this.started.add(f.runKey);
          this.tally.cancelled += answer.cancelled.length;
          this.answer(f.runKey, answer.runId);
        }
        return;
      } catch (error) {
        if (!isInjectedFault(error)) {
          this.errors.push(`firing ${f.runKey}: ${error instanceof Error ? error.message : String(error)}`);
          return;
        }
      }
    }
  }

  private count(how: 'first' | 'again' | 'concurrent' | 'late', records: number): void {
    this.tally.deliveries += records;
    if (how === 'late') this.tally.late += records;
    if (how === 'concurrent') this.tally.concurrent += records;
  }

  private answer(runKey: string, runId: string): void {
    const ids = this.answered.get(runKey) ?? new Set<string>();
    ids.add(runId);
    this.answered.set(runKey, ids);
  }
}
