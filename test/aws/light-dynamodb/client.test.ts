/**
 * The light DynamoDB client against a local HTTP server standing in for DynamoDB, next to the AWS
 * SDK's document client on the same server: the same request bodies for the store's commands, the
 * same document-shaped answers, the same errors where the store reads them (a refused condition's
 * item, a cancelled transaction's reasons), and the SDK's standard retries (throttling, 5xx,
 * dropped connections and timeouts retried; refused conditions and cancelled transactions not).
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import * as Sdk from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import {
  BatchGetCommand,
  BatchWriteCommand,
  DeleteCommand,
  type DynamoDbCommand,
  GetCommand,
  PutCommand,
  QueryCommand,
  TransactWriteCommand,
  UpdateCommand,
} from '../../../packages/aws/src/dynamodb/commands';
import { cancelledItem, conditionFailureItem } from '../../../packages/aws/src/dynamodb/returned-items';
import { LightDynamoDbClient } from '../../../packages/aws/src/light-dynamodb/client';

interface Received {
  target: string;
  contentType: string;
  authorization: string;
  body: Record<string, unknown>;
}

type Answer = { status: number; body?: unknown; headers?: Record<string, string> } | 'hang-up' | { delayMs: number };

/** A stand-in for DynamoDB: records each request, answers from a queue (then `fallback`). */
class FakeDynamoDb {
  readonly received: Received[] = [];
  private queue: Answer[] = [];
  private fallback: Answer = { status: 200, body: {} };
  private server: Server | undefined;

  answer(...answers: Answer[]): void {
    this.queue.push(...answers);
  }

  always(answer: Answer): void {
    this.fallback = answer;
  }

  reset(): void {
    this.received.length = 0;
    this.queue = [];
    this.fallback = { status: 200, body: {} };
  }

  async start(): Promise<string> {
    this.server = createServer((req: IncomingMessage, res: ServerResponse) => {
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      req.on('end', () => {
        this.received.push({
          target: String(req.headers['x-amz-target']),
          contentType: String(req.headers['content-type']),
          authorization: String(req.headers.authorization),
          body: JSON.parse(Buffer.concat(chunks).toString('utf8') || '{}'),
        });
        const answer = this.queue.shift() ?? this.fallback;
        if (answer === 'hang-up') {
          req.socket.destroy();
          return;
        }
        if ('delayMs' in answer) {
          setTimeout(() => {
            if (!res.writableEnded && !req.socket.destroyed) res.end('{}');
          }, answer.delayMs);
          return;
        }
        res.writeHead(answer.status, {
          'content-type': 'application/x-amz-json-1.0',
          'x-amzn-requestid': `req-${this.received.length}`,
          ...answer.headers,
        });
        res.end(answer.body === undefined ? '' : JSON.stringify(answer.body));
      });
    });
    const server = this.server;
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  }

  async stop(): Promise<void> {
    this.server?.closeAllConnections();
    await new Promise<void>((resolve) => this.server?.close(() => resolve()));
  }
}

const fake = new FakeDynamoDb();
const CREDENTIALS = { accessKeyId: 'AKIDFAKE', secretAccessKey: 'fake-secret' };
let light: LightDynamoDbClient;
let sdk: Sdk.DynamoDBDocumentClient;
let endpoint: string;

beforeAll(async () => {
  endpoint = await fake.start();
  light = new LightDynamoDbClient({ region: 'us-east-1', endpoint, credentials: CREDENTIALS, requestTimeoutMs: 500 });
  sdk = Sdk.DynamoDBDocumentClient.from(
    new DynamoDBClient({ region: 'us-east-1', endpoint, credentials: CREDENTIALS, maxAttempts: 1 }),
    { marshallOptions: { removeUndefinedValues: true } },
  );
});

afterAll(async () => {
  light?.destroy();
  sdk?.destroy();
  await fake.stop();
});

beforeEach(() => fake.reset());

type SdkCommand = Parameters<Sdk.DynamoDBDocumentClient['send']>[0];
/** lib-dynamodb's class of each of our commands. */
const SDK_COMMANDS: Record<string, unknown> = {
  GetItem: Sdk.GetCommand,
  PutItem: Sdk.PutCommand,
  UpdateItem: Sdk.UpdateCommand,
  DeleteItem: Sdk.DeleteCommand,
  Query: Sdk.QueryCommand,
  BatchGetItem: Sdk.BatchGetCommand,
  BatchWriteItem: Sdk.BatchWriteCommand,
  TransactWriteItems: Sdk.TransactWriteCommand,
};

