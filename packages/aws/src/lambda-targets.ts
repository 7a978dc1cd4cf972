/** The parts of a Lambda function ARN. */
export interface FunctionArn {
  partition: string;
  region: string;
  account: string;
  /** The function's name, without qualifier. */
  name: string;
  /** The alias or version the ARN is qualified with, if any. */
  qualifier?: string;
}

const FUNCTION_ARN = /^arn:([a-z0-9-]+):lambda:([a-z0-9-]+):(\d{12}):function:([a-zA-Z0-9_-]+)(?::([a-zA-Z0-9$_-]+))?$/;
const PARTIAL_ARN = /^\d{12}:function:/;

/** Parses a Lambda function ARN (qualified or not); undefined for anything else. */
export function parseFunctionArn(arn: string): FunctionArn | undefined {
  const m = FUNCTION_ARN.exec(arn);
  if (!m) return undefined;
  const [, partition = '', region = '', account = '', name = '', qualifier] = m;
  return { partition, region, account, name, ...(qualifier === undefined ? {} : { qualifier }) };
}

/** A function's name without its qualifier (`orders:7`, `orders:live`) or the ARN around it. */
export function bareFunctionName(name: string): string {
  const parts = name.split(':');
  // arn:partition:lambda:region:account:function:NAME[:qualifier]
  if (parts[0] === 'arn') return parts[6] ?? name;
  return parts[0] ?? name;
}

/** Whether `functionName` is a partial ARN (`<account>:function:<name>[:qualifier]`), as Lambda's Invoke takes. */
export function isPartialFunctionArn(functionName: string): boolean {
  return PARTIAL_ARN.test(functionName);
}

/**
 * The ARN a wake-up or invoke of `functionName` targets, seen from the function invoked as
 * `ownArn`. The function itself is targeted with the very ARN it was invoked with (alias or
 * version included), so a run is replayed by the code version that started it. Other functions
 * (a chained invoke's child, a parent to resume) are `arn:<partition>:lambda:<region>:<account>:function:<name>`
 * in the same region and account; a name with a qualifier (`name:alias`), a partial ARN
 * (`<account>:function:<name>`) or a full ARN is kept as given.
 */
export function targetArnFrom(ownArn: string, functionName: string): string {
  const own = parseFunctionArn(ownArn);
  if (!own) throw new TypeError(`not a Lambda function ARN: ${JSON.stringify(ownArn)}`);
  if (functionName === own.name) return ownArn;
  if (functionName.startsWith('arn:')) return functionName;
  if (PARTIAL_ARN.test(functionName)) return `arn:${own.partition}:lambda:${own.region}:${functionName}`;
  return `arn:${own.partition}:lambda:${own.region}:${own.account}:function:${functionName}`;
}
