/**
 * The dev server's schedule timers on a virtual clock: each firing starts the run keyed by the
 * schedule and its fire time; after downtime, `catchUp` fires the missed firings (from the last
 * run the store holds) or none. Timers are a list the test runs in time order (no real waiting).
 */
import { Engine, MemoryStore, ScheduleReceiver, scheduleRunKey } from '@durable-lambda/engine';
import { type DevSchedule, firingsBetween, MAX_TIMER_MS, ScheduleTimers, VirtualClock } from '@durable-lambda/local';
import { describe, expect, it } from 'vitest';

const T0 = Date.UTC(2026, 0, 1);
const MINUTE = 60_000;

function world() {
  const clock = new VirtualClock(T0 + 30_000);
  const store = new MemoryStore(clock);
  const engine = new Engine({ store, clock, waker: { wakeAt: async () => {} } });
  const receiver = new ScheduleReceiver({ engine, waker: engine.waker, clock });
  const timers: Array<{ at: number; run: () => void; cancelled: boolean }> = [];
  const make = () =>
    new ScheduleTimers({
      clock,
      store,
      fire: (fn, event) => receiver.receive(event, fn),
      timers: {
        set(run, ms) {
          const timer = { at: clock.now() + ms, run, cancelled: false };
          timers.push(timer);
          return {
            cancel: () => {
              timer.cancelled = true;
            },
          };
        },
      },
    });
  const settle = () => new Promise((resolve) => setImmediate(resolve));
  /** Runs the timers due up to `to`, in time order, the clock moved to each. */
  const advance = async (to: number) => {
    for (;;) {
      const due = timers.filter((t) => !t.cancelled && t.at <= to).sort((a, b) => a.at - b.at)[0];
      if (!due) break;
      timers.splice(timers.indexOf(due), 1);
      clock.advanceTo(due.at);
      due.run();
      for (let i = 0; i < 10; i++) await settle();
    }
    clock.advanceTo(to);
  };
  const keys = async () => (await engine.listRuns({ limit: 100 })).runs.map((r) => r.runKey).sort();
  const armed = () => timers.filter((t) => !t.cancelled).map((t) => t.at);
  return { clock, make, advance, keys, armed };
}

const every = (catchUp: boolean): DevSchedule => ({ name: 'tick', rateMs: MINUTE, overlap: 'allowAll', catchUp });

describe('dev server schedule timers', () => {
  it('fires at each whole period, one run per firing', async () => {
    const w = world();
    const timers = w.make();
    await timers.start('report', [every(false)]);
    await w.advance(T0 + 3 * MINUTE);
    timers.stop();
    expect(await w.keys()).toEqual([1, 2, 3].map((i) => scheduleRunKey('report', 'tick', T0 + i * MINUTE)));
  });

  it('after downtime, catchUp fires the missed firings from the last run; without it none', async () => {
    for (const catchUp of [true, false]) {
      const w = world();
      const before = w.make();
      await before.start('report', [every(catchUp)]);
      await w.advance(T0 + MINUTE);
      before.stop();
      // Down for four minutes.
      w.clock.advanceTo(T0 + 5 * MINUTE + 10_000);
      const after = w.make();
      await after.start('report', [every(catchUp)]);
      const missed = [2, 3, 4, 5].map((i) => scheduleRunKey('report', 'tick', T0 + i * MINUTE));
      const first = scheduleRunKey('report', 'tick', T0 + MINUTE);
      expect(await w.keys()).toEqual(catchUp ? [first, ...missed].sort() : [first]);
      await w.advance(T0 + 6 * MINUTE);
      after.stop();
      expect(await w.keys()).toContain(scheduleRunKey('report', 'tick', T0 + 6 * MINUTE));
    }
  });

  it('fires a cron schedule at local time in its zone, one run per firing, across a change of daylight saving time', async () => {
    const w = world();
    const timers = w.make();
    // 01:30 in New York on weekdays; 2026-11-02 (a Monday) is the first weekday after the clocks go back.
    w.clock.advanceTo(Date.UTC(2026, 9, 29));
    const cron: DevSchedule = {
      name: 'tick',
      cron: '30 1 ? * MON-FRI *',
      timezone: 'America/New_York',
      overlap: 'allowAll',
    };
    await timers.start('report', [cron]);
    await w.advance(Date.UTC(2026, 10, 4));
    timers.stop();
    expect(await w.keys()).toEqual(
      [
        '2026-10-29T05:30:00.000Z',
        '2026-10-30T05:30:00.000Z',
        '2026-11-02T06:30:00.000Z',
        '2026-11-03T06:30:00.000Z',
      ].map((at) => scheduleRunKey('report', 'tick', at)),
    );
  });

  it('after downtime, catchUp fires the cron firings missed since the last run', async () => {
    const w = world();
    const hourly: DevSchedule = { name: 'tick', cron: '0 * * * ? *', overlap: 'allowAll', catchUp: true };
    const before = w.make();
    await before.start('report', [hourly]);
    await w.advance(T0 + 60 * MINUTE);
    before.stop();
    w.clock.advanceTo(T0 + 4 * 60 * MINUTE + 5 * MINUTE);
    const after = w.make();
    await after.start('report', [hourly]);
    after.stop();
    expect(await w.keys()).toEqual([1, 2, 3, 4].map((h) => scheduleRunKey('report', 'tick', T0 + h * 60 * MINUTE)));
  });

  it('waits for a firing beyond the longest timer in steps, firing nothing early', async () => {
    const w = world();
    const timers = w.make();
    await timers.start('report', [{ name: 'tick', cron: '0 0 1 1 ? *', overlap: 'allowAll' }]);
    const newYear = Date.UTC(2027, 0, 1);
    expect(w.armed()).toEqual([T0 + 30_000 + MAX_TIMER_MS]);
    await w.advance(newYear - 1);
    expect(await w.keys()).toEqual([]);
    await w.advance(newYear);
    timers.stop();
    expect(await w.keys()).toEqual([scheduleRunKey('report', 'tick', newYear)]);
  });

  it('refuses a bad entry before any fires, naming it', async () => {
    const w = world();
    const timers = w.make();
    await expect(
      timers.start('report', [every(false), { name: 'nightly', cron: '0 3 * * ? *', timezone: 'Nowhere/Else' }]),
    ).rejects.toThrow(/schedule "nightly": cron timezone: "Nowhere\/Else" is not an IANA time zone/);
    await expect(timers.start('report', [{ name: 'nightly', cron: '0 3 * *' }])).rejects.toThrow(
      /schedule "nightly": cron expression: .* needs six fields/,
    );
    await expect(timers.start('report', [{ name: 'both', cron: '0 3 * * ? *', rateMs: MINUTE }])).rejects.toThrow(
      /schedule "both": give exactly one of rateMs and cron/,
    );
    expect(w.armed()).toEqual([]);
  });

  it('computes firing times at whole multiples of the period', () => {
    expect(firingsBetween(MINUTE, T0 + 1, T0 + 2 * MINUTE)).toEqual([T0 + MINUTE, T0 + 2 * MINUTE]);
    expect(firingsBetween(MINUTE, T0, T0)).toEqual([]);
    // Only the last ones, without walking a long downtime minute by minute.
    expect(firingsBetween(1_000, 0, T0, 2)).toEqual([T0 - 1_000, T0]);
  });
});
