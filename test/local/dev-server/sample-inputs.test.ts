/**
 * Sample inputs per function: given to `startDevServer`, or declared by an entry module next to
 * its handlers (an export `samples`), listed by `GET /v1/functions`; bad ones refused at start,
 * naming the field.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { FunctionListWire } from '@durable-lambda/api';
import { startDevServer } from '@durable-lambda/local';
import { withDurableExecution } from '@durable-lambda/sdk';
import { afterAll, describe, expect, it } from 'vitest';
import { root } from './process';

mkdirSync(join(root, '.artifacts'), { recursive: true });
const dir = mkdtempSync(join(root, '.artifacts', 'samples-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const echo = withDurableExecution(async (event: unknown) => event, { logSink: () => {} });

function entry(name: string, body: string): string {
  const file = join(dir, name);
  writeFileSync(
    file,
    `import { withDurableExecution } from '@durable-lambda/sdk';\nconst quiet = { logSink: () => {} };\n${body}\n`,
  );
  return file;
}

describe('sample inputs', () => {
  it('lists the samples given and those an entry declares, by function', async () => {
    const one = entry(
      'one.ts',
      `export const greet = withDurableExecution(async (e: { name: string }) => 'hi ' + e.name, quiet);
       export const samples = [{ name: 'Ada', input: { name: 'Ada' } }];`,
    );
    const two = entry(
      'two.ts',
      `export const add = withDurableExecution(async (e: { a: number; b: number }) => e.a + e.b, quiet);
       export const sub = withDurableExecution(async (e: { a: number; b: number }) => e.a - e.b, quiet);
       export const samples = { add: [{ name: 'small', input: { a: 1, b: 2 } }, { name: 'big', input: { a: 1e9, b: 1 } }] };`,
    );
    const server = await startDevServer({
      functions: { echo },
      entries: [one, two],
      samples: { echo: [{ name: 'a string', input: 'hello' }] },
      port: 0,
      db: ':memory:',
      log: () => {},
    });
    try {
      const { functions } = (await (await fetch(`${server.url}/v1/functions`)).json()) as FunctionListWire;
      expect(Object.fromEntries(functions.map((f) => [f.name, f.samples?.map((s) => [s.name, s.input])]))).toEqual({
        echo: [['a string', 'hello']],
        greet: [['Ada', { name: 'Ada' }]],
        add: [
          ['small', { a: 1, b: 2 }],
          ['big', { a: 1e9, b: 1 }],
        ],
        sub: undefined,
      });
    } finally {
      await server.stop();
    }
  });

  it('refuses bad samples at start, naming the field', async () => {
    const start = (options: Parameters<typeof startDevServer>[0]) =>
      startDevServer({ port: 0, db: ':memory:', log: () => {}, ...options });
    await expect(start({ functions: { echo }, samples: { nope: [] } })).rejects.toThrow(
      /^samples\.nope: no function of this name is served$/,
    );
    await expect(start({ functions: { echo }, samples: { echo: [{ input: 1 }] as never } })).rejects.toThrow(
      /^samples\.echo\[0\]\.name: expected a non-empty string$/,
    );
    await expect(start({ functions: { echo }, samples: { echo: [{ name: 'x' }] as never } })).rejects.toThrow(
      /^samples\.echo\[0\]\.input: expected a JSON value$/,
    );
    const twoHandlers = entry(
      'ambiguous.ts',
      `export const a = withDurableExecution(async () => 1, quiet);
       export const b = withDurableExecution(async () => 2, quiet);
       export const samples = [{ name: 'which?', input: {} }];`,
    );
    await expect(start({ entries: [twoHandlers] })).rejects.toThrow(/samples: an array fits a module with one handler/);
  });
});
