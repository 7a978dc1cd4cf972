/**
 * Section "payloads" (issue 27): what a large payload costs stored as DynamoDB chunk items and as
 * an S3 object (the payload bucket), both ways, per MB; and what sealing payloads with a customer
 * KMS key adds (KMS requests per run, time per payload in process).
 *
 * Measured on DynamoDB Local through the production store and light client, with the in-process
 * S3 and KMS of the tests (test/support/fake-s3.ts, fake-kms.ts): the write units and read units
 * are DynamoDB's own answers (`ReturnConsumedCapacity`), the S3 requests are counted; dollars are
 * list prices, us-east-1 (DynamoDB on-demand $0.625 per million WRU, $0.125 per million RRU,
 * $0.25 per GB-month; S3 Standard $0.005 per 1,000 PUT, $0.0004 per 1,000 GET, $0.023 per
 * GB-month). A read is a strongly consistent replay read of the operation.
 */
import { performance } from 'node:perf_hooks';
import {
  createDurableTable,
  DynamoDbStore,
  KmsEnvelopeCodec,
  LightDynamoDbClient,
  LightKmsClient,
  LightS3Client,
  measureConsumedCapacity,
} from '@durable-lambda/aws';
import { type Store, sealedStore } from '@durable-lambda/engine';
import { localDocumentClient, startDynamoDbLocal, waitUntilReady } from '../../test/support/dynamodb-local-process';
import { FakeKms } from '../../test/support/fake-kms';
import { FakeS3 } from '../../test/support/fake-s3';
import { emitRows, type FigureRow, figure, medianOf, progressLine, sizeArg } from './figure-rows';

const size = sizeArg();
const SIZES_KB = { smoke: [16], quick: [16, 1024], full: [16, 64, 256, 1024] }[size];
const SEALS = { smoke: 200, quick: 2_000, full: 10_000 }[size];
const PRICE = {
  wru: 0.625 / 1e6,
  rru: 0.125 / 1e6,
  dynamoGbMonth: 0.25,
  put: 0.005 / 1000,
  get: 0.0004 / 1000,
  s3GbMonth: 0.023,
  kmsRequest: 0.03 / 10_000,
};
const T0 = Date.UTC(2026, 0, 1);
// DynamoDB Local keeps tables per access key: the one its test clients use.
const credentials = { accessKeyId: 'local', secretAccessKey: 'local' };

