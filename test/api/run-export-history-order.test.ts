/**
 * A run's recorded history order (issue 23) travels with it: the control API's operations carry
 * each operation's places (`historyOrder`), and an exported run keeps them, so its history read
 * from the file is in the order the run recorded, not an inferred one.
 */
import { createControlApi, DurableClient, exportRunFromApi } from '@durable-lambda/api';
import { Engine, MemoryStore, toAwsHistoryEvents } from '@durable-lambda/engine';
import { VirtualClock } from '@durable-lambda/local';
import { withDurableExecution } from '@durable-lambda/sdk';
import { describe, expect, it } from 'vitest';
import { eventLabel, STEPS_SIDE_BY_SIDE_ORDER, stepsSideBySide } from '../support/history-order-cases';

describe('the recorded history order through the control API and export', () => {
  it('an exported run keeps where each event stood', async () => {
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
    const handler = withDurableExecution(stepsSideBySide, { backend: engine });
    const lambda = { functionName: 'fn', awsRequestId: 'r-1', getRemainingTimeInMillis: () => 60_000 };
    expect(await handler({}, lambda)).toMatchObject({ Status: 'SUCCEEDED' });
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
});
