/**
 * A run's recorded history order (issue 23) travels with it: the control API's operations carry
 * each operation's places (`historyOrder`), and an exported run keeps them, so its history read
 * from the file is in the order the run recorded, not an inferred one.
 */
import { createControlApi, DurableClient, exportRunFromApi, operationFromWire } from '@durable-lambda/api';
import { Engine, MemoryStore, toAwsHistoryEvents, wakeEvent } from '@durable-lambda/engine';
import { VirtualClock } from '@durable-lambda/local';
import { withDurableExecution } from '@durable-lambda/sdk';
import { describe, expect, it } from 'vitest';
import {
  AWAITS_CALLBACK_ORDER,
  awaitsCallback,
  eventLabel,
  STEPS_SIDE_BY_SIDE_ORDER,
  stepsSideBySide,
} from '../support/history-order-cases';

/** An engine on a memory store (which keeps no journal), its control API and a client over it in process. */
function world() {
  const clock = new VirtualClock(Date.UTC(2026, 0, 1));
  const store = new MemoryStore(clock);
  const engine = new Engine({ store, clock, waker: { wakeAt: async () => {} } });
  const api = createControlApi({ engine, functions: ['fn'], onError: () => {} });
  const client = new DurableClient({
    baseUrl: 'http://api.local',
    retries: 0,
    fetch: async (input, init) => {
      const url = new URL(String(input));
      const answer = await api.handle({
        method: init?.method ?? 'GET',
        path: url.pathname,
        query: Object.fromEntries(url.searchParams),
        headers: {},
        body: typeof init?.body === 'string' ? init.body : undefined,
      });
      return new Response(answer.body, { status: answer.status, headers: answer.headers });
    },
  });
  return { store, engine, client };
}

const lambda = (id: string) => ({ functionName: 'fn', awsRequestId: id, getRemainingTimeInMillis: () => 60_000 });

describe('the recorded history order through the control API and export', () => {
  it('an exported run keeps where each event stood', async () => {
    const { store, engine, client } = world();
    const handler = withDurableExecution(stepsSideBySide, { backend: engine });
    expect(await handler({}, lambda('r-1'))).toMatchObject({ Status: 'SUCCEEDED' });
    const [run] = (await store.listRuns({})).runs;
    const runId = run?.runId ?? '';

    const stored = await store.loadOperations(runId);
    const file = await exportRunFromApi(client, runId);
    const exported = new Map(file.operations.map((op) => [op.Id, op.HistoryOrder]));
    for (const op of stored) expect(exported.get(op.Id)).toEqual(op.HistoryOrder);
    // Read from the file alone (no invocations): both steps start before either ends, as they ran.
    const labels = toAwsHistoryEvents(file.operations).map(eventLabel);
    expect(labels).toEqual(STEPS_SIDE_BY_SIDE_ORDER.filter((label) => label !== 'InvocationCompleted'));
  });

  it("the history page gives each invocation's place, so its reader lists the run's own order", async () => {
    const { store, engine, client } = world();
    const handler = withDurableExecution(awaitsCallback, { backend: engine, inProcessWaitMs: 0 });
    expect(await handler({}, lambda('cb-1'))).toEqual({ Status: 'PENDING' });
    const [run] = (await store.listRuns({})).runs;
    const runId = run?.runId ?? '';
    const callback = (await store.loadOperations(runId)).find((op) => op.Type === 'CALLBACK');
    await engine.sendCallbackSuccess(callback?.CallbackDetails?.CallbackId ?? '', JSON.stringify('yes'));
    expect(await handler(wakeEvent(runId), lambda('cb-2'))).toMatchObject({ Status: 'SUCCEEDED' });

    // The memory store keeps no journal: the invocations come from the run's record.
    const page = await client.history(runId);
    expect(page.invocations?.map((inv) => inv.historyOrder)).toEqual([3, 4]);
    const runWire = await client.getRun(runId);
    const operations = page.operations.map((op) => operationFromWire(op, runWire));
    const events = toAwsHistoryEvents(operations, {
      invocations: (page.invocations ?? []).map((inv) => ({
        startTimestamp: new Date(inv.startedAt),
        ...(inv.endedAt === undefined ? {} : { endTimestamp: new Date(inv.endedAt) }),
        ...(inv.historyOrder === undefined ? {} : { order: inv.historyOrder }),
      })),
    });
    expect(events.map(eventLabel)).toEqual(AWAITS_CALLBACK_ORDER);
  });
});