const rows: FigureRow[] = [];
const given = process.env.DURABLE_BENCH_DYNAMODB_ENDPOINT;
if (given) await waitUntilReady(given);
const local = given ? { endpoint: given, stop: async () => {} } : await startDynamoDbLocal();
const s3 = new FakeS3('payloads');
const kms = new FakeKms();
const sdk = localDocumentClient(local.endpoint);
try {
  const s3Endpoint = await s3.start();
  const kmsEndpoint = await kms.start();
  const light = new LightDynamoDbClient({ region: 'us-east-1', endpoint: local.endpoint, credentials });
  let wru = 0;
  let rru = 0;
  measureConsumedCapacity(light, (consumed) => {
    wru += consumed.wru;
    rru += consumed.rru;
  });
  const objects = new LightS3Client({ region: 'us-east-1', endpoint: s3Endpoint, bucket: 'payloads', credentials });
  const table = `durable-bench-payloads-${process.pid}`;
  await createDurableTable(sdk, table);
  const clock = { now: () => T0 };

  /** One step result of `kb` KiB written (a commit) and read back (a replay read), through `store`. */
  async function measure(store: DynamoDbStore, runId: string, kb: number) {
    const fence = await startLeasedRun(store, runId, '{}');
    const result = JSON.stringify('x'.repeat(kb * 1024 - 2));
    const op = {
      Id: '1',
      Type: 'STEP' as const,
      Status: 'SUCCEEDED' as const,
      StartTimestamp: T0,
      EndTimestamp: T0 + 1,
      StepDetails: { Attempt: 1, Result: result },
    };
    const [w0, puts0] = [wru, s3.requests.PUT];
    await store.commit(runId, fence, { operations: [op] });
    const write = { wru: wru - w0, puts: s3.requests.PUT - puts0 };
    const [r0, gets0] = [rru, s3.requests.GET];
    const read = await store.getOperation(runId, '1');
    if (read?.StepDetails?.Result !== result) throw new Error(`${runId}: the result did not read back whole`);
    return { ...write, rru: rru - r0, gets: s3.requests.GET - gets0 };
  }

  for (const kb of SIZES_KB) {
    progressLine(`payloads: ${kb} KiB step result, chunks and bucket`);
    const chunks = await measure(new DynamoDbStore({ client: light, tableName: table, clock }), `chunks-${kb}`, kb);
    const bucket = await measure(
      new DynamoDbStore({ client: light, tableName: table, clock, payloadObjects: objects }),
      `bucket-${kb}`,
      kb,
    );
    const mb = kb / 1024;
    const perMb = (x: number) => x / mb;
    const chunkWrite = perMb(chunks.wru * PRICE.wru);
    const bucketWrite = perMb(bucket.wru * PRICE.wru + bucket.puts * PRICE.put);
    const chunkRead = perMb(chunks.rru * PRICE.rru);
    const bucketRead = perMb(bucket.rru * PRICE.rru + bucket.gets * PRICE.get);
    rows.push(
      figure({
        section: 'payloads',
        metric: `${kb} KiB payload written, $ per million MB: S3 object vs DynamoDB chunks`,
        unit: '$',
        ours: bucketWrite * 1e6,
        reference: chunkWrite * 1e6,
        referenceName: 'the same payload as DynamoDB chunk items',
        target: 'ratio > 1',
        met: (ratio) => ratio !== null && ratio > 1,
        note: `chunks: ${chunks.wru} WRU; bucket: ${bucket.puts} PutObject + ${bucket.wru} WRU for the item naming it. Storage a month per GB: S3 $${PRICE.s3GbMonth}, DynamoDB $${PRICE.dynamoGbMonth}`,
      }),
      figure({
        section: 'payloads',
        metric: `${kb} KiB payload read (replay), $ per million MB: S3 object vs DynamoDB chunks`,
        unit: '$',
        ours: bucketRead * 1e6,
        reference: chunkRead * 1e6,
        referenceName: 'the same payload read from DynamoDB chunk items, strongly consistent',
        target: 'ratio ≥ 0.75 (about even at the 16 KiB threshold, cheaper above)',
        met: (ratio) => ratio !== null && ratio >= 0.75,
        note: `chunks: ${chunks.rru} RRU; bucket: ${bucket.gets} GetObject + ${bucket.rru} RRU for the item`,
      }),
    );
  }

  // ----- Customer key: KMS requests per run, and the time sealing and opening add per payload.
  progressLine('payloads: KMS envelope codec');
  const keyId = kms.createKey();
  const codec = () =>
    new KmsEnvelopeCodec({
      kms: new LightKmsClient({ region: 'us-east-1', endpoint: kmsEndpoint, credentials }),
      keyId,
    });
  const writer = codec();
  const sealed = sealedStore(new DynamoDbStore({ client: light, tableName: table, clock }), writer);
  const before = { ...kms.calls };
  await measureRun(sealed, 'sealed-run');
  const warm = { g: kms.calls.GenerateDataKey - before.GenerateDataKey, d: kms.calls.Decrypt - before.Decrypt };
  const cold = sealedStore(new DynamoDbStore({ client: light, tableName: table, clock }), codec());
  const beforeCold = kms.calls.Decrypt;
  await cold.loadOperations('sealed-run');
  const coldDecrypts = kms.calls.Decrypt - beforeCold;
  rows.push(
    figure({
      section: 'payloads',
      metric: 'KMS requests per run with a customer key: one process (warm), and a cold reader',
      unit: 'requests',
      ours: warm.g + warm.d,
      reference: null,
      referenceName: 'none (DynamoDB-side encryption alone makes none of ours)',
      target: '≤ 1 per run and process',
      met: (_r, ours) => ours <= 1 && coldDecrypts <= 1,
      note: `warm: ${warm.g} GenerateDataKey + ${warm.d} Decrypt for a run of a start, 5 steps and its end; a cold process (a resume on another container, the control API) ${coldDecrypts} Decrypt; at $0.03 per 10,000 requests, $${(PRICE.kmsRequest * 1e6).toFixed(0)} per million runs per request`,
    }),
  );
  for (const kb of [1, 64]) {
    const text = JSON.stringify('y'.repeat(kb * 1024 - 2));
    await writer.seal('latency', text);
    const sealTimes: number[] = [];
    const openTimes: number[] = [];
    let stored = '';
    for (let i = 0; i < SEALS / kb; i++) {
      const t0 = performance.now();
      stored = await writer.seal('latency', `${text}${i}`);
      const t1 = performance.now();
      await writer.open('latency', stored);
      openTimes.push(performance.now() - t1);
      sealTimes.push(t1 - t0);
    }
    rows.push(
      figure({
        section: 'payloads',
        metric: `sealing and opening a ${kb} KiB payload in process (data key cached)`,
        unit: 'µs',
        ours: (medianOf(sealTimes) + medianOf(openTimes)) * 1000,
        reference: null,
        referenceName: 'none',
        note: `median seal ${(medianOf(sealTimes) * 1000).toFixed(1)} µs, open ${(medianOf(openTimes) * 1000).toFixed(1)} µs (AES-256-GCM, node:crypto); stored size ${stored.length} B for ${text.length} B written`,
      }),
    );
  }
} finally {
  sdk.destroy();
  await s3.stop();
  await kms.stop();
  await local.stop();
}

/** Creates run `runId` with `input` at T0 and leases it: the fence its commits carry. */
async function startLeasedRun(store: Store, runId: string, input: string): Promise<number> {
  await store.createRun(
    {
      runId,
      functionName: 'fn',
      status: 'RUNNING',
      input,
      createdAt: T0,
      updatedAt: T0,
      fence: 0,
      nextWakeAt: T0,
      invocations: 0,
      lostInvocations: 0,
      eventSeq: 0,
      handledEventSeq: 0,
    },
    { Id: '0', Type: 'EXECUTION', Status: 'STARTED', StartTimestamp: T0, ExecutionDetails: { InputPayload: input } },
  );
  const grant = await store.acquireLease(runId, T0, T0 + 60_000, `lease-${runId}`);
  return grant?.run.fence ?? 1;
}

/** A run's writes through `store`: its start, a lease, five step results, its end. */
async function measureRun(store: ReturnType<typeof sealedStore>, runId: string): Promise<void> {
  const fence = await startLeasedRun(store, runId, JSON.stringify({ order: 42 }));
  for (let i = 1; i <= 5; i++) {
    const op = {
      Id: String(i),
      Type: 'STEP' as const,
      Status: 'SUCCEEDED' as const,
      StartTimestamp: T0,
      EndTimestamp: T0 + 1,
      StepDetails: { Attempt: 1, Result: JSON.stringify({ step: i }) },
    };
    await store.commit(runId, fence, { operations: [op] });
  }
  await store.commit(runId, fence, { operations: [], run: { status: 'SUCCEEDED', result: '"done"', endedAt: T0 } });
}

emitRows(rows);
