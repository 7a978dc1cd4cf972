/**
 * The paging behaviour every store shows through the control API, as one suite run on the memory
 * store (`paging-history.test.ts`) and on DynamoDB Local (`paging-history-dynamodb.test.ts`): a
 * run of 10,000 operations read page by page sees each operation exactly once and in the store's
 * order, without a full read of the run; every answer stays within its byte budget (measured as
 * Lambda carries it); payloads above the threshold are left out and read on their own; bad
 * cursors are refused naming the field.
 */
import { type ControlApi, createControlApi, DurableClient } from '@durable-lambda/api';
import { Engine, type Store } from '@durable-lambda/engine';
import { describe, expect, it } from 'vitest';
import { INLINE_PAYLOAD_BYTES, PAGE_BUDGET_BYTES } from '../../packages/api/src/server/page-budget';
import { type BulkWrite, countingFullReads, lambdaGetter, readAllPages, writeMapRun } from './paging-run';

export interface PagingWorld {
  engine: Engine;
  store: Store;
  fullReads: () => number;
  api: ControlApi;
}

/** An engine and API over `store`, its full reads counted. */
export function pagingWorld(inner: Store, clock: { now(): number }): PagingWorld {
  const { store, fullReads } = countingFullReads(inner);
  const engine = new Engine({ store, clock, waker: { wakeAt: async () => {} } });
  const api = createControlApi({ engine, functions: ['fn'], onError: () => {} });
  return { engine, store, fullReads, api };
}

/** A client over `api` in process (no sockets). */
function inProcessClient(api: ControlApi): DurableClient {
  return new DurableClient({
    baseUrl: 'http://api.local',
    retries: 0,
    fetch: async (input, init) => {
      const url = new URL(String(input));
      const query: Record<string, string> = {};
      for (const [name, value] of url.searchParams) query[name] = value;
      const answer = await api.handle({
        method: init?.method ?? 'GET',
        path: url.pathname,
        query,
        headers: {},
        body: typeof init?.body === 'string' ? init.body : undefined,
      });
      return new Response(answer.body, { status: answer.status, headers: answer.headers });
    },
  });
}

/** A step result of about `bytes` with quotes and backslashes in it (escaped twice on its way). */
const bulky = (k: number, bytes: number) =>
  JSON.stringify({ k, text: 'a"b\\c'.repeat(Math.ceil(bytes / 5)).slice(0, bytes) });

