/**
 * The flow section's rows for the gates besides `concurrency` and for a schedule's `bufferOne`
 * overlap (measured in flow-gate-scenarios.ts): each as the extra over the same run without the
 * gate, the run started by the control API (`startRun`, one invoke) and run to its end.
 */
import {
  addCost,
  type Cost,
  costText,
  dollarsPerMillion,
  type FlowWorld,
  scaleCost,
  sumCosts,
} from '../lib/flow-world';
import {
  BURST,
  bufferedAmongQueued,
  bufferedFiring,
  debounced,
  rateLimited,
  singletons,
  throttled,
} from './flow-gate-scenarios';

/** Adds one row of the flow section: `cost` in `unit` (default WRU), `note` after the cost's text. */
export type FlowRow = (metric: string, cost: Cost, note: string, unit?: 'WRU' | 'RRU') => void;

/** `$x.xx per 1M <what>`: the DynamoDB units of `cost`, priced on demand. */
const perMillion = (cost: Cost, what: string) => {
  const d = dollarsPerMillion(cost);
  return `${d < 0 ? '−' : ''}$${Math.abs(d).toFixed(2)} per 1M ${what}`;
};

/**
 * Measures the gates and adds their rows; `plain`: a run without any gate, its start and
 * invocation; `queued`: the QUEUED runs of other keys of the function a buffering firing meets.
 */
