/**
 * A DynamoDB document client that refuses, as IAM would, every request whose action a role was
 * not granted: wrapped around DynamoDB Local, it proves a code path needs no more than the
 * actions the CDK grants (DynamoDB Local itself checks no permission at all).
 */
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';

/** lib-dynamodb's command class names and the IAM action each needs. */
const ACTION_OF: Record<string, string> = {
  GetCommand: 'dynamodb:GetItem',
  PutCommand: 'dynamodb:PutItem',
  UpdateCommand: 'dynamodb:UpdateItem',
  DeleteCommand: 'dynamodb:DeleteItem',
  QueryCommand: 'dynamodb:Query',
  ScanCommand: 'dynamodb:Scan',
  BatchGetCommand: 'dynamodb:BatchGetItem',
  BatchWriteCommand: 'dynamodb:BatchWriteItem',
  TransactWriteCommand: 'dynamodb:TransactWriteItems',
  TransactGetCommand: 'dynamodb:TransactGetItems',
};

/**
 * `client` refusing what `allowed` does not grant; `used` collects every action asked, `denied` each
 * refusal (a refusal a best-effort path swallows shows there).
 */
export function iamCheckedClient(
  client: DynamoDBDocumentClient,
  allowed: readonly string[],
): { client: DynamoDBDocumentClient; used: Set<string>; denied: string[] } {
  const used = new Set<string>();
  const denied: string[] = [];
  const checked = new Proxy(client, {
    get(target, property, receiver) {
      if (property !== 'send') return Reflect.get(target, property, receiver);
      return (command: { constructor: { name: string } }, ...rest: unknown[]) => {
        const action = ACTION_OF[command.constructor.name] ?? `unknown:${command.constructor.name}`;
        used.add(action);
        // TransactWriteItems is authorized per item action (Put, Update, ConditionCheck...).
        if (action !== 'dynamodb:TransactWriteItems' && !allowed.includes(action)) {
          denied.push(action);
          const error = new Error(`User is not authorized to perform: ${action}`);
          error.name = 'AccessDeniedException';
          return Promise.reject(error);
        }
        return (target.send as (...args: unknown[]) => unknown).call(target, command, ...rest);
      };
    },
  });
  return { client: checked, used, denied };
}
