/**
 * The production runtime loads the Scheduler, Lambda and SQS SDK clients at their first call, not
 * at import (a cold container imports only what its first invocation needs), by a name no bundler
 * follows (so a bundle holds none of them), and none of the SDK's DynamoDB client at all (the light
 * client talks to DynamoDB); a client that cannot be loaded fails that call with an error naming
 * the package, retried at the next call.
 */
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { describe, expect, it } from 'vitest';
import { AwsSdkLoadError, LazySdkClient, lazySchedulerClient } from '../../packages/aws/src/lazy-aws-sdk-clients';
import { DYNAMODB_SDK_LEFT_OUT } from '../../packages/cdk/src/bundle-defaults';

const ROOT = resolve(fileURLToPath(new URL('../..', import.meta.url)));

/** The production runtime a DurableFunction deploys (its injected backend), bundled with the AWS SDK external. */
async function productionBundle(): Promise<string> {
  const result = await build({
    entryPoints: [join(ROOT, 'packages', 'cdk', 'src', 'runtime', 'backend-inject.ts')],
    bundle: true,
    write: false,
    format: 'esm',
    platform: 'node',
    target: 'node22',
    external: ['@aws-sdk/*', '@smithy/*'],
    // As the construct builds it: the AWS SDK's DynamoDB client left out (the light client).
    define: { ...DYNAMODB_SDK_LEFT_OUT },
    plugins: [
      {
        name: 'durable-lambda-sources',
        setup(b) {
          b.onResolve({ filter: /^@durable-lambda\/[a-z]+$/ }, (args) => ({
            path: join(ROOT, 'packages', args.path.slice('@durable-lambda/'.length), 'src', 'index.ts'),
          }));
        },
      },
    ],
    logLevel: 'error',
  });
  return result.outputFiles[0]?.text ?? '';
}

describe('the production runtime bundle', () => {
  it('imports no AWS SDK client at load, and the Scheduler, Lambda and SQS clients by a name no bundler follows at first use', async () => {
    const code = await productionBundle();
    const staticImports = [...code.matchAll(/^import\s[^;]*?from\s*["']([^"']+)["']/gm)].map((m) => m[1]);
    expect(staticImports.filter((name) => name?.startsWith('@aws-sdk/'))).toEqual([]);
    // No import() esbuild could follow either (with the SDK bundled it would pull the client in).
    expect([...code.matchAll(/\bimport\(\s*["'](@aws-sdk\/[^"']+)["']\s*\)/g)].map((m) => m[1])).toEqual([]);
    const loaded = new Set([...code.matchAll(/\bimportAwsSdk\(\s*["'](@aws-sdk\/[^"']+)["']\s*\)/g)].map((m) => m[1]));
    expect([...loaded].sort()).toEqual(['@aws-sdk/client-lambda', '@aws-sdk/client-scheduler', '@aws-sdk/client-sqs']);
  }, 60_000);
});

describe('LazySdkClient', () => {
  type Command = { input: number };
  const fakeClient = (region: string, sent: Command[]) => ({
    config: { region: async () => region },
    send: async (command: Command) => {
      sent.push(command);
      return { echoed: command.input };
    },
  });

  it('builds its client at the first call, once, and sends through it', async () => {
    let builds = 0;
    const sent: Command[] = [];
    const lazy = new LazySdkClient<ReturnType<typeof fakeClient>, Command>('@aws-sdk/client-example', async () => {
      builds += 1;
      return fakeClient('eu-west-1', sent);
    });
    expect(builds).toBe(0);
    expect(await lazy.send({ input: 1 })).toEqual({ echoed: 1 });
    expect(await lazy.send({ input: 2 })).toEqual({ echoed: 2 });
    expect(await lazy.config.region()).toBe('eu-west-1');
    expect(await lazy.client()).toBe(await lazy.client());
    expect(builds).toBe(1);
    expect(sent).toEqual([{ input: 1 }, { input: 2 }]);
  });

  it('fails a call whose client cannot be loaded naming the package, and loads again at the next call', async () => {
    let attempt = 0;
    const sent: Command[] = [];
    const lazy = new LazySdkClient<ReturnType<typeof fakeClient>, Command>('@aws-sdk/client-example', async () => {
      attempt += 1;
      if (attempt === 1) throw new Error("Cannot find package '@aws-sdk/client-example'");
      return fakeClient('us-east-1', sent);
    });
    const failure = await lazy.send({ input: 1 }).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(AwsSdkLoadError);
    expect(failure).toMatchObject({ code: 'aws_sdk_unavailable', packageName: '@aws-sdk/client-example' });
    expect((failure as Error).message).toContain('@aws-sdk/client-example could not be loaded');
    expect((failure as Error).message).toContain("Cannot find package '@aws-sdk/client-example'");
    expect(((failure as Error).cause as Error).message).toBe("Cannot find package '@aws-sdk/client-example'");
    expect(await lazy.send({ input: 2 })).toEqual({ echoed: 2 });
    expect(attempt).toBe(2);
    expect(sent).toEqual([{ input: 2 }]);
  });

  it('builds a real Scheduler client for its region at the first call', async () => {
    const lazy = lazySchedulerClient('ap-southeast-2');
    const client = await lazy.client();
    expect(client.constructor.name).toBe('SchedulerClient');
    expect(await lazy.config.region()).toBe('ap-southeast-2');
  });
});