/** The same command through lib-dynamodb's own class. */
function sdkCommand(command: DynamoDbCommand<object, object>): SdkCommand {
  const Command = SDK_COMMANDS[command.operation] as unknown as new (input: object) => SdkCommand;
  return new Command(command.input);
}

/** Sends `command` through both clients with `answer`: the two request bodies and the two outputs. */
async function both(command: DynamoDbCommand<object, object>, answer: unknown) {
  fake.answer({ status: 200, body: answer }, { status: 200, body: answer });
  const ours = (await light.send(command)) as Record<string, unknown>;
  const theirs = (await sdk.send(sdkCommand(command))) as Record<string, unknown>;
  const [mine, sdks] = fake.received;
  const { $metadata: _a, ...oursOutput } = ours;
  const { $metadata: _b, ...sdkOutput } = theirs;
  return { mine: mine as Received, sdks: sdks as Received, oursOutput, sdkOutput };
}

const bytes = (...values: number[]) => new Uint8Array(values);
/** A document with every kind of value the store writes, and some it never does. */
const DOCUMENT = {
  pk: 'RUN#r-1',
  sk: 'RUN',
  n: 42,
  neg: -1.5,
  big: 12345678901234567890n,
  yes: true,
  nothing: null,
  gone: undefined,
  data: bytes(0, 1, 2, 250),
  list: [1, 'two', { three: 3, gone: undefined }, [false], undefined],
  map: { a: { b: { c: 'deep' } }, empty: {} },
  strings: new Set(['a', 'b']),
  numbers: new Set([1, 2]),
  blobs: new Set([bytes(1), bytes(2)]),
  text: 'ünïcödé ✓',
  empty: '',
};
/** The same values as DynamoDB answers them. */
const WIRE_ITEM = {
  pk: { S: 'RUN#r-1' },
  n: { N: '42' },
  big: { N: '12345678901234567890' },
  yes: { BOOL: true },
  nothing: { NULL: true },
  data: { B: Buffer.from([0, 1, 2, 250]).toString('base64') },
  list: { L: [{ N: '1' }, { S: 'two' }, { M: { three: { N: '3' } } }] },
  strings: { SS: ['a', 'b'] },
  numbers: { NS: ['1', '2'] },
  blobs: { BS: ['AQ==', 'Ag=='] },
};