export async function gateRows(fw: FlowWorld, row: FlowRow, plain: Cost, queued: number): Promise<void> {
  const extra = (c: Cost) => addCost(c, plain, -1);
  const without = `The same run without the gate: ${costText(plain)}.`;

  const t = await throttled(fw);
  row(
    'flow: start under throttle that goes at once, extra over the same run without',
    extra(t.atOnce),
    `Its start and invocation in all: ${costText(t.atOnce)}. The extra: the key's register read (a GetItem) and its next start time reserved (a conditional PutItem), and the gate marked passed on the run item. ${without}`,
  );
  row(
    'flow: start under throttle that waits its turn end to end (QUEUED, woken at its time, admitted), extra over the same run without',
    extra(t.waited.total),
    `= its arrival (${costText(t.waited.arrival)}: the register read, its start reserved a minute on, the run made QUEUED with its wake-up and lease released, one SQS message) + its woken invocation (${costText(t.waited.woken)}: QUEUED → RUNNING, one conditional write, then the run). ` +
      `${perMillion(extra(t.waited.total), 'throttled starts')} in DynamoDB units, besides one more Lambda invocation and one SQS message. ${without}`,
  );

  const r = await rateLimited(fw);
  row(
    'flow: start under rateLimit admitted, extra over the same run without',
    extra(r.admitted),
    `Its start and invocation in all: ${costText(r.admitted)}. The extra: the key's log of starts read (a GetItem) and its start appended (a conditional PutItem; the log is ~14 B a start), the gate marked passed on the run item. ${without}`,
  );
  const refusedExtra = extra(r.refused);
  row(
    'flow: start under rateLimit refused (the run ends CANCELLED rate_limited): its start and invocation in all',
    r.refused,
    `The log read, then the run ended CANCELLED with its reason (its handler never runs). Against the same run admitted without the gate: ${signed(refusedExtra.wru)} WRU, ${signed(refusedExtra.rru)} RRU (${perMillion(refusedExtra, 'refused starts')}: no step, no result). ${without}`,
  );

  const d = await debounced(fw);
  const burstExtra = extra(d.total);
  row(
    `flow: debounce burst of ${BURST} runs of one key end to end (${BURST - 1} skipped, 1 runs), extra over the one run without, per burst`,
    burstExtra,
    `The burst in all: ${costText(d.total)}: ${BURST} starts (${d.starts.wru} WRU), ${BURST} arrivals (${d.arrivals.wru} WRU, ${d.arrivals.rru} RRU: each reads the key's register, names itself latest by a conditional PutItem, waits QUEUED with an SQS wake-up) and ${BURST} wake-ups (${d.woken.wru} WRU, ${d.woken.rru} RRU: each made RUNNING, reads the register; ${BURST - 1} end CANCELLED debounced, the last records itself fired and runs). ` +
      `Without the gate all ${BURST} would run: ${costText(scaleCost(plain, BURST))}. ${without}`,
  );
  row(
    `flow: debounce burst of ${BURST} runs of one key, extra per run (the row before / ${BURST})`,
    scaleCost(burstExtra, 1 / BURST),
    `What each debounced event adds to the one run the burst makes; ${perMillion(scaleCost(d.total, 1 / BURST), 'debounced events')} in all.`,
  );

  const s = await singletons(fw);
  row(
    'flow: start under singleton at a free key, extra over the same run without',
    extra(s.free),
    `Its start and invocation in all: ${costText(s.free)}. The extra: the key's one slot taken (a conditional ADD to its holders item), the admission recorded on the run item, and at the end the slot released and the (empty) queue read. ${without}`,
  );
  const skipExtra = extra(s.skipped);
  row(
    'flow: start under singleton skip at a held key (the run ends CANCELLED singleton_running): its start and invocation in all',
    s.skipped,
    `The slot refused (a failed conditional write, charged), the holders read, the run ended CANCELLED. Against the same run admitted without the gate: ${signed(skipExtra.wru)} WRU, ${signed(skipExtra.rru)} RRU. ${without}`,
  );
  row(
    'flow: start under singleton cancel at a held key (the holder cancelled), extra over the same run without',
    extra(s.cancelling),
    `Its start and invocation in all: ${costText(s.cancelling)}: the slot refused, the holders read, the holder cancelled (its run item ended CANCELLED with the action recorded, its slot released, its queue read), the slot taken. ${without}`,
  );

  const b = await bufferedFiring(fw);
  row(
    'flow: schedule firing under bufferOne with nothing running (starts at once), extra over a firing under allowAll',
    addCost(b.startedAtOnce, b.allowFired, -1),
    `The firing in all: ${costText(b.startedAtOnce)}; under allowAll: ${costText(b.allowFired)}. The extra: the listing of the function's RUNNING runs (the schedule firing rows: it grows with them).`,
    'RRU',
  );
  const bufferExtra = addCost(b.buffered, b.allowFired, -1);
  row(
    "flow: schedule firing under bufferOne that buffers (the schedule's run RUNNING), extra over a firing under allowAll",
    bufferExtra,
    `The firing in all: ${costText(b.buffered)}: the schedule's register and the run it names read, the register written, the run's entry put in the schedule's queue, the run started QUEUED (no invoke), the run it waits behind read once more. Under allowAll: ${costText(b.allowFired)}.`,
    'RRU',
  );
  const busy = await bufferedAmongQueued(fw, queued);
  row(
    `flow: schedule firing under bufferOne that buffers, ${queued.toLocaleString('en-US')} QUEUED runs of the function (of other keys)`,
    busy,
    `The firing in all, as the row before but on a function whose other runs wait QUEUED (under concurrency, throttle or debounce): the check for a run of the schedule already buffered reads the schedule's register, not the function's QUEUED runs, so it does not grow with them (with none: ${b.buffered.rru} RRU).`,
    'RRU',
  );
  const handOver = sumCosts(addCost(b.endHandingOver, b.endAlone, -1), addCost(b.admitted, b.allowRun, -1));
  row(
    'flow: bufferOne hand-over (the running run ends, the buffered run starts and runs), extra over the same runs without',
    handOver,
    `= (the schedule run's ending invocation with a run buffered − the same with none: ${b.endHandingOver.wru} − ${b.endAlone.wru} WRU, ${b.endHandingOver.rru} − ${b.endAlone.rru} RRU; the buffered run made RUNNING, its queue entry deleted, one invoke) + ` +
      `(the buffered run's invocation − an allowAll firing's run's: ${b.admitted.wru} − ${b.allowRun.wru} WRU). Buffered end to end, firing and hand-over: ${costText(sumCosts(bufferExtra, handOver))}. ` +
      `Every run of a schedule reads its schedule's queue when it ends, buffered or not: a run ending alone ${costText(b.endAlone)}.`,
  );
}

const signed = (x: number) => (x >= 0 ? `+${round(x)}` : `−${round(-x)}`);
const round = (x: number) => (Number.isInteger(x) ? String(x) : x.toFixed(2));
