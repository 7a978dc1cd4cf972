import { spawn } from 'node:child_process';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createDurableTable, DynamoDbStore } from '@durable-lambda/aws';
import { parseRecordedRun, TestDriver } from '@durable-lambda/local';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fakeCheckoutServices, sampleOrder } from '../../examples/checkout/fakes';
import { createCheckoutHandler } from '../../examples/checkout/handler';
import { dynamoDbLocalEndpoint, localDocumentClient, uniqueTableName } from '../support/dynamodb-local';
import { handlerCopy, removeHandlerCopies } from '../support/replay-handler-copies';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const bin = join(root, 'packages/cli/bin/durable.mjs');

let endpoint = '';
let tableName = '';
let runId = '';
let client: ReturnType<typeof localDocumentClient> | undefined;

/** The real `durable` binary, pointed at DynamoDB Local through the AWS SDK's own settings. */
function durable(args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((done, fail) => {
    const child = spawn(process.execPath, [bin, ...args], {
      cwd: root,
      env: {
        ...process.env,
        NODE_OPTIONS: '',
        DURABLE_CLI_SOURCE: '1',
        AWS_ENDPOINT_URL_DYNAMODB: endpoint,
        AWS_REGION: 'us-east-1',
        AWS_ACCESS_KEY_ID: 'local',
        AWS_SECRET_ACCESS_KEY: 'local',
      },
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c) => {
      stdout += c;
    });
    child.stderr.on('data', (c) => {
      stderr += c;
    });
    child.on('error', fail);
    child.on('close', (code) => done({ code, stdout, stderr }));
  });
}

beforeAll(async () => {
  endpoint = await dynamoDbLocalEndpoint();
  client = localDocumentClient(endpoint);
  tableName = uniqueTableName('replay');
  await createDurableTable(client, tableName);
  const store = new DynamoDbStore({ client, tableName });
  // A real run of the example on the DynamoDB store, its 30-minute window skipped by the virtual clock.
  const driver = new TestDriver(
    { checkout: createCheckoutHandler(fakeCheckoutServices().services) },
    { store: () => store, printLogs: false },
  );
  runId = (await driver.start('checkout', sampleOrder())).runId;
  expect((await driver.runUntilDone(runId)).status).toBe('SUCCEEDED');
}, 120_000);

afterAll(() => {
  removeHandlerCopies();
  client?.destroy();
});

describe('durable export and replay --table (DynamoDB Local)', { timeout: 120_000 }, () => {
  it('exports a run from the table, and the CI mode catches a renamed step in its finished runs', async () => {
    const renamed = handlerCopy('checkout', 'table-renamed', [
      ["ctx.step('reserve-stock'", "ctx.step('reserve-inventory'"],
    ]);
    const [exported, replayed] = await Promise.all([
      durable(['export', runId, '--table', tableName]),
      durable(['replay', '--function', 'checkout', '--table', tableName, '--handler', `${renamed}#handler`]),
    ]);
    expect(exported.stderr).toBe('');
    expect(exported.code).toBe(0);
    const file = parseRecordedRun(exported.stdout);
    expect(file).toMatchObject({ source: 'store', run: { runId, status: 'SUCCEEDED' } });
    expect(file.operations.map((op) => op.Name)).toContain('cancellation-window');

    expect(replayed.code).toBe(4);
    expect(replayed.stdout).toMatch(/0 clean, 1 diverged, 0 failed/);
    expect(replayed.stdout).toMatch(/the record has STEP "reserve-stock", the code asked for STEP "reserve-inventory"/);
  });
});