describe('LightDynamoDbClient speaks as the AWS SDK document client', () => {
  it.each([
    [
      'GetItem',
      new GetCommand({
        TableName: 't',
        Key: { pk: 'a', sk: 'b' },
        ConsistentRead: true,
        ProjectionExpression: '#a',
        ExpressionAttributeNames: { '#a': 'a' },
      }),
      { Item: WIRE_ITEM },
    ],
    [
      'PutItem',
      new PutCommand({
        TableName: 't',
        Item: DOCUMENT,
        ConditionExpression: 'attribute_not_exists(pk) OR #f <= :f',
        ExpressionAttributeNames: { '#f': 'f' },
        ExpressionAttributeValues: { ':f': 3 },
        ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
      }),
      { Attributes: WIRE_ITEM },
    ],
    [
      'UpdateItem',
      new UpdateCommand({
        TableName: 't',
        Key: { pk: 'a', sk: 'b' },
        UpdateExpression: 'SET #m.#k = :v REMOVE #x',
        ExpressionAttributeNames: { '#m': 'map', '#k': 'k', '#x': 'x' },
        ExpressionAttributeValues: { ':v': { nested: [1, undefined, 'x'], data: bytes(9) } },
        ReturnValues: 'ALL_NEW',
      }),
      { Attributes: WIRE_ITEM, ConsumedCapacity: { TableName: 't', CapacityUnits: 1 } },
    ],
    [
      'DeleteItem',
      new DeleteCommand({
        TableName: 't',
        Key: { pk: 'a', sk: 'b' },
        ConditionExpression: '#t = :t',
        ExpressionAttributeNames: { '#t': 'token' },
        ExpressionAttributeValues: { ':t': 'tok' },
      }),
      {},
    ],
    [
      'Query',
      new QueryCommand({
        TableName: 't',
        KeyConditionExpression: 'pk = :p AND sk > :s',
        ExpressionAttributeValues: { ':p': 'RUN#1', ':s': 'OP#' },
        ExclusiveStartKey: { pk: 'RUN#1', sk: 'OP#5' },
        Limit: 10,
        ScanIndexForward: false,
      }),
      { Items: [WIRE_ITEM, { pk: { S: 'x' } }], Count: 2, LastEvaluatedKey: { pk: { S: 'x' }, sk: { S: 'y' } } },
    ],
    [
      'BatchGetItem',
      new BatchGetCommand({
        RequestItems: {
          t: {
            Keys: [
              { pk: 'a', sk: 'b' },
              { pk: 'c', sk: 'd' },
            ],
            ConsistentRead: true,
          },
        },
      }),
      {
        Responses: { t: [WIRE_ITEM] },
        UnprocessedKeys: { t: { Keys: [{ pk: { S: 'c' }, sk: { S: 'd' } }], ConsistentRead: true } },
      },
    ],
    [
      'BatchWriteItem',
      new BatchWriteCommand({
        RequestItems: { t: [{ PutRequest: { Item: DOCUMENT } }, { DeleteRequest: { Key: { pk: 'a', sk: 'b' } } }] },
      }),
      { UnprocessedItems: { t: [{ PutRequest: { Item: WIRE_ITEM } }] } },
    ],
    [
      'TransactWriteItems',
      new TransactWriteCommand({
        ClientRequestToken: 'token-1',
        TransactItems: [
          {
            ConditionCheck: {
              TableName: 't',
              Key: { pk: 'a', sk: 'b' },
              ConditionExpression: '#f = :f',
              ExpressionAttributeNames: { '#f': 'fence' },
              ExpressionAttributeValues: { ':f': 7 },
            },
          },
          { Put: { TableName: 't', Item: DOCUMENT } },
          {
            Update: {
              TableName: 't',
              Key: { pk: 'a', sk: 'c' },
              UpdateExpression: 'SET x = :x',
              ExpressionAttributeValues: { ':x': [1, 2] },
            },
          },
          { Delete: { TableName: 't', Key: { pk: 'a', sk: 'd' } } },
        ],
      }),
      {},
    ],
  ] as const)('%s: the same request body, the same answer', async (operation, command, answer) => {
    const { mine, sdks, oursOutput, sdkOutput } = await both(command as DynamoDbCommand<object, object>, answer);
    expect(mine.target).toBe(`DynamoDB_20120810.${operation}`);
    expect(mine.target).toBe(sdks.target);
    expect(mine.contentType).toBe('application/x-amz-json-1.0');
    expect(mine.authorization).toMatch(
      /^AWS4-HMAC-SHA256 Credential=AKIDFAKE\/\d{8}\/us-east-1\/dynamodb\/aws4_request, SignedHeaders=.*host.*x-amz-target.*, Signature=[0-9a-f]{64}$/,
    );
    expect(mine.body).toEqual(sdks.body);
    expect(oursOutput).toEqual(sdkOutput);
  });

  it('gives every TransactWriteItems a ClientRequestToken, as the SDK does', async () => {
    const command = new TransactWriteCommand({
      TransactItems: [{ Delete: { TableName: 't', Key: { pk: 'a', sk: 'b' } } }],
    });
    const { mine, sdks } = await both(command, {});
    expect(mine.body.ClientRequestToken).toMatch(/^[0-9a-f-]{36}$/);
    expect(sdks.body.ClientRequestToken).toMatch(/^[0-9a-f-]{36}$/);
    const { ClientRequestToken: _a, ...ours } = mine.body;
    const { ClientRequestToken: _b, ...theirs } = sdks.body;
    expect(ours).toEqual(theirs);
  });

  it('refuses what lib-dynamodb refuses, naming it the same way', async () => {
    for (const item of [
      { pk: 'a', n: Number.NaN },
      { pk: 'a', n: 2 ** 60 },
      { pk: 'a', when: new Date(0) },
      { pk: 'a', s: new Set() },
    ]) {
      const ours = await light.send(new PutCommand({ TableName: 't', Item: item })).catch((e: Error) => e.message);
      const theirs = await sdk.send(new Sdk.PutCommand({ TableName: 't', Item: item })).catch((e: Error) => e.message);
      expect(ours).toBe(theirs);
    }
    expect(fake.received).toEqual([]);
  });
});

/** Sends `command` through both clients answered with `answer` each: the two errors. */
async function bothFail(command: DynamoDbCommand<object, object>, answer: Answer) {
  fake.answer(answer, answer);
  const ours = await light.send(command).then(
    () => undefined,
    (error: unknown) => error as Record<string, unknown>,
  );
  const theirs = await sdk.send(sdkCommand(command)).then(
    () => undefined,
    (error: unknown) => error as Record<string, unknown>,
  );
  return { ours: ours as Record<string, unknown>, theirs: theirs as Record<string, unknown> };
}

