/**
 * The `durable` CLI signs its requests with SigV4 (service lambda) for an IAM-auth control API:
 * against the API on DynamoDB Local behind a front that verifies signatures as a Function URL
 * does, a signed `durable list` (the real binary) lists the runs, an unsigned one is refused, a
 * signed POST covers its Idempotency-Key and body hash, a wrong secret is refused, and missing
 * credentials are one line, exit 2.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { DurableClient } from '@durable-lambda/api';
import { createSignedFetch, NoAwsCredentialsError } from '@durable-lambda/aws';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../../packages/cli/src/main';
import { functionUrlRegion } from '../../packages/cli/src/signing';
import { type SignedApiWorld, startSignedApiWorld, WORLD_REGION } from '../support/signed-api-world';
import { TEST_CREDENTIALS } from '../support/sigv4-verifier';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const bin = join(root, 'packages/cli/bin/durable.mjs');
let world: SignedApiWorld;
let noAws: string;
const runIds: string[] = [];

/** An environment with no AWS credentials anywhere (no files, no instance metadata). */
function bareEnv(): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [name, value] of Object.entries(process.env)) {
    if (value !== undefined && !name.startsWith('AWS_') && name !== 'DURABLE_SIGN') env[name] = value;
  }
  return {
    ...env,
    HOME: noAws,
    AWS_CONFIG_FILE: join(noAws, 'config'),
    AWS_SHARED_CREDENTIALS_FILE: join(noAws, 'credentials'),
    AWS_EC2_METADATA_DISABLED: 'true',
    NODE_OPTIONS: '',
    DURABLE_CLI_SOURCE: '1',
    DURABLE_API_URL: '',
    AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
  };
}

function durable(
  args: string[],
  env: Record<string, string>,
): Promise<{ code: number | null; out: string; err: string }> {
  return new Promise((done, fail) => {
    const child = spawn(process.execPath, [bin, ...args], { cwd: root, env });
    let out = '';
    let err = '';
    child.stdout.on('data', (c) => {
      out += c;
    });
    child.stderr.on('data', (c) => {
      err += c;
    });
    child.on('error', fail);
    child.on('close', (code) => done({ code, out, err }));
  });
}

/** Runs the CLI in this process with `env` as its environment. */
async function cli(args: string[], env: Record<string, string | undefined>) {
  const out: string[] = [];
  const err: string[] = [];
  const code = await runCli(args, { out: (t) => void out.push(t), err: (t) => void err.push(t), env });
  return { code, out: out.join('\n'), err: err.join('\n') };
}

const keys = {
  AWS_ACCESS_KEY_ID: TEST_CREDENTIALS.accessKeyId,
  AWS_SECRET_ACCESS_KEY: TEST_CREDENTIALS.secretAccessKey,
};

beforeAll(async () => {
  noAws = mkdtempSync(join(tmpdir(), 'durable-no-aws-'));
  world = await startSignedApiWorld({
    checkout: async (event: { sku: string }, ctx) => {
      const reserved = await ctx.step('reserve', async () => ({ sku: event.sku }));
      return ctx.step('charge', async () => ({ ...reserved, charged: true }));
    },
  });
  for (const sku of ['book', 'lamp']) {
    const run = await world.engine.startRun({ functionName: 'checkout', input: JSON.stringify({ sku }) });
    runIds.push(run.run.runId);
  }
}, 90_000);

afterAll(async () => {
  await world?.close();
  rmSync(noAws, { recursive: true, force: true });
});

