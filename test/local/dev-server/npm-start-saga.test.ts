/**
 * The order saga's compensations through `npm start`'s dev server (examples/dev-server.ts, SQLite):
 * its start form offers a declined card and a gateway outage; the declined card compensates in
 * the saga's `compensate` context and cancels the order, the outage fails the run after the SDK
 * released the reservation, and the API (which the dashboard and `durable show` read) says so.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FunctionListWire, RunCompensationsWire, RunWire } from '@durable-lambda/api';
import { afterAll, describe, expect, it } from 'vitest';
import { getJson, killAll, postJson, SERVER_URL, spawnNode, until } from './process';

const dir = mkdtempSync(join(tmpdir(), 'durable-dev-saga-'));
afterAll(() => {
  killAll();
  rmSync(dir, { recursive: true, force: true });
});

describe('npm start: the order saga compensates', () => {
  it('offers the failing samples and shows both runs compensated', async () => {
    const child = spawnNode(['--import', 'tsx', 'examples/dev-server.ts'], {
      PORT: '0',
      DURABLE_DB: join(dir, 'saga.sqlite'),
    });
    const url = (await child.waitFor(SERVER_URL, 60_000))[1] as string;
    const { body } = await getJson<FunctionListWire>(`${url}/v1/functions`);
    const samples = body.functions.find((f) => f.name === 'order-saga')?.samples ?? [];
    const input = (name: RegExp) => samples.find((s) => name.test(s.name))?.input;
    expect(input(/declined card/)).toBeDefined();
    expect(input(/gateway outage/)).toBeDefined();

    const ended = async (runId: string) =>
      until(async () => {
        const { body: run } = await getJson<RunWire>(`${url}/v1/runs/${runId}`);
        return run.status !== 'RUNNING' && run;
      }, 60_000);
    const compensations = async (runId: string) =>
      (await getJson<RunCompensationsWire>(`${url}/v1/runs/${runId}/compensations`)).body;

    const declined = (await postJson<RunWire>(`${url}/v1/runs`, { function: 'order-saga', input: input(/declined/) }))
      .body.runId;
    const outage = (await postJson<RunWire>(`${url}/v1/runs`, { function: 'order-saga', input: input(/outage/) })).body
      .runId;

    expect(await ended(declined)).toMatchObject({ status: 'SUCCEEDED', result: { status: 'cancelled' } });
    const c1 = await compensations(declined);
    expect(c1.rounds).toHaveLength(1);
    expect(c1.rounds[0]?.contextId).toBeDefined();
    expect(c1.rounds[0]?.compensations.map((x) => [x.step, x.status])).toEqual([['reserve-inventory', 'succeeded']]);
    expect(c1.summary).toBeUndefined();

    // The payments run retries the gateway 4 times (1, 2, 4 s apart) before it fails.
    const failed = await ended(outage);
    expect(failed.status).toBe('FAILED');
    const c2 = await compensations(outage);
    expect(c2.rounds[0]?.contextId).toBeUndefined();
    expect(c2.rounds[0]?.compensations.map((x) => [x.step, x.status, x.attempts])).toEqual([
      ['reserve-inventory', 'succeeded', 1],
    ]);
    expect(c2.summary).toEqual({ compensated: ['reserve-inventory'], failed: [] });
    expect(JSON.parse(failed.error?.data ?? '{}')).toMatchObject({ compensated: ['reserve-inventory'] });
  }, 120_000);
});
