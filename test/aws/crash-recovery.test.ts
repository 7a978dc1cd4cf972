import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { createDurableTable, DynamoDbStore } from '@durable-lambda/aws';
import { Engine, runIdFor, type WakeRequest, wakeEvent } from '@durable-lambda/engine';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dynamoDbLocalEndpoint, localDocumentClient, uniqueTableName } from '../support/dynamodb-local';
import { until } from '../support/harness';
import { crashWorkflow } from './fixtures/crash-workflow';

const root = fileURLToPath(new URL('../..', import.meta.url));
let client: DynamoDBDocumentClient;
let endpoint: string;
let worker: ChildProcess | undefined;

beforeAll(async () => {
  endpoint = await dynamoDbLocalEndpoint();
  client = localDocumentClient(endpoint);
}, 60_000);

/** The wake-up files' directory, removed with the file's last test. */
let scratch: string | undefined;

afterAll(() => {
  if (scratch) rmSync(scratch, { recursive: true, force: true });
  worker?.kill('SIGKILL');
  client?.destroy();
});

describe('a handler process killed with SIGKILL mid-step', () => {
  it('leaves a run that finishes after the safety wake-up, the lost attempt marked invocation_lost', async () => {
    const tableName = uniqueTableName('crash');
    await createDurableTable(client, tableName);
    scratch = mkdtempSync(join(tmpdir(), 'durable-crash-'));
    const wakeFile = join(scratch, 'wakeups.jsonl');
    writeFileSync(wakeFile, '');
    const store = new DynamoDbStore({ client, tableName });
    const runId = runIdFor('req-crash-1');

    worker = spawn(process.execPath, ['--import', 'tsx', 'test/aws/fixtures/crash-worker.ts'], {
      cwd: root,
      env: {
        ...process.env,
        DDB_ENDPOINT: endpoint,
        TABLE: tableName,
        WAKE_FILE: wakeFile,
        TSX_TSCONFIG_PATH: 'tsconfig.json',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    worker.stdout?.on('data', (d) => (output += String(d)));
    worker.stderr?.on('data', (d) => (output += String(d)));
    // The step's START is stored (before its body, by default) and its body has begun: its line
    // may reach us after the START does, so both are awaited.
    await until(
      async () => output.includes('STEP_RUNNING') && (await store.getOperation(runId, '2'))?.Status === 'STARTED',
      60_000,
    ).catch(() => {
      throw new Error(`the worker never got into the step:\n${output}`);
    });
    expect(worker.exitCode).toBeNull();
    const exited = new Promise((resolve) => worker?.once('exit', resolve));
    worker.kill('SIGKILL');
    await exited;

    // Nothing but the safety wake-up brings the run back: the one the dead invocation requested.
    const wakeUps = readFileSync(wakeFile, 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as WakeRequest);
    const safety = wakeUps.find((w) => w.reason === 'lease' && w.runId === runId);
    expect(safety).toBeDefined();
    expect((await store.getRun(runId))?.status).toBe('RUNNING');
    await until(() => Date.now() >= (safety?.at ?? 0), 10_000);

    const engine = new Engine({ store, waker: { wakeAt: async () => {} } });
    const lambda = { functionName: 'crashy', getRemainingTimeInMillis: () => 60_000 };
    const handler = crashWorkflow(engine, { hang: false, inProcessWaitMs: 0 });
    expect(await handler(wakeEvent(runId), lambda)).toEqual({ Status: 'PENDING' });
    const lost = await store.getOperation(runId, '2');
    expect(lost?.Status).toBe('PENDING');
    expect(lost?.StepDetails?.Attempt).toBe(1);
    expect(lost?.StepDetails?.Error?.ErrorCode).toBe('invocation_lost');
    expect((await store.getRun(runId))?.lostInvocations).toBe(1);

    await until(() => Date.now() >= (lost?.StepDetails?.NextAttemptTimestamp ?? 0), 5_000);
    expect(await handler(wakeEvent(runId), lambda)).toEqual({
      Status: 'SUCCEEDED',
      Result: JSON.stringify({ prepared: 'prepared o-1', worked: 'done on attempt 2' }),
    });
    expect((await store.getOperation(runId, '1'))?.StepDetails?.Attempt).toBe(1);
  }, 120_000);
});
