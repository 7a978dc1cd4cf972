import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { LocalDurableTestRunner } from '@durable-lambda/local';
import * as ours from '@durable-lambda/sdk';
import { beforeAll, describe, expect, it } from 'vitest';

/**
 * The same handler code on AWS's SDK 2.4.0 (under AWS's test runner 1.1.4) and on ours: the same
 * errors thrown into handler code, the same run errors, the same refusal of a misused context,
 * the same custom logger lines; and the same results from AWS's pure helpers.
 */

const ROOT = fileURLToPath(new URL('../../..', import.meta.url));
const AWS_SDK = '@aws/durable-execution-sdk-js';
const AWS_TESTING = '@aws/durable-execution-sdk-js-testing';

type Module = Record<string, unknown>;

/** The ESM entry of one of AWS's packages, from wherever the repository installs them. */
async function importAws(name: string): Promise<Module> {
  const roots = [process.env.AWS_PACKAGES_ROOT, ROOT, join(ROOT, 'bench')].filter((r): r is string => !!r);
  for (const root of roots) {
    let main: string;
    try {
      main = createRequire(join(root, 'package.json')).resolve(name);
    } catch {
      continue;
    }
    // The package folder holds package.json; its "import" entry is the ESM build the testing
    // package loads too, so both share one copy of AWS's classes.
    let dir = dirname(main);
    while (!existsSync(join(dir, 'package.json'))) dir = dirname(dir);
    const pkg = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as {
      exports?: { '.'?: { import?: string } };
      module?: string;
    };
    const entry = pkg.exports?.['.']?.import ?? pkg.module ?? main;
    return (await import(pathToFileURL(join(dir, entry)).href)) as Module;
  }
  throw new Error(`${name} is not installed: run \`node scripts/check-tools.mjs bench\` (or set AWS_PACKAGES_ROOT)`);
}

const oursModule = ours as unknown as Module;
let aws: Module;
let awsTesting: Module;

beforeAll(async () => {
  aws = await importAws(AWS_SDK);
  awsTesting = await importAws(AWS_TESTING);
});

/** Runs one handler body on AWS's SDK (under AWS's test runner) and then on ours; returns both outcomes. */
async function onBoth(body: (event: unknown, ctx: never) => Promise<unknown>, between: () => void = () => {}) {
  type Runnable = {
    run(): Promise<{ getStatus(): string; getError(): Record<string, unknown> | undefined; getResult(): unknown }>;
  };
  const outcome = async (handler: unknown, Runner: new (o: object) => Runnable) => {
    const result = await new Runner({ handlerFunction: handler }).run();
    return result.getStatus() === 'SUCCEEDED' ? { result: result.getResult() } : { error: result.getError() };
  };
  const Testing = awsTesting.LocalDurableTestRunner as {
    setupTestEnvironment(o: object): Promise<void>;
    teardownTestEnvironment(): Promise<void>;
  } & (new (
    o: object,
  ) => Runnable);
  await Testing.setupTestEnvironment({ skipTime: true });
  let theirs: Awaited<ReturnType<typeof outcome>>;
  try {
    theirs = await outcome((aws.withDurableExecution as (h: unknown) => unknown)(body), Testing);
  } finally {
    await Testing.teardownTestEnvironment();
  }
  between();
  const mine = await outcome(
    ours.withDurableExecution(body as never),
    LocalDurableTestRunner as unknown as new (
      o: object,
    ) => Runnable,
  );
  return { mine, theirs };
}

