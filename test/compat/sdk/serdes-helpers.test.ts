import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { LocalDurableTestRunner } from '@durable-lambda/local';
import { executionArn } from '@durable-lambda/protocol';
import {
  buildPreview,
  createClassSerdes,
  createFileSystemSerdes,
  FileSystemPathEncoding,
  FileSystemSerdesMode,
  type InvalidArgumentError,
  PreviewMode,
  type Serdes,
  withDurableExecution,
} from '@durable-lambda/sdk';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'durable-fs-serdes-'));
});
afterEach(() => {
  rmSync(dir, { recursive: true, force: true });
});

/** A serdes that tags what it stores, so a record shows which serdes wrote it. */
const tagged = (tag: string): Serdes<unknown> => ({
  serialize: (value) => (value === undefined ? undefined : `${tag}:${JSON.stringify(value)}`),
  deserialize: (data) => (data === undefined ? undefined : JSON.parse(data.slice(tag.length + 1))),
});

describe('context.configureSerdes (AWS’s)', () => {
  it('stores results of operations without a serdes through the default, here and in later child contexts', async () => {
    const handler = withDurableExecution(async (_e, ctx) => {
      await ctx.step('before', async () => 0);
      ctx.configureSerdes({ defaultSerdes: tagged('dflt') });
      const a = await ctx.step('a', async () => ({ n: 1 }));
      const own = await ctx.step('own', async () => 2, { serdes: tagged('own') as Serdes<number> });
      const child = await ctx.runInChildContext('child', async (c) => c.step('inner', async () => 3));
      return [a, own, child];
    });
    const runner = new LocalDurableTestRunner({ handlerFunction: handler });
    const result = await runner.run();
    expect(result.getResult()).toEqual([{ n: 1 }, 2, 3]);
    const raw = (name: string) => runner.getOperation(name).getOperationData()?.StepDetails?.Result;
    expect(raw('before')).toBe('0');
    expect(raw('a')).toBe('dflt:{"n":1}');
    expect(raw('own')).toBe('own:2');
    expect(raw('inner')).toBe('dflt:3');
    expect(runner.getOperation('child').getOperationData()?.ContextDetails?.Result).toBe('dflt:3');
  });

  it('reads callback results through the default callback deserializer', async () => {
    const handler = withDurableExecution(async (_e, ctx) => {
      ctx.configureSerdes({
        defaultCallbackDeserializer: { deserialize: (d) => (d === undefined ? d : JSON.parse(d)) },
      });
      const [promise] = await ctx.createCallback<{ ok: boolean }>('approval');
      return promise;
    });
    const runner = new LocalDurableTestRunner({ handlerFunction: handler });
    const running = runner.run();
    await (await runner.getOperation('approval').waitForData()).sendCallbackSuccess('{"ok":true}');
    expect((await running).getResult()).toEqual({ ok: true });
  });

  it('refuses a serdes without its functions, naming the field', async () => {
    const handler = withDurableExecution(async (_e, ctx) => {
      try {
        ctx.configureSerdes({ defaultSerdes: { serialize: () => '' } as never });
      } catch (error) {
        return (error as InvalidArgumentError).field;
      }
      return 'accepted';
    });
    expect((await new LocalDurableTestRunner({ handlerFunction: handler }).run()).getResult()).toBe(
      'config.defaultSerdes',
    );
  });
});

describe('createFileSystemSerdes (AWS’s)', () => {
  it('keeps step results in files and only a pointer with its preview in the checkpoint, the same on replay', async () => {
    const serdes = createFileSystemSerdes(dir, {
      generatePreview: (value) =>
        buildPreview(value, { mode: PreviewMode.EXCLUDE_ALL, include: [{ name: 'id' }], mask: [{ name: 'email' }] }),
    });
    const seen: unknown[] = [];
    const handler = withDurableExecution(async (_e, ctx) => {
      const order = (await ctx.step('load', async () => ({ id: 'o-1', email: 'a@b.c', lines: [1, 2] }), {
        serdes,
      })) as { id: string };
      seen.push(order);
      await ctx.wait({ seconds: 1 });
      return order.id;
    });
    const runner = new LocalDurableTestRunner({ handlerFunction: handler });
    const result = await runner.run();
    expect(result.getResult()).toBe('o-1');
    expect(seen).toEqual([
      { id: 'o-1', email: 'a@b.c', lines: [1, 2] },
      { id: 'o-1', email: 'a@b.c', lines: [1, 2] },
    ]);
    const stored = JSON.parse(runner.getOperation('load').getOperationData()?.StepDetails?.Result ?? '{}');
    expect(stored.preview).toEqual({ id: 'o-1', email: '***' });
    // Named after the run's execution ARN, as AWS's serdes names it.
    expect(stored.file).toBe(join(dir, encodeURIComponent(executionArn('handler', result.getRunId())), '1.json'));
    expect(JSON.parse(readFileSync(stored.file, 'utf8'))).toEqual({ id: 'o-1', email: 'a@b.c', lines: [1, 2] });
  });

  it('stores small values inline in OVERFLOW mode and large ones in a file; HASH names files by digest', async () => {
    const context = { entityId: '1-2', durableExecutionArn: 'run/with:odd chars' };
    const overflow = createFileSystemSerdes(dir, { storageMode: FileSystemSerdesMode.OVERFLOW });
    const small = await overflow.serialize({ a: 1 }, context);
    expect(small).toBe(JSON.stringify({ data: '{"a":1}' }));
    expect(await overflow.deserialize(small, context)).toEqual({ a: 1 });
    const big = { text: 'x'.repeat(300 * 1024) };
    const pointer = JSON.parse((await overflow.serialize(big, context)) ?? '{}');
    expect(existsSync(pointer.file)).toBe(true);
    expect(await overflow.deserialize(JSON.stringify(pointer), context)).toEqual(big);

    const hashed = createFileSystemSerdes(dir, { pathEncoding: FileSystemPathEncoding.HASH });
    const { file } = JSON.parse((await hashed.serialize('v', context)) ?? '{}');
    expect(file).toMatch(new RegExp(`^${dir}/[0-9a-f]{64}/[0-9a-f]{64}\\.json$`));
    expect(await hashed.serialize(undefined, context)).toBeUndefined();
  });

  it('lays a Lambda durable execution ARN out as <function>/<execution>/<invocation> in URI mode', async () => {
    const arn = 'arn:aws:lambda:eu-west-1:123456789012:function:orders:$LATEST/durable-execution/run-1/inv-9';
    const serdes = createFileSystemSerdes(dir);
    const { file } = JSON.parse((await serdes.serialize(1, { entityId: '3', durableExecutionArn: arn })) ?? '{}');
    expect(file).toBe(join(dir, 'orders', 'run-1', 'inv-9', '3.json'));
  });
});

describe('createClassSerdes in a run', () => {
  it('gives back class instances with their methods, live and on replay', async () => {
    class Money {
      cents = 0;
      currency = 'EUR';
      format() {
        return `${(this.cents / 100).toFixed(2)} ${this.currency}`;
      }
    }
    const formatted: string[] = [];
    const handler = withDurableExecution(async (_e, ctx) => {
      const price = await ctx.step('price', async () => Object.assign(new Money(), { cents: 1250 }), {
        serdes: createClassSerdes(Money),
      });
      formatted.push(price.format());
      await ctx.wait({ seconds: 1 });
      return price.format();
    });
    const result = await new LocalDurableTestRunner({ handlerFunction: handler }).run();
    expect(result.getResult()).toBe('12.50 EUR');
    expect(formatted).toEqual(['12.50 EUR', '12.50 EUR']);
  });
});
