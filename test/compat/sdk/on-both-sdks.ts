import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { LocalDurableTestRunner as OurRunner } from '@durable-lambda/local/testing';
import * as oursSdk from '@durable-lambda/sdk';
import type * as AwsTestingTypes from '../../../bench/node_modules/@aws/durable-execution-sdk-js-testing/dist-types/index';
import { type AwsDurableSdk, importAwsSdk } from '../../support/aws-sdk';

/**
 * Runs one handler body twice: on AWS's SDK 2.4.0 under AWS's own LocalDurableTestRunner 1.1.4
 * (skipTime: fake timers, installed only around AWS's run), then on our SDK under our runner; and
 * hands back both outcomes in one comparable shape (ids and timestamps left out: they differ by
 * design). Only the stable result methods of both runners are read.
 */

/** The SDK a body is written against: AWS's module, or ours seen through AWS's types. */
export type Sdk = AwsDurableSdk;
/** AWS's durable context type, which handler bodies are written against. */
export type Ctx = Parameters<Parameters<Sdk['withDurableExecution']>[0]>[1];
/** A handler body, given the SDK it runs on so it can use that SDK's classes and helpers. */
export type Body = (sdk: Sdk, side: Side) => (event: unknown, ctx: Ctx) => Promise<unknown>;
export type Side = 'aws' | 'ours';

/** One operation, without ids and timestamps; its parent by name. */
export interface OperationOutcome {
  type: string;
  subType?: string;
  name?: string;
  status: string;
  parent?: string;
  attempt?: number;
  result?: unknown;
  error?: unknown;
  waitSeconds?: number;
}

/** A run's outcome. */
export interface Outcome {
  status: string;
  result?: unknown;
  error?: Record<string, unknown>;
  operations: OperationOutcome[];
}

type AwsTesting = typeof AwsTestingTypes;
const ROOT = fileURLToPath(new URL('../../..', import.meta.url));
let testing: Promise<AwsTesting> | undefined;

/** AWS's testing package, ESM entry from bench/node_modules (it shares AWS's SDK module with importAwsSdk). */
export function importAwsTesting(): Promise<AwsTesting> {
  testing ??= (async () => {
    const name = '@aws/durable-execution-sdk-js-testing';
    const main = createRequire(join(ROOT, 'bench', 'package.json')).resolve(name);
    let dir = dirname(main);
    while (!existsSync(join(dir, 'package.json'))) dir = dirname(dir);
    const pkg = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as {
      exports?: { '.'?: { import?: string } };
    };
    return (await import(pathToFileURL(join(dir, pkg.exports?.['.']?.import ?? 'dist/index.mjs')).href)) as AwsTesting;
  })();
  return testing;
}

/** Our SDK, seen through AWS's types (the bodies are written once, against AWS's). */
export const ours = oursSdk as unknown as Sdk;

interface OperationLike {
  getOperationData(): Record<string, unknown> | undefined;
}
interface ResultLike {
  getStatus(): string | undefined;
  getResult(): unknown;
  getError(): unknown;
  getOperations(): OperationLike[];
}

function describeOperations(operations: OperationLike[]): OperationOutcome[] {
  const data = operations.map((o) => o.getOperationData() ?? {}) as Record<string, Record<string, unknown>>[];
  const names = new Map(data.map((d) => [d.Id as unknown as string, d.Name as unknown as string | undefined]));
  return data.map((d) => {
    const details = (d.StepDetails ?? d.ContextDetails ?? d.CallbackDetails ?? d.ChainedInvokeDetails ?? {}) as Record<
      string,
      unknown
    >;
    const out: OperationOutcome = { type: String(d.Type), status: String(d.Status) };
    if (d.SubType) out.subType = String(d.SubType);
    if (d.Name) out.name = String(d.Name);
    if (d.ParentId) out.parent = names.get(String(d.ParentId)) ?? '?';
    if (d.StepDetails && (d.StepDetails as { Attempt?: number }).Attempt !== undefined) {
      out.attempt = (d.StepDetails as { Attempt: number }).Attempt;
    }
    if (details.Result !== undefined) out.result = details.Result;
    if (details.Error !== undefined) out.error = details.Error;
    return out;
  });
}

async function outcomeOf(result: ResultLike): Promise<Outcome> {
  const status = String(result.getStatus());
  const out: Outcome = { status, operations: describeOperations(result.getOperations()) };
  if (status === 'SUCCEEDED') {
    const value = result.getResult();
    if (value !== undefined) out.result = value;
  } else {
    const error = result.getError();
    if (error) {
      // Our runner keeps the stable code out of sight of toEqual (non-enumerable): read it by name.
      const { code } = error as { code?: unknown };
      out.error = { ...(error as Record<string, unknown>), ...(code === undefined ? {} : { code }) };
    }
  }
  return out;
}

