/**
 * Section "lateness": modelled wake-up lateness per wait length (wake-lateness-model.ts), and the
 * in-process hold it costs. ours = what durable-lambda ships (in-process sleep ≤ inProcessWaitMs,
 * an SQS delay ≤ 15 min, EventBridge Scheduler + a final SQS hop beyond, delays rounded by the
 * default `adaptive` rounding); reference = EventBridge Scheduler alone (also what
 * `onTimeWakeUps: false` ships). The hold row checks that the shipped hold budget is the cheapest
 * that keeps every wait from 30 s to a year within 1 s at p99.
 */
import { HOP_HOLD_BUDGET_MS } from '../../packages/aws/src/sqs-delay-waker';
import { emitRows, type FigureRow, figure, sizeArg } from './figure-rows';
import { cheapestHoldBudget, latenessStats, MODEL_SEED, MODELLED_WAITS, type WakeStats } from './wake-lateness-model';

const SAMPLES = { smoke: 2_000, quick: 20_000, full: 100_000 }[sizeArg()];

const rows: FigureRow[] = [];
/** ≤ 1 s, to the 10 ms the table prints. */
const within = (s: number) => s <= 1.01;
const s2 = (x: number) => `${x.toFixed(2)} s`;
const alt = (name: string, x: WakeStats) => `${name}: p99 ${s2(x.p99)}, hold ${s2(x.meanHold)}`;
for (const [label, waitS] of MODELLED_WAITS) {
  const scheduler = latenessStats('scheduler', waitS, SAMPLES, MODEL_SEED);
  const built = latenessStats('adaptive', waitS, SAMPLES, MODEL_SEED);
  const down = latenessStats('down', waitS, SAMPLES, MODEL_SEED);
  const nearest = latenessStats('nearest', waitS, SAMPLES, MODEL_SEED);
  const how = waitS <= 5 ? 'in-process sleep' : waitS <= 900 ? 'SQS delay' : 'Scheduler + SQS hop';
  const holdNote =
    waitS <= 5
      ? ''
      : ` Held in-process until due: ${s2(built.meanHold)} per wake-up on average (billed Lambda time)` +
        (waitS <= 900
          ? ', the message sent as the wait starts, so its whole-second delay is rounded down (visible ~0.9 s early; rounded up it would be late by the poll latency every time).'
          : `, the hop's message sent anywhere in Scheduler's minute: rounded down only when that leaves at most ${HOP_HOLD_BUDGET_MS} ms to hold, up otherwise.`) +
        ` Opt-in roundings (DURABLE_WAKE_DELAY_ROUNDING): ${alt('down', down)}; ${alt('nearest', nearest)}.`;
  rows.push(
    figure({
      section: 'lateness',
      metric: `wake-up p99 lateness, wait ${label}, shipped today`,
      unit: 's',
      ours: built.p99,
      reference: scheduler.p99,
      referenceName: 'EventBridge Scheduler alone (modelled; also onTimeWakeUps: false)',
      target: '≤ 1 s',
      met: (_r, o) => within(o),
      note:
        `${how} (modelled, ${SAMPLES.toLocaleString('en-US')} seeded draws): p50 ${s2(built.p50)}, max ${s2(built.max)}; ` +
        `Scheduler alone: p50 ${scheduler.p50.toFixed(1)} s, p99 ${scheduler.p99.toFixed(1)} s.` +
        holdNote +
        (within(built.p99)
          ? ''
          : ` Over 1 s by ${(built.p99 - 1).toFixed(2)} s: the assumed SQS-to-Lambda poll latency (p99 ~1 s) on top of the delay's rounding.`),
    }),
  );
}

// The hold budget: the cheapest, in tenths of a second, that keeps every modelled wait within 1 s.
const choice = cheapestHoldBudget(SAMPLES);
const shipped = latenessStats('adaptive', 3600, SAMPLES, MODEL_SEED);
const down = latenessStats('down', 3600, SAMPLES, MODEL_SEED);
const tried = choice.tried
  .map((t) => `${t.budgetMs} ms: p99 ${t.worstP99.toFixed(2)} s, hold ${t.holdAt1h.toFixed(3)} s`)
  .join('; ');
rows.push(
  figure({
    section: 'lateness',
    metric: 'in-process hold per wake-up after a wait beyond 15 min (Scheduler + SQS hop)',
    unit: 's',
    ours: shipped.meanHold,
    reference: down.meanHold,
    referenceName: 'delays rounded down (the default before; DURABLE_WAKE_DELAY_ROUNDING=down)',
    target: 'least hold with p99 ≤ 1 s for every wait, 30 s to 1 year',
    // At the smoke size (2,000 draws) a p99 moves by a few hundredths: the choice is not judged.
    ...(sizeArg() === 'smoke' ? {} : { met: () => choice.budgetMs === HOP_HOLD_BUDGET_MS }),
    note:
      `modelled, ${SAMPLES.toLocaleString('en-US')} seeded draws: HOP_HOLD_BUDGET_MS ${HOP_HOLD_BUDGET_MS} ships, the cheapest budget within 1 s is ${choice.budgetMs ?? 'none'} ms ` +
      `(budget: worst p99 over the waits, mean hold at 1 h: ${tried}). ` +
      `Waits within 15 minutes hold ${s2(latenessStats('adaptive', 300, SAMPLES, MODEL_SEED).meanHold)} per wake-up whatever the budget: their message is sent as the wait starts, a whole number of seconds and a few ms before it is due, so only rounding down keeps them within 1 s under the assumed poll latency (nearest: no hold, p99 ${s2(latenessStats('nearest', 300, SAMPLES, MODEL_SEED).p99)}).`,
  }),
);
emitRows(rows);
