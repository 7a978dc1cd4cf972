import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { DynamoDbCommand, DynamoDbInterceptor, DynamoDbOperation, DynamoDbTransport } from './commands';
import { clientDynamoDb, libDynamoDb } from './sdk-modules';

type LibDynamoDb = Awaited<ReturnType<typeof libDynamoDb>>;

/** lib-dynamodb's command class of each operation. */
const SDK_COMMANDS = {
  GetItem: 'GetCommand',
  PutItem: 'PutCommand',
  UpdateItem: 'UpdateCommand',
  DeleteItem: 'DeleteCommand',
  Query: 'QueryCommand',
  BatchGetItem: 'BatchGetCommand',
  BatchWriteItem: 'BatchWriteCommand',
  TransactWriteItems: 'TransactWriteCommand',
} as const satisfies Record<DynamoDbOperation, keyof LibDynamoDb>;

type SdkCommandClass = new (input: object) => Parameters<DynamoDBDocumentClient['send']>[0];

let interceptors = 0;

/**
 * A user's `DynamoDBDocumentClient` as a {@link DynamoDbTransport}: each command becomes
 * lib-dynamodb's class of the same name (the module loaded at the first request, from where the
 * client's own came), sent through the client, so its middleware, retries and errors are the
 * SDK's. Interceptors become middleware of the client's `initialize` step.
 */
export class DocumentClientTransport implements DynamoDbTransport {
  private lib: LibDynamoDb | undefined;

  constructor(
    /** The client requests go through. */
    readonly client: DynamoDBDocumentClient,
  ) {}

  async send<Input extends object, Output extends object>(command: DynamoDbCommand<Input, Output>): Promise<Output> {
    this.lib ??= await libDynamoDb();
    const Command = this.lib[SDK_COMMANDS[command.operation]] as unknown as SdkCommandClass;
    return (await this.client.send(new Command(command.input))) as unknown as Output;
  }

  intercept(interceptor: DynamoDbInterceptor): void {
    interceptors += 1;
    addInterceptorMiddleware(this.client, interceptor, `durableLambdaInterceptor${interceptors}`);
  }
}

/**
 * Adds `interceptor` to an AWS SDK DynamoDB client (a `DynamoDBClient`, or the document client over
 * it: they share one middleware stack) as middleware of its `initialize` step named `name` (the SDK
 * refuses a second one of the same name): it sees each request's document-shaped input and output,
 * around the SDK's retries.
 */
export function addInterceptorMiddleware(
  client: Pick<DynamoDBDocumentClient, 'middlewareStack'>,
  interceptor: DynamoDbInterceptor,
  name: string,
): void {
  client.middlewareStack.add(
    (next, context) => async (args) => {
      let result: Awaited<ReturnType<typeof next>> | undefined;
      const output = await interceptor(
        { commandName: context.commandName ?? '', input: args.input as Record<string, unknown> },
        async (input) => {
          result = await next({ ...args, input });
          return result.output as unknown as Record<string, unknown>;
        },
      );
      return { response: undefined, ...result, output: output as never };
    },
    { step: 'initialize', name },
  );
}

/**
 * The AWS SDK's document client for `region` (with `removeUndefinedValues`, as the store needs),
 * built at the first request: `@aws-sdk/client-dynamodb` and `@aws-sdk/lib-dynamodb` load then,
 * not at import. What the production backend uses with `DURABLE_DYNAMODB_CLIENT=sdk`.
 */
export class LazyDocumentClientTransport implements DynamoDbTransport {
  private readonly interceptors: DynamoDbInterceptor[] = [];
  private built: DocumentClientTransport | undefined;
  private building: Promise<DocumentClientTransport> | undefined;

  constructor(readonly region: string) {}

  /** The document client (built on the first call, then the same one). */
  async client(): Promise<DynamoDBDocumentClient> {
    return (await this.transport()).client;
  }

  async send<Input extends object, Output extends object>(command: DynamoDbCommand<Input, Output>): Promise<Output> {
    return (this.built ?? (await this.transport())).send(command);
  }

  intercept(interceptor: DynamoDbInterceptor): void {
    this.interceptors.push(interceptor);
    this.built?.intercept(interceptor);
  }

  private transport(): Promise<DocumentClientTransport> {
    this.building ??= (async () => {
      const [{ DynamoDBClient }, { DynamoDBDocumentClient }] = await Promise.all([clientDynamoDb(), libDynamoDb()]);
      const transport = new DocumentClientTransport(
        DynamoDBDocumentClient.from(new DynamoDBClient({ region: this.region }), {
          marshallOptions: { removeUndefinedValues: true },
        }),
      );
      for (const interceptor of this.interceptors) transport.intercept(interceptor);
      this.built = transport;
      return transport;
    })().catch((error: unknown) => {
      this.building = undefined;
      throw error;
    });
    return this.building;
  }
}
