/**
 * Section "lateness": modelled wake-up lateness per mechanism and wait length (wake-lateness-model.ts).
 * ours = what durable-lambda ships today (EventBridge Scheduler for every wait beyond
 * inProcessWaitMs) and, separately, the design the issue asks for (SQS delay ≤ 15 min, Scheduler +
 * a final SQS hop beyond); reference = EventBridge Scheduler alone.
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
  const designed = latenessStats(waitS <= 900 ? 'sqs-delay' : 'scheduler+sqs-hop', waitS, SAMPLES, SEED);
  const how = waitS <= 900 ? 'SQS delay' : 'Scheduler + SQS hop';
  const today = waitS <= 5 ? 'in-process sleep (≤ inProcessWaitMs 5 s): ~0 s late' : 'Scheduler alone';
  rows.push(
    figure({
      section: 'lateness',
      metric: `wake-up p99 lateness, wait ${label}, shipped today`,
      unit: 's',
      // A 1 s wait sleeps in-process today (inProcessWaitMs 5 s): no wake-up mechanism is involved.
      ours: waitS <= 5 ? 0 : scheduler.p99,
      reference: scheduler.p99,
      referenceName: 'EventBridge Scheduler alone (modelled)',
      target: '≤ 1 s',
      met: (_r, o) => within(o),
      note:
        waitS <= 5
          ? `${today}. `
          : `${today}: p50 ${scheduler.p50.toFixed(1)} s, max ${scheduler.max.toFixed(1)} s. Missed by ` +
            `${(scheduler.p99 - 1).toFixed(0)} s: Scheduler has minute precision; closed by the SQS delay queue (not built yet).`,
    }),
    figure({
      section: 'lateness',
      metric: `wake-up p99 lateness, wait ${label}, designed (${how})`,
      unit: 's',
      ours: designed.p99,
      reference: scheduler.p99,
      referenceName: 'EventBridge Scheduler alone (modelled)',
      target: '≤ 1 s',
      met: (_r, o) => within(o),
      note:
        `modelled, not built: p50 ${designed.p50.toFixed(2)} s, max ${designed.max.toFixed(2)} s (${SAMPLES.toLocaleString('en-US')} seeded draws).` +
        (!within(designed.p99)
          ? ` Over 1 s by ${(designed.p99 - 1).toFixed(2)} s: ${waitS > 900 ? "DelaySeconds is whole seconds (rounding up the hop's remainder adds up to 1 s) plus" : ''} the assumed SQS-to-Lambda poll latency (p99 ~1 s); sending the hop rounded down and sleeping the sub-second rest in-process (as inProcessWaitMs does) would leave only the poll latency.`
          : ''),
    }),
  );
}
emitRows(rows);