describe('handler code sees what it sees on AWS', () => {
  type Ctx = {
    step(name: string | undefined, fn: () => Promise<unknown>, config?: object): Promise<unknown>;
    runInChildContext(name: string | undefined, fn: () => Promise<unknown>): Promise<unknown>;
    promise: {
      all(p: Promise<unknown>[]): Promise<unknown>;
      any(p: Promise<unknown>[]): Promise<unknown>;
      allSettled(p: Promise<unknown>[]): Promise<unknown>;
    };
  };

  it('throws the same errors into handler code, and fails the run with the same error', async () => {
    const noRetry = { retryStrategy: () => ({ shouldRetry: false }) };
    const seen: Record<'mine' | 'theirs', unknown> = { mine: undefined, theirs: undefined };
    let side: 'mine' | 'theirs' = 'theirs';
    const body = async (_event: unknown, ctx: Ctx) => {
      const caught: unknown[] = [];
      const failing = (message: string) =>
        ctx.step(
          undefined,
          async () => {
            throw Object.assign(new TypeError(message), { code: 'my_code' });
          },
          noRetry,
        );
      for (const attempt of [
        () => failing('step'),
        () =>
          ctx.runInChildContext('child', async () => {
            throw new RangeError('child');
          }),
        () => ctx.promise.all([failing('all')]),
        () => ctx.promise.any([failing('any')]),
      ]) {
        try {
          await attempt();
        } catch (error) {
          caught.push(error);
        }
      }
      caught.push(await ctx.promise.allSettled([failing('settled')]));
      seen[side] = caught;
      await failing('final');
    };
    const { mine, theirs } = await onBoth(body as never, () => {
      side = 'mine';
    });
    expect(seen.mine).toEqual(seen.theirs);
    const classes = (caught: unknown) =>
      ((caught as unknown[]).slice(0, 4) as Error[]).map((e) => [
        e.constructor.name,
        (e.cause as Error)?.constructor.name,
      ]);
    expect(classes(seen.mine)).toEqual(classes(seen.theirs));
    // Our code rides along without being seen by toEqual.
    expect(((seen.mine as unknown[])[0] as { code: string }).code).toBe('my_code');
    // The run's error: AWS's fields; ours adds only the stable code.
    const { code, ...fields } = mine.error ?? {};
    expect(code).toBe('my_code');
    expect(fields).toEqual(theirs.error);
  });
});

describe('context behaviour AWS defines', () => {
  type Ctx = {
    step(name: string, fn: (c: { logger: { info(...a: unknown[]): void } }) => Promise<unknown>): Promise<unknown>;
    wait(d: object): Promise<void>;
    runInChildContext(name: string, fn: (c: Ctx) => Promise<unknown>): Promise<unknown>;
    configureLogger(config: object): void;
    logger: { info(...a: unknown[]): void };
  };

  it('refuses a parent context used inside a step or a child context with AWS’s error', async () => {
    for (const body of [
      async (_e: unknown, ctx: Ctx) => ctx.step('outer', async () => ctx.wait({ seconds: 1 })),
      async (_e: unknown, ctx: Ctx) => ctx.runInChildContext('child', async () => ctx.step('inner', async () => 1)),
    ]) {
      const { mine, theirs } = await onBoth(body as never);
      expect(theirs.error?.errorMessage).toMatch(/^Context usage error/);
      const { code, ...fields } = mine.error ?? {};
      expect(code).toBe('context_misuse');
      expect(fields).toEqual(theirs.error);
    }
  });

  it('sends a custom logger’s lines as AWS does (context, steps, child contexts)', async () => {
    const lines: Record<'mine' | 'theirs', unknown[][]> = { mine: [], theirs: [] };
    let target: unknown[][] = lines.theirs;
    const custom = {
      info: (...params: unknown[]) => target.push(['info', ...params]),
      warn: (...params: unknown[]) => target.push(['warn', ...params]),
      error: (...params: unknown[]) => target.push(['error', ...params]),
      debug: (...params: unknown[]) => target.push(['debug', ...params]),
    };
    const body = async (_e: unknown, ctx: Ctx) => {
      ctx.configureLogger({ customLogger: custom });
      ctx.logger.info('in handler', { a: 1 });
      await ctx.step('s', async ({ logger }) => logger.info('in step', 2));
      await ctx.runInChildContext('c', async (child) => child.logger.info('in child'));
      return 'ok';
    };
    const { mine, theirs } = await onBoth(body as never, () => {
      target = lines.mine;
    });
    expect(mine).toEqual(theirs);
    expect(lines.mine).toEqual(lines.theirs);
    expect(lines.theirs).toEqual([
      ['info', 'in handler', { a: 1 }],
      ['info', 'in step', 2],
      ['info', 'in child'],
    ]);
  });
});

