/**
 * The requests the DynamoDB store makes, as small command objects named like
 * `@aws-sdk/lib-dynamodb`'s (`PutCommand`, `UpdateCommand`, …), each holding the document-shaped
 * `.input` lib-dynamodb takes, and the transport that sends them. Importing this module loads no
 * AWS SDK code (the input and output types are lib-dynamodb's, erased at build): the deployed
 * runtime sends them through the light client (`LightDynamoDbClient`), and a user's
 * `DynamoDBDocumentClient` through an adapter that maps each to lib-dynamodb's own class
 * (`sdk-transport.ts`).
 */
import type {
  BatchGetCommandInput,
  BatchGetCommandOutput,
  BatchWriteCommandInput,
  BatchWriteCommandOutput,
  DeleteCommandInput,
  DeleteCommandOutput,
  GetCommandInput,
  GetCommandOutput,
  PutCommandInput,
  PutCommandOutput,
  QueryCommandInput,
  QueryCommandOutput,
  TransactWriteCommandInput,
  TransactWriteCommandOutput,
  UpdateCommandInput,
  UpdateCommandOutput,
} from '@aws-sdk/lib-dynamodb';

/** The DynamoDB operations the store uses (the `X-Amz-Target` suffix of each request). */
export type DynamoDbOperation =
  | 'GetItem'
  | 'PutItem'
  | 'UpdateItem'
  | 'DeleteItem'
  | 'Query'
  | 'BatchGetItem'
  | 'BatchWriteItem'
  | 'TransactWriteItems';

/** A request to DynamoDB: its operation and its input as the document client takes it. */
export abstract class DynamoDbCommand<Input extends object, Output extends object> {
  /** The DynamoDB operation. */
  abstract readonly operation: DynamoDbOperation;
  /** Never set: carries the output type for {@link DynamoDbTransport.send}. */
  declare readonly outputType?: Output;

  constructor(
    /** The input, document-shaped (plain JavaScript values, not attribute values). */
    readonly input: Input,
  ) {}
}

/** GetItem (lib-dynamodb's `GetCommand`). */
export class GetCommand extends DynamoDbCommand<GetCommandInput, GetCommandOutput> {
  readonly operation = 'GetItem';
}

/** PutItem (lib-dynamodb's `PutCommand`). */
export class PutCommand extends DynamoDbCommand<PutCommandInput, PutCommandOutput> {
  readonly operation = 'PutItem';
}

/** UpdateItem (lib-dynamodb's `UpdateCommand`). */
export class UpdateCommand extends DynamoDbCommand<UpdateCommandInput, UpdateCommandOutput> {
  readonly operation = 'UpdateItem';
}

/** DeleteItem (lib-dynamodb's `DeleteCommand`). */
export class DeleteCommand extends DynamoDbCommand<DeleteCommandInput, DeleteCommandOutput> {
  readonly operation = 'DeleteItem';
}

/** Query (lib-dynamodb's `QueryCommand`). */
export class QueryCommand extends DynamoDbCommand<QueryCommandInput, QueryCommandOutput> {
  readonly operation = 'Query';
}

/** BatchGetItem (lib-dynamodb's `BatchGetCommand`). */
export class BatchGetCommand extends DynamoDbCommand<BatchGetCommandInput, BatchGetCommandOutput> {
  readonly operation = 'BatchGetItem';
}

/** BatchWriteItem (lib-dynamodb's `BatchWriteCommand`). */
export class BatchWriteCommand extends DynamoDbCommand<BatchWriteCommandInput, BatchWriteCommandOutput> {
  readonly operation = 'BatchWriteItem';
}

/** TransactWriteItems (lib-dynamodb's `TransactWriteCommand`). */
export class TransactWriteCommand extends DynamoDbCommand<TransactWriteCommandInput, TransactWriteCommandOutput> {
  readonly operation = 'TransactWriteItems';
}

export type {
  QueryCommandInput,
  TransactWriteCommandInput,
} from '@aws-sdk/lib-dynamodb';

/** One request as an interceptor sees it: document-shaped, before it is sent. */
export interface DynamoDbCall {
  /** The low-level command's name as the AWS SDK names it (`PutItemCommand`, `QueryCommand`, …). */
  readonly commandName: string;
  /** The request's input (document-shaped). */
  readonly input: Readonly<Record<string, unknown>>;
}

/**
 * Wraps every request a transport sends (retries included): calls `next` with the input to send
 * (the call's own, or a copy it changed) and returns the output (document-shaped), or throws.
 * What the run meter measures DynamoDB's consumed capacity with (`consumed-capacity.ts`).
 */
export type DynamoDbInterceptor = (
  call: DynamoDbCall,
  next: (input: Record<string, unknown>) => Promise<Record<string, unknown>>,
) => Promise<Record<string, unknown>>;

/**
 * What the store sends its requests through: the light client (`LightDynamoDbClient`), or a
 * user's `DynamoDBDocumentClient` behind its adapter. Errors are the AWS SDK's, or shaped like them
 * (`name`, `message`, `$metadata`, and a refused write's `Item` / `CancellationReasons` in
 * DynamoDB's attribute-value form, as lib-dynamodb leaves them).
 */
export interface DynamoDbTransport {
  /** Sends `command`; resolves with the document-shaped output. */
  send<Input extends object, Output extends object>(command: DynamoDbCommand<Input, Output>): Promise<Output>;
  /** Adds an interceptor around every later request (the first added is the outermost). */
  intercept(interceptor: DynamoDbInterceptor): void;
}

/** Whether `client` is a {@link DynamoDbTransport} (not an AWS SDK client, whose commands differ). */
export function isDynamoDbTransport(client: unknown): client is DynamoDbTransport {
  if (typeof client !== 'object' || client === null) return false;
  const candidate = client as Partial<DynamoDbTransport> & { middlewareStack?: unknown };
  return (
    typeof candidate.send === 'function' &&
    typeof candidate.intercept === 'function' &&
    candidate.middlewareStack === undefined
  );
}