/** Options for one run. */
export interface RunOptions {
  payload?: unknown;
  config?: (sdk: Sdk) => Record<string, unknown>;
  /** AWS's runner only: real time instead of skipped time (its default in these tests). */
  realTime?: boolean;
  /** Durable functions the body invokes, by name (each wrapped by the SDK the body runs on). */
  durableFunctions?: Record<string, Body>;
  /** Plain Lambda functions the body invokes, by name. */
  functions?: Record<string, (event: unknown) => Promise<unknown>>;
}

interface Registering {
  registerDurableFunction(name: string, handler: never): unknown;
  registerFunction(name: string, handler: never): unknown;
}

function register(runner: Registering, sdk: Sdk, side: Side, options: RunOptions): void {
  for (const [name, body] of Object.entries(options.durableFunctions ?? {})) {
    runner.registerDurableFunction(name, sdk.withDurableExecution(body(sdk, side) as never) as never);
  }
  for (const [name, fn] of Object.entries(options.functions ?? {})) runner.registerFunction(name, fn as never);
}

/** Runs a body on AWS's SDK under AWS's runner (fake timers only for this run). */
export async function runOnAws(body: Body, options: RunOptions = {}): Promise<Outcome> {
  const sdk = await importAwsSdk();
  const { LocalDurableTestRunner } = await importAwsTesting();
  await LocalDurableTestRunner.setupTestEnvironment({ skipTime: !options.realTime });
  try {
    const handler = sdk.withDurableExecution(body(sdk, 'aws') as never, options.config?.(sdk) as never);
    const runner = new LocalDurableTestRunner({ handlerFunction: handler });
    register(runner as unknown as Registering, sdk, 'aws', options);
    return await outcomeOf(
      (await runner.run(options.payload === undefined ? undefined : { payload: options.payload })) as never,
    );
  } finally {
    await LocalDurableTestRunner.teardownTestEnvironment();
  }
}

/** Runs a body on our SDK under our runner. */
export async function runOnOurs(body: Body, options: RunOptions = {}): Promise<Outcome> {
  const handler = ours.withDurableExecution(body(ours, 'ours') as never, options.config?.(ours) as never);
  const runner = new OurRunner({ handlerFunction: handler as never });
  register(runner as unknown as Registering, ours, 'ours', options);
  return outcomeOf((await runner.run(options.payload === undefined ? {} : { payload: options.payload })) as never);
}

/** Both outcomes, AWS's first. */
export async function onBoth(body: Body, options: RunOptions = {}): Promise<{ aws: Outcome; ours: Outcome }> {
  const aws = await runOnAws(body, options);
  return { aws, ours: await runOnOurs(body, options) };
}

/** A plain description of a caught error: what handler code can see of it. */
export function seen(error: unknown): Record<string, unknown> {
  if (!(error instanceof Error)) return { value: error };
  const e = error as Error & Record<string, unknown>;
  const out: Record<string, unknown> = {
    class: e.constructor.name,
    name: e.name,
    message: e.message,
    keys: Object.keys(e).sort(),
  };
  for (const key of ['errorType', 'errorData']) if (key in e) out[key] = e[key];
  // Stack frames differ by file; whether there is one, and its shape, is what code relies on.
  if ('stackTrace' in e) out.stackTrace = Array.isArray(e.stackTrace) ? 'array' : typeof e.stackTrace;
  if (e.cause !== undefined) out.cause = seen(e.cause);
  if (Array.isArray(e.errors)) out.errors = e.errors.map(seen);
  return out;
}

/**
 * An outcome without what differs by design: our stable `ErrorCode` and the failed attempt's
 * `StackTrace` on operation records (ours, for the dashboard), the run error's `code` (ours,
 * non-enumerable on thrown errors), and the `Attempt` our engine writes on a STARTED step.
 */
export function comparable(outcome: Outcome): Outcome {
  const clean = (value: unknown): unknown =>
    JSON.parse(
      JSON.stringify(value ?? null, (key, v) => (key === 'ErrorCode' || key === 'StackTrace' ? undefined : v)),
    );
  const operations = outcome.operations.map((op) => {
    const out = { ...op };
    if (out.error !== undefined) out.error = clean(out.error);
    if (typeof out.result === 'string') out.result = withoutStacks(out.result);
    if (out.status === 'STARTED') delete out.attempt;
    return out;
  });
  const result: Outcome = { ...outcome, operations };
  if (outcome.error) {
    const { code: _code, ...fields } = outcome.error;
    result.error = Object.fromEntries(Object.entries(fields).filter(([, v]) => v !== undefined));
  }
  return result;
}

/**
 * A stored result with the stacks of stored error reasons (allSettled's) left out: they name
 * each SDK's own files. Our code beside them goes too (ours, so replays keep it).
 */
function withoutStacks(data: string): string {
  if (!data.includes('"stack"')) return data;
  try {
    return JSON.stringify(JSON.parse(data, (key, v) => (key === 'stack' || key === 'code' ? undefined : v)));
  } catch {
    return data;
  }
}