export function describeHistoryPaging(
  name: string,
  setup: () => Promise<PagingWorld>,
  options: {
    items: number;
    hugeBytes: number;
    timeoutMs: number;
    bulkWrite?: BulkWrite;
    /** Whether the client joins the huge payload's slices too (default true; the same reads again). */
    clientSlices?: boolean;
  },
): void {
  // The big run: the EXECUTION, the map, and its items of two operations each; every
  // `bigEvery`th step's result is above the threshold (five of them).
  const BIG_ITEMS = options.items;
  const bigEvery = Math.max(1, Math.floor(BIG_ITEMS / 5));
  describe(`${name}: history paging`, () => {
    it(
      `pages a run of ${BIG_ITEMS * 2 + 2} operations: each once, in order, within the budget, no full read`,
      async () => {
        const world = await setup();
        const runId = await writeMapRun(world.engine, world.store, {
          items: BIG_ITEMS,
          result: (k) => (k % bigEvery === 0 ? bulky(k, 40_000) : JSON.stringify({ k })),
          ...(options.bulkWrite ? { bulkWrite: options.bulkWrite } : {}),
        });
        const get = lambdaGetter(world.api);
        const readsBefore = world.fullReads();
        const pages = await readAllPages(get, runId);
        expect(world.fullReads() - readsBefore, 'full reads of the run while paging').toBe(0);

        const seen = pages.flatMap((page) => page.operations.map((op: { id: string }) => op.id));
        const stored = (await world.store.loadOperations(runId)).map((op) => op.Id);
        expect(stored).toHaveLength(BIG_ITEMS * 2 + 2);
        expect(seen).toEqual(stored);
        expect(new Set(seen).size).toBe(seen.length);
        expect(pages.length).toBe(Math.ceil(stored.length / 100));
        for (const page of pages.slice(0, -1)) expect(page.operations).toHaveLength(100);
        // The journal comes with the first page only; a long run's map has no items on its page.
        expect(pages.slice(1).every((page) => page.logs === undefined && page.invocations === undefined)).toBe(true);
        const map = pages[0].operations.find((op: { id: string }) => op.id === '1');
        expect(map.items).toBeUndefined();

        // Left out for their size, with their size, and read on their own.
        const omitted = pages.flatMap((page) => page.operations).filter((op: { omitted?: unknown }) => op.omitted);
        expect(omitted.map((op: { id: string }) => op.id)).toEqual(
          Array.from({ length: Math.floor(BIG_ITEMS / bigEvery) }, (_, i) => `1-${(i + 1) * bigEvery}-1`),
        );
        for (const op of omitted) {
          expect(op.result).toBeUndefined();
          expect(op.omitted.result).toBeGreaterThan(INLINE_PAYLOAD_BYTES);
          const alone = await get(`/v1/runs/${runId}/operations/${op.id}`);
          expect(alone.status).toBe(200);
          const k = Number(op.id.split('-')[1]);
          expect(alone.json.result).toEqual(JSON.parse(bulky(k, 40_000)));
          expect(alone.json.omitted).toBeUndefined();
        }

        // The client follows the pages, and counts the map's items across them.
        const client = inProcessClient(world.api);
        const history = await client.history(runId, { limit: 1000, payloads: true });
        expect(history.operations.map((op) => op.id)).toEqual(stored);
        expect(history.operations.find((op) => op.id === '1')?.items).toEqual({
          total: BIG_ITEMS,
          byStatus: { SUCCEEDED: BIG_ITEMS },
        });
        expect(history.operations.find((op) => op.id === `1-${bigEvery}-1`)?.result).toEqual(
          JSON.parse(bulky(bigEvery, 40_000)),
        );
        let iterated = 0;
        for await (const _op of client.operations(runId, { limit: 1000 })) iterated += 1;
        expect(iterated).toBe(stored.length);

        // Bad cursors and limits are refused, naming the field.
        const other = await writeMapRun(world.engine, world.store, { items: 1, result: () => '1' });
        const foreign = pages[0].nextCursor as string;
        const refused = [
          ['not a cursor!', 'invalid_argument', 'cursor'],
          [Buffer.from('{"v":1}').toString('base64url'), 'invalid_argument', 'cursor'],
          ['x'.repeat(3000), 'invalid_argument', 'cursor'],
        ] as const;
        for (const [cursor, code, field] of refused) {
          const answer = await get(`/v1/runs/${runId}/operations`, { cursor });
          expect([answer.status, answer.json.error.code]).toEqual([400, code]);
          expect(answer.json.error.message.startsWith(`${field}: `)).toBe(true);
        }
        const crossed = await get(`/v1/runs/${other}/operations`, { cursor: foreign });
        expect([crossed.status, crossed.json.error.code]).toEqual([400, 'invalid_argument']);
        for (const limit of ['0', '1001', 'x']) {
          const answer = await get(`/v1/runs/${runId}/operations`, { limit });
          expect([answer.status, answer.json.error.code]).toEqual([400, 'invalid_argument']);
          expect(answer.json.error.message.startsWith('limit: ')).toBe(true);
        }
        const runsCursor = await get('/v1/runs', { cursor: foreign });
        expect([runsCursor.status, runsCursor.json.error.code]).toEqual([400, 'invalid_argument']);
      },
      options.timeoutMs,
    );

    it(
      'cuts a page at its byte budget, and reads a payload too big for any answer in slices',
      async () => {
        const world = await setup();
        // 75 steps of 14 KB each (under the threshold): together past the budget.
        const runId = await writeMapRun(world.engine, world.store, {
          items: 75,
          result: (k) => bulky(k, 10_000),
          perCommit: 25,
        });
        const get = lambdaGetter(world.api);
        const pages = await readAllPages(get, runId, { limit: '1000' });
        expect(pages.length).toBeGreaterThan(1);
        expect(pages[0].operations.length).toBeLessThan(152);
        expect(pages.flatMap((page) => page.operations.map((op: { id: string }) => op.id))).toEqual(
          (await world.store.loadOperations(runId)).map((op) => op.Id),
        );
        expect(pages.flatMap((page) => page.operations).every((op: { omitted?: unknown }) => !op.omitted)).toBe(true);

        // A list of runs leaves out an input above the threshold; its payload route reads it.
        const bigInput = bulky(1, 40_000);
        const { run: started } = await world.engine.startRun({ functionName: 'fn', input: bigInput });
        const listed = await get('/v1/runs', { limit: '100' });
        const entry = listed.json.runs.find((r: { runId: string }) => r.runId === started.runId);
        expect(entry.input).toBeUndefined();
        expect(entry.omitted).toEqual({ input: Buffer.byteLength(bigInput) });
        expect((await get(`/v1/runs/${started.runId}`)).json.input).toEqual(JSON.parse(bigInput));
        const inputSlice = await get(`/v1/runs/${started.runId}/payloads/input`);
        expect(JSON.parse(inputSlice.json.text)).toEqual(JSON.parse(bigInput));
        expect(inputSlice.json.nextOffset).toBeUndefined();

        // The Lambda-shaped history pages by Lambda's Marker, within the same budget.
        const arn = encodeURIComponent(`arn:aws:lambda:local:000000000000:function:fn/durable-execution/${runId}`);
        const events: unknown[] = [];
        let marker: string | undefined;
        let awsPages = 0;
        do {
          const answer = await get(`/2025-12-01/durable-executions/${arn}/history`, {
            MaxItems: '1000',
            ...(marker === undefined ? {} : { Marker: marker }),
          });
          expect(answer.status).toBe(200);
          expect(answer.responseBytes).toBeLessThanOrEqual(PAGE_BUDGET_BYTES);
          events.push(...answer.json.Events);
          marker = answer.json.NextMarker;
          awsPages += 1;
        } while (marker !== undefined);
        expect(awsPages).toBeGreaterThan(1);
        // One started and one succeeded event per step and context, besides the execution's.
        const succeeded = events.filter((e) => (e as { EventType?: string }).EventType === 'StepSucceeded');
        expect(succeeded).toHaveLength(75);
        expect(new Set(events.map((e) => (e as { EventId: number }).EventId)).size).toBe(events.length);
        const badMarker = await get(`/2025-12-01/durable-executions/${arn}/history`, { Marker: 'x' });
        expect(badMarker.status).toBe(400);

        // A result larger than one answer may carry: left out even alone, read back in slices.
        const hugeResult = bulky(0, options.hugeBytes);
        const huge = await writeMapRun(world.engine, world.store, { items: 1, result: () => hugeResult });
        const alone = await get(`/v1/runs/${huge}/operations/1-1-1`);
        expect(alone.status).toBe(200);
        expect(alone.responseBytes).toBeLessThan(PAGE_BUDGET_BYTES);
        expect(alone.json.omitted.result).toBe(Buffer.byteLength(hugeResult));
        let text = '';
        let offset: number | undefined = 0;
        let slices = 0;
        while (offset !== undefined) {
          const slice = await get(`/v1/runs/${huge}/operations/1-1-1/payloads/result`, { offset: String(offset) });
          expect(slice.status).toBe(200);
          expect(slice.responseBytes).toBeLessThan(6 * 1024 * 1024);
          text += slice.json.text;
          offset = slice.json.nextOffset;
          slices += 1;
        }
        expect(slices).toBeGreaterThan(1);
        expect(JSON.parse(text)).toEqual(JSON.parse(hugeResult));
        if (options.clientSlices !== false) {
          const client = inProcessClient(world.api);
          expect(await client.getPayload(huge, 'result', '1-1-1')).toEqual(JSON.parse(hugeResult));
        }
        // In the Lambda-shaped history, the event keeps its place with its payload truncated.
        const hugeArn = encodeURIComponent(`arn:aws:lambda:local:000000000000:function:fn/durable-execution/${huge}`);
        const hugeEvents = await get(`/2025-12-01/durable-executions/${hugeArn}/history`);
        expect(hugeEvents.responseBytes).toBeLessThanOrEqual(PAGE_BUDGET_BYTES);
        const step = hugeEvents.json.Events.find((e: { EventType: string }) => e.EventType === 'StepSucceeded');
        expect(step.StepSucceededDetails.Result).toEqual({ Truncated: true });
        const missing = await get(`/v1/runs/${huge}/operations/9/payloads/result`);
        expect([missing.status, missing.json.error.code]).toEqual([404, 'operation_not_found']);
        const badField = await get(`/v1/runs/${huge}/operations/1-1-1/payloads/secret`);
        expect([badField.status, badField.json.error.code]).toEqual([400, 'invalid_argument']);
      },
      options.timeoutMs,
    );
  });
}
