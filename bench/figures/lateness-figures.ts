/**
 * Section "lateness": modelled wake-up lateness per wait length (wake-lateness-model.ts).
 * ours = what durable-lambda ships (in-process sleep ≤ inProcessWaitMs, an SQS delay ≤ 15 min,
 * EventBridge Scheduler + a final SQS hop beyond); reference = EventBridge Scheduler alone (also
 * what `onTimeWakeUps: false` ships).
 */
import { emitRows, type FigureRow, figure, sizeArg } from './figure-rows';
import { latenessStats } from './wake-lateness-model';

const WAITS: Array<[string, number]> = [
  ['1 s', 1],
  ['30 s', 30],
  ['5 min', 300],
  ['15 min', 900],
  ['1 h', 3600],
  ['1 day', 86_400],
  ['1 year', 365 * 86_400],
];
const SAMPLES = { smoke: 2_000, quick: 20_000, full: 100_000 }[sizeArg()];
const SEED = 14;

const rows: FigureRow[] = [];
/** ≤ 1 s, to the 10 ms the table prints. */
const within = (s: number) => s <= 1.01;
for (const [label, waitS] of WAITS) {
  const scheduler = latenessStats('scheduler', waitS, SAMPLES, SEED);
  const built = latenessStats('built', waitS, SAMPLES, SEED);
  const nearest = latenessStats('built-nearest', waitS, SAMPLES, SEED);
  const how = waitS <= 5 ? 'in-process sleep' : waitS <= 900 ? 'SQS delay' : 'Scheduler + SQS hop';
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
        `${how} (modelled, ${SAMPLES.toLocaleString('en-US')} seeded draws): p50 ${built.p50.toFixed(2)} s, max ${built.max.toFixed(2)} s; ` +
        `Scheduler alone: p50 ${scheduler.p50.toFixed(1)} s, p99 ${scheduler.p99.toFixed(1)} s.` +
        (waitS > 5
          ? ` SQS delays rounded down (the default: visible up to 1 s early, held in-process until due, ~0.8 s of billed hold per wake-up); with DURABLE_WAKE_DELAY_ROUNDING=nearest (about half the hold): p99 ${nearest.p99.toFixed(2)} s.`
          : '') +
        (within(built.p99)
          ? ''
          : ` Over 1 s by ${(built.p99 - 1).toFixed(2)} s: the assumed SQS-to-Lambda poll latency (p99 ~1 s)${waitS > 900 ? " plus the hop's rounding to whole seconds (±0.5 s; a message found early is held until due, one found late is not)" : ''}.`),
    }),
  );
}
emitRows(rows);
