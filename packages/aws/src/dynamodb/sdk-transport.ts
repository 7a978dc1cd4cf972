import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { DynamoDbCommand, DynamoDbInterceptor, DynamoDbOperation, DynamoDbTransport } from './commands';
import { libDynamoDb } from './sdk-modules';

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
    this.client.middlewareStack.add(
      (next, context) => async (args) => {
        let result: Awaited<ReturnType<typeof next>> | undefined;
        const output = await interceptor(
          { commandName: context.commandName ?? '', input: args.input as Record<string, unknown> },
          async (input) => {
            result = await next({ ...args, input });
            return result.output as unknown as Record<string, unknown>;
          },
        );
        return { ...(result as Awaited<ReturnType<typeof next>>), output: output as never };
      },
      { step: 'initialize', name: `durableLambdaInterceptor${interceptors}` },
    );
  }
}