describe('pure helpers give AWS’s results', () => {
  it('buildPreview picks, masks and caps fields the same way', () => {
    const value = {
      id: 'order-1',
      status: 'pending',
      user: { email: 'a@b.c', name: 'Ann', address: { city: 'Oslo' } },
      lines: [{ sku: 'x', price: 3 }, { sku: 'y' }],
      secret: 's3cr3t',
    };
    const configs = [
      { mode: 'EXCLUDE_ALL', include: [{ name: 'id' }, { name: 'status' }], mask: [{ name: 'email' }] },
      { mode: 'INCLUDE_ALL', exclude: [{ name: 'secret' }], mask: [{ name: 'user.name', match: 'PATH' }] },
      { mode: 'INCLUDE_ALL', maxPreviewBytes: 40 },
      { mode: 'EXCLUDE_ALL', include: [{ name: 'sku' }], maskString: '#' },
      { mode: 'EXCLUDE_ALL' },
    ];
    const build = (m: Module, config: object) => (m.buildPreview as (v: unknown, c: object) => unknown)(value, config);
    for (const config of configs) expect(build(oursModule, config)).toEqual(build(aws, config));
    expect(build(oursModule, configs[0] as object)).toEqual({
      id: 'order-1',
      status: 'pending',
      user: { email: '***' },
    });
  });

  it('createClassSerdes and createClassSerdesWithDates round-trip the same instances', async () => {
    class Article {
      title = '';
      createdAt = new Date(0);
      meta = { publishedAt: new Date(0) };
      age() {
        return this.createdAt.getTime();
      }
    }
    const article = Object.assign(new Article(), {
      title: 'T',
      createdAt: new Date('2026-01-02T03:04:05Z'),
      meta: { publishedAt: new Date('2026-02-03T00:00:00Z') },
    });
    const context = { entityId: '1', durableExecutionArn: 'run' };
    type Serdes = {
      serialize(v: unknown, c: object): Promise<string>;
      deserialize(d: string, c: object): Promise<Article>;
    };
    for (const m of [oursModule, aws]) {
      const plain = (m.createClassSerdes as (c: unknown) => Serdes)(Article);
      const dated = (m.createClassSerdesWithDates as (c: unknown, p: string[]) => Serdes)(Article, [
        'createdAt',
        'meta.publishedAt',
        'missing.path',
      ]);
      const back = await dated.deserialize(await dated.serialize(article, context), context);
      expect(back).toBeInstanceOf(Article);
      expect(back.age()).toBe(article.createdAt.getTime());
      expect(back.meta.publishedAt).toEqual(article.meta.publishedAt);
      const shallow = await plain.deserialize(await plain.serialize(article, context), context);
      expect(shallow).toBeInstanceOf(Article);
      expect(typeof shallow.createdAt).toBe('string');
    }
  });

  it('classifies transport errors the same way (isDurableExecutionClientError)', () => {
    const samples = (m: Module) => {
      const E = m.DurableExecutionClientError as new (msg: string, o?: object) => Error;
      return [
        new E('a'),
        new E('b', { scope: 'EXECUTION' }),
        new E('c', { scope: 'SOMETHING_ELSE' }),
        Object.assign(new Error('marker'), { isDurableExecutionClientError: true, scope: 'INVOCATION' }),
        { isDurableExecutionClientError: true, scope: 'INVOCATION' },
        new Error('plain'),
        undefined,
      ];
    };
    const check = (m: Module) => samples(m).map((s) => (m.isDurableExecutionClientError as (e: unknown) => boolean)(s));
    expect(check(oursModule)).toEqual(check(aws));
    expect(check(oursModule)).toEqual([true, true, false, true, false, false, false]);
  });

  it('completeBatch and continueBatch build the same decisions', () => {
    for (const name of ['completeBatch', 'continueBatch']) {
      const fn = (m: Module) => m[name] as (o?: string) => unknown;
      expect(fn(oursModule)()).toEqual(fn(aws)());
      expect(fn(oursModule)('FAILED')).toEqual(fn(aws)('FAILED'));
    }
  });

  it('recognises invocation inputs that carry their own client across copies of the class', () => {
    const params = { DurableExecutionArn: 'arn', CheckpointToken: 't', InitialExecutionState: { Operations: [] } };
    const client = { getExecutionState: async () => ({}), checkpoint: async () => ({}) };
    type InputClass = (new (p: object, c: object) => object) & { isInstance(e: unknown): boolean };
    const Ours = ours.DurableExecutionInvocationInputWithClient as unknown as InputClass;
    const Theirs = aws.DurableExecutionInvocationInputWithClient as InputClass;
    expect(Ours.isInstance(new Theirs(params, client))).toBe(true);
    expect(Theirs.isInstance(new Ours(params, client))).toBe(true);
    expect(Ours.isInstance(params)).toBe(false);
    expect({ ...new Ours(params, client) }).toEqual({ ...new Theirs(params, client) });
  });
});
