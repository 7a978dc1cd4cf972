/**
 * The backend a function runs on when its config names none: the one an explicit entry registered
 * (`import '@durable-lambda/aws/register'`, or a `DurableFunction` bundle's), never a package the
 * SDK loads by itself. Without one, the invocation fails naming `config.backend` and what to do.
 * (A file of its own: registering is a process-wide act, and this one starts with none.)
 */
import { selfHosted } from '@durable-lambda/aws';
import type { DurableBackend } from '@durable-lambda/protocol';
import { InvalidArgumentError, registerBackend, registeredBackend, withDurableExecution } from '@durable-lambda/sdk';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { unregisterBackend } from '../../packages/sdk/src/runtime/backend-registry';
import { type AwsDurableSdk, importAwsSdk } from '../support/aws-sdk';

let aws: AwsDurableSdk;
beforeAll(async () => {
  aws = await importAwsSdk();
});
afterEach(() => {
  unregisterBackend();
});

const context = { functionName: 'fn', awsRequestId: 'req-1' };

/** A backend that answers every event with `answer`, without opening a run. */
const answering = (answer: unknown): DurableBackend => ({ open: async () => ({ response: answer }) });

describe('withDurableExecution without config.backend', () => {
  it('fails the invocation with an InvalidArgumentError naming config.backend and the register entry', async () => {
    expect(registeredBackend()).toBeUndefined();
    const handler = withDurableExecution(async () => 'never');
    const failure = await handler({}, context).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(InvalidArgumentError);
    expect(failure).toMatchObject({ code: 'invalid_argument', field: 'config.backend' });
    expect((failure as Error).message).toContain("import '@durable-lambda/aws/register'");
    expect((failure as Error).message).toContain('pass config.backend');
  });

  it('runs on the registered backend, registered after the handler was wrapped, and the failure before is not kept', async () => {
    const handler = withDurableExecution(async () => 'never');
    await expect(handler({}, context)).rejects.toBeInstanceOf(InvalidArgumentError);
    let made = 0;
    registerBackend(() => {
      made += 1;
      return answering('from the registered backend');
    });
    expect(await handler({}, context)).toBe('from the registered backend');
    expect(await handler({}, context)).toBe('from the registered backend');
    // Made once per container (per handler), at its first invocation.
    expect(made).toBe(1);
  });

  it('leaves config.backend in charge when given', async () => {
    registerBackend(() => answering('registered'));
    const handler = withDurableExecution(async () => 'never', { backend: answering('configured') });
    expect(await handler({}, context)).toBe('configured');
  });

  it('refuses to register something that is not a factory', () => {
    expect(() => registerBackend(answering('x') as never)).toThrow(InvalidArgumentError);
  });
});

describe('selfHosted without options.backend', () => {
  it('runs on the registered backend when there is one', async () => {
    registerBackend(() => answering('registered, for AWS-wrapped handlers too'));
    const handler = selfHosted(aws.withDurableExecution(async () => 'never'));
    expect(await handler({}, context)).toBe('registered, for AWS-wrapped handlers too');
  });
});

describe("import '@durable-lambda/aws/register'", () => {
  it('registers the production backend, configured from the environment at the first invocation', async () => {
    await import('@durable-lambda/aws/register');
    expect(typeof registeredBackend()).toBe('function');
    const handler = withDurableExecution(async () => 'never');
    // No DURABLE_* variables here: the production backend says which is missing.
    await expect(handler({}, context)).rejects.toMatchObject({
      code: 'missing_configuration',
      message: expect.stringContaining('DURABLE_TABLE_NAME'),
    });
  });
});