/** What the store and its callers read of an error. */
const shape = (error: Record<string, unknown>) => ({
  name: error.name,
  message: error.message,
  $fault: error.$fault,
  status: (error.$metadata as { httpStatusCode?: number }).httpStatusCode,
  requestId: (error.$metadata as { requestId?: string }).requestId !== undefined,
  attempts: (error.$metadata as { attempts?: number }).attempts,
  Item: error.Item,
  CancellationReasons: error.CancellationReasons,
});

describe('LightDynamoDbClient fails as the AWS SDK does', () => {
  it('a refused condition: ConditionalCheckFailedException with the item DynamoDB returned, not retried', async () => {
    const command = new UpdateCommand({
      TableName: 't',
      Key: { pk: 'a', sk: 'b' },
      UpdateExpression: 'SET x = :x',
      ConditionExpression: 'f = :f',
      ExpressionAttributeValues: { ':x': 1, ':f': 2 },
      ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
    });
    const { ours, theirs } = await bothFail(command, {
      status: 400,
      body: {
        __type: 'com.amazonaws.dynamodb.v20120810#ConditionalCheckFailedException',
        message: 'The conditional request failed',
        Item: WIRE_ITEM,
      },
    });
    expect(fake.received).toHaveLength(2);
    expect(shape(ours)).toEqual(shape(theirs));
    expect(shape(ours)).toMatchObject({
      name: 'ConditionalCheckFailedException',
      $fault: 'client',
      status: 400,
      attempts: 1,
    });
    // As the store reads it back.
    expect(conditionFailureItem(ours)).toEqual(conditionFailureItem(theirs));
    expect(conditionFailureItem(ours)).toMatchObject({ pk: 'RUN#r-1', n: 42, data: bytes(0, 1, 2, 250) });
  });

  it('a cancelled transaction: TransactionCanceledException with its reasons and items, not retried', async () => {
    const command = new TransactWriteCommand({
      TransactItems: [
        { Put: { TableName: 't', Item: { pk: 'a', sk: 'b' } } },
        { Delete: { TableName: 't', Key: { pk: 'a', sk: 'c' } } },
      ],
    });
    const { ours, theirs } = await bothFail(command, {
      status: 400,
      body: {
        __type: 'com.amazonaws.dynamodb.v20120810#TransactionCanceledException',
        Message:
          'Transaction cancelled, please refer cancellation reasons for specific reasons [ConditionalCheckFailed, None]',
        CancellationReasons: [
          { Code: 'ConditionalCheckFailed', Message: 'The conditional request failed', Item: WIRE_ITEM },
          { Code: 'None' },
        ],
      },
    });
    expect(fake.received).toHaveLength(2);
    expect(shape(ours)).toEqual(shape(theirs));
    expect(cancelledItem(ours, 0)).toEqual(cancelledItem(theirs, 0));
    expect((ours.CancellationReasons as Array<{ Code: string }>).map((r) => r.Code)).toEqual([
      'ConditionalCheckFailed',
      'None',
    ]);
  });

  it('a validation error: named by x-amzn-errortype or __type, its message kept, not retried', async () => {
    const command = new GetCommand({ TableName: 't', Key: { pk: 'a' } });
    const { ours, theirs } = await bothFail(command, {
      status: 400,
      headers: {
        'x-amzn-errortype': 'ValidationException:http://internal.amazon.com/coral/com.amazon.coral.validate/',
      },
      body: {
        __type: 'com.amazon.coral.validate#ValidationException',
        message: 'The provided key element does not match the schema',
      },
    });
    expect(shape(ours)).toEqual(shape(theirs));
    expect(ours.name).toBe('ValidationException');
  });
});