describe('durable CLI with SigV4', () => {
  it('finds the region in a Function URL host and nowhere else', () => {
    expect(functionUrlRegion('https://abcdef123.lambda-url.ap-southeast-2.on.aws/')).toBe('ap-southeast-2');
    expect(functionUrlRegion('https://example.com/')).toBeUndefined();
    expect(functionUrlRegion('https://x.lambda-url.eu-west-1.on.aws.evil.com/')).toBeUndefined();
  });

  it('signs for a Function URL on its own, for the region its host names', async () => {
    const sent: Array<{ url: string; authorization: string | undefined }> = [];
    const io = {
      out: () => {},
      err: () => {},
      env: keys,
      fetch: (async (url: URL | string, init?: RequestInit) => {
        sent.push({ url: String(url), authorization: new Headers(init?.headers).get('authorization') ?? undefined });
        return new Response(JSON.stringify({ runs: [] }), { headers: { 'content-type': 'application/json' } });
      }) as typeof fetch,
    };
    expect(await runCli(['list', '--url', 'https://abc123xyz.lambda-url.ap-south-1.on.aws'], io)).toBe(0);
    expect(await runCli(['list', '--url', 'https://api.example.com'], io)).toBe(0);
    expect(sent.map((s) => s.authorization?.match(/Credential=[^/]+\/\d{8}\/([^/]+\/[^/]+)\//)?.[1])).toEqual([
      'ap-south-1/lambda',
      undefined,
    ]);
  });

  it('lists the runs with a signed request (the real binary, credentials from the environment)', async () => {
    const before = world.front.seen.length;
    const answer = await durable(['list', '--url', world.front.url, '--sign', '--region', WORLD_REGION, '--json'], {
      ...bareEnv(),
      ...keys,
    });
    expect(answer.err).toBe('');
    expect(answer.code).toBe(0);
    const listed = (JSON.parse(answer.out) as { runs: Array<{ runId: string }> }).runs.map((r) => r.runId);
    expect(listed).toEqual(expect.arrayContaining(runIds));
    const seen = world.front.seen.slice(before);
    expect(seen.length).toBeGreaterThan(0);
    expect(seen.filter((s) => s.refused)).toEqual([]);
  }, 60_000);

  it('is refused by the front without signing, and with a wrong secret', async () => {
    const unsigned = await cli(['list', '--url', world.front.url], {});
    expect(unsigned.code).toBe(1);
    expect(unsigned.err).toContain('HTTP 403');
    expect(world.front.seen.at(-1)?.refused).toBe('no Authorization header');

    const wrong = await cli(['list', '--url', world.front.url, '--sign'], {
      ...keys,
      AWS_SECRET_ACCESS_KEY: 'not-the-secret',
      AWS_REGION: WORLD_REGION,
    });
    expect(wrong.code).toBe(1);
    expect(world.front.seen.at(-1)?.refused).toBe('signature does not match');
  });

  it('signs a POST with its Idempotency-Key and body hash (DURABLE_SIGN=1, region from AWS_REGION)', async () => {
    const before = world.front.seen.length;
    const started = await cli(['start', 'checkout', '--input', '{"sku":"desk"}', '--url', world.front.url, '--json'], {
      ...keys,
      DURABLE_SIGN: '1',
      AWS_REGION: WORLD_REGION,
    });
    expect(started.err).toBe('');
    expect(started.code).toBe(0);
    const runId = (JSON.parse(started.out) as { runId: string }).runId;
    const post = world.front.seen.slice(before).find((s) => s.method === 'POST');
    expect(post?.refused).toBeUndefined();
    expect(post?.signedHeaders).toEqual(expect.arrayContaining(['idempotency-key', 'x-amz-content-sha256', 'host']));
    await world.settle();
    const shown = await cli(
      ['show', runId, '--url', world.front.url, '--sign', '--region', WORLD_REGION, '--json'],
      keys,
    );
    expect(JSON.parse(shown.out)).toMatchObject({ runId, status: 'SUCCEEDED' });
  });

  it('says in one line that no credentials were found, exit 2, before any request', async () => {
    const before = world.front.seen.length;
    const answer = await durable(['list', '--url', world.front.url, '--sign', '--region', WORLD_REGION], bareEnv());
    expect(answer.code).toBe(2);
    const lines = answer.err.trim().split('\n');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/^durable: no AWS credentials found to sign requests with .*AWS_ACCESS_KEY_ID/);
    expect(world.front.seen.length).toBe(before);
  }, 60_000);

  it('signs the Idempotency-Key: a key changed after signing is refused', async () => {
    const tampering = createSignedFetch({
      region: WORLD_REGION,
      credentials: TEST_CREDENTIALS,
      fetch: (url, init) =>
        fetch(url, {
          ...init,
          headers: { ...(init?.headers as Record<string, string>), 'idempotency-key': 'replayed' },
        }),
    });
    const client = new DurableClient({ baseUrl: world.front.url, fetch: tampering, retries: 0 });
    await expect(client.startRun({ function: 'checkout', input: { sku: 'x' } })).rejects.toMatchObject({ status: 403 });
    expect(world.front.seen.at(-1)).toMatchObject({ method: 'POST', refused: 'signature does not match' });
  });

  it('a client whose signing fetch finds no credentials throws that error at once, not a retried network error', async () => {
    const calls: string[] = [];
    const client = new DurableClient({
      baseUrl: world.front.url,
      backoffMs: 1,
      fetch: createSignedFetch({
        region: WORLD_REGION,
        credentials: async () => {
          calls.push('asked');
          throw new NoAwsCredentialsError('none in this test');
        },
      }),
    });
    await expect(client.listRuns()).rejects.toMatchObject({ code: 'no_aws_credentials' });
    expect(calls).toEqual(['asked']);
  });

  it('durable console on a busy port: one line naming the port, exit 2', async () => {
    const port = new URL(world.front.url).port;
    const answer = await cli(['console', '--url', world.front.url, '--port', port], {});
    expect(answer.code).toBe(2);
    expect(answer.err).toBe(
      `durable console: port ${port} on 127.0.0.1 is in use: choose another with --port N (or PORT=N)`,
    );
  });

  it('asks for a region when the URL is not a Function URL and none is set', async () => {
    const answer = await cli(['list', '--url', world.front.url, '--sign'], keys);
    expect(answer.code).toBe(2);
    expect(answer.err).toContain('--region: needed to sign requests to 127.0.0.1');
  });
});