describe("LightDynamoDbClient retries as the AWS SDK's standard mode", () => {
  it('throttling and a 5xx are retried, with the same request, until it succeeds', async () => {
    fake.answer(
      {
        status: 400,
        body: {
          __type: 'com.amazonaws.dynamodb.v20120810#ProvisionedThroughputExceededException',
          message: 'slow down',
        },
      },
      { status: 500, body: { __type: 'com.amazon.coral.service#InternalFailure', message: 'oops' } },
      { status: 200, body: {} },
    );
    const out = await light.send(
      new TransactWriteCommand({ TransactItems: [{ Delete: { TableName: 't', Key: { pk: 'a', sk: 'b' } } }] }),
    );
    expect(fake.received).toHaveLength(3);
    // The same token each time: DynamoDB applies a retried transaction once.
    const tokens = new Set(fake.received.map((r) => r.body.ClientRequestToken));
    expect(tokens.size).toBe(1);
    expect(out.$metadata).toMatchObject({ httpStatusCode: 200, attempts: 3 });
    expect(out.$metadata.totalRetryDelay).toBeGreaterThanOrEqual(0);
  });

  it('a dropped connection and an answer that never comes are retried', async () => {
    fake.answer('hang-up', { delayMs: 5_000 }, { status: 200, body: { Item: { pk: { S: 'a' } } } });
    const out = await light.send(new GetCommand({ TableName: 't', Key: { pk: 'a', sk: 'b' } }));
    expect(out.Item).toEqual({ pk: 'a' });
    expect(fake.received).toHaveLength(3);
    expect(out.$metadata.attempts).toBe(3);
  });

  it('gives up after 4 attempts (AWS_MAX_ATTEMPTS otherwise) with the last error', async () => {
    fake.always({
      status: 503,
      body: { __type: 'com.amazon.coral.availability#ServiceUnavailableException', message: 'busy' },
    });
    const error = await light
      .send(new GetCommand({ TableName: 't', Key: { pk: 'a', sk: 'b' } }))
      .catch((e: unknown) => e);
    expect(error).toMatchObject({
      name: 'ServiceUnavailableException',
      $fault: 'server',
      $metadata: { httpStatusCode: 503, attempts: 4 },
    });
    expect(fake.received).toHaveLength(4);

    fake.reset();
    fake.always({ status: 500, body: {} });
    const two = new LightDynamoDbClient({
      region: 'us-east-1',
      endpoint,
      credentials: CREDENTIALS,
      env: { AWS_MAX_ATTEMPTS: '2' },
    });
    await expect(two.send(new GetCommand({ TableName: 't', Key: { pk: 'a', sk: 'b' } }))).rejects.toMatchObject({
      $metadata: { httpStatusCode: 500, attempts: 2 },
    });
    expect(fake.received).toHaveLength(2);
    two.destroy();
  });
});

describe('LightDynamoDbClient configuration', () => {
  it("takes Lambda's credentials and the endpoint from the environment", async () => {
    const client = new LightDynamoDbClient({
      region: 'eu-west-1',
      env: {
        AWS_ENDPOINT_URL_DYNAMODB: endpoint,
        AWS_ACCESS_KEY_ID: 'ASIAENV',
        AWS_SECRET_ACCESS_KEY: 'env-secret',
        AWS_SESSION_TOKEN: 'env-token',
      },
    });
    await client.send(new GetCommand({ TableName: 't', Key: { pk: 'a', sk: 'b' } }));
    expect(fake.received[0]?.authorization).toMatch(
      /Credential=ASIAENV\/\d{8}\/eu-west-1\/dynamodb\/aws4_request, SignedHeaders=[^,]*x-amz-security-token/,
    );
    client.destroy();
  });

  it('without credentials, fails the request with no_aws_credentials and sends nothing', async () => {
    const client = new LightDynamoDbClient({ region: 'eu-west-1', endpoint, env: {} });
    await expect(client.send(new GetCommand({ TableName: 't', Key: { pk: 'a', sk: 'b' } }))).rejects.toMatchObject({
      name: 'NoAwsCredentialsError',
      code: 'no_aws_credentials',
    });
    expect(fake.received).toEqual([]);
  });

  it("defaults to the region's DynamoDB endpoint", () => {
    expect(new LightDynamoDbClient({ region: 'eu-west-1', env: {} }).endpoint.href).toBe(
      'https://dynamodb.eu-west-1.amazonaws.com/',
    );
    expect(new LightDynamoDbClient({ region: 'cn-north-1', env: {} }).endpoint.href).toBe(
      'https://dynamodb.cn-north-1.amazonaws.com.cn/',
    );
    expect(
      new LightDynamoDbClient({ region: 'us-gov-west-1', env: { AWS_USE_FIPS_ENDPOINT: 'true' } }).endpoint.href,
    ).toBe('https://dynamodb-fips.us-gov-west-1.amazonaws.com/');
    expect(() => new LightDynamoDbClient({ region: ' ' })).toThrow(/region is required/);
  });
});
