import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import * as ours from '@durable-lambda/sdk';
import { beforeAll, describe, expect, it } from 'vitest';

/**
 * AWS's `@aws/durable-execution-sdk-js` 2.4.0 next to ours: the same runtime exports (names and
 * kinds, enum values, class members) and the same error objects as `toEqual` sees them. The
 * deliberate differences are listed in DIFFERENCES and ADDED_ENTRIES; handler behaviour is
 * compared in handler-errors-and-helpers.test.ts.
 */

const ROOT = fileURLToPath(new URL('../../..', import.meta.url));
const AWS_SDK = '@aws/durable-execution-sdk-js';

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

/**
 * Exports whose value differs on purpose. Names and kinds still match.
 * - SDK_VERSION: our own package's version.
 */
const DIFFERENCES: Readonly<Record<string, string>> = {
  SDK_VERSION: "ours is @durable-lambda/sdk's own version",
};

/** Entries our helper objects add to AWS's (supersets; AWS's own entries are unchanged). */
const ADDED_ENTRIES: Readonly<Record<string, readonly string[]>> = {
  retryPresets: ['critical', 'fixed', 'resourceAvailability', 'transient'],
};

const pick = (o: Record<string, unknown>, keys: readonly string[]) =>
  Object.fromEntries(keys.filter((k) => k in o).map((k) => [k, o[k]]));

type Kind = 'class' | 'function' | 'enum' | 'object' | 'number' | 'string' | 'other';

function kindOf(value: unknown): Kind {
  if (typeof value === 'function') {
    return /^class\b/.test(Function.prototype.toString.call(value)) ? 'class' : 'function';
  }
  if (typeof value === 'number') return 'number';
  if (typeof value === 'string') return 'string';
  if (value !== null && typeof value === 'object') {
    const values = Object.values(value);
    return values.length > 0 && values.every((v) => typeof v === 'string' || typeof v === 'number') ? 'enum' : 'object';
  }
  return 'other';
}

/** Public members of a class: static and prototype names, AWS's private helpers included (they are on its prototype too). */
function members(cls: unknown): { statics: string[]; proto: string[] } {
  const c = cls as { prototype: object };
  return {
    statics: Object.getOwnPropertyNames(c)
      .filter((n) => !['length', 'name', 'prototype'].includes(n))
      .sort(),
    proto: Object.getOwnPropertyNames(c.prototype)
      .filter((n) => n !== 'constructor')
      .sort(),
  };
}

const oursModule = ours as unknown as Module;
let aws: Module;

beforeAll(async () => {
  aws = await importAws(AWS_SDK);
});

describe("our SDK's runtime exports against AWS's 2.4.0", () => {
  it('has every AWS export under the same name, of the same kind', () => {
    const missing = Object.keys(aws).filter((name) => !(name in oursModule));
    const wrongKind = Object.keys(aws)
      .filter((name) => name in oursModule && kindOf(aws[name]) !== kindOf(oursModule[name]))
      .map((name) => `${name}: AWS ${kindOf(aws[name])}, ours ${kindOf(oursModule[name])}`);
    expect(missing).toEqual([]);
    expect(wrongKind).toEqual([]);
    // The list is AWS's whole index (50 runtime exports in 2.4.0): a broken import would pass vacuously.
    expect(Object.keys(aws).length).toBeGreaterThanOrEqual(50);
  });

  it('gives every enumeration the same keys and values', () => {
    const enums = Object.keys(aws).filter((name) => kindOf(aws[name]) === 'enum');
    expect(enums).toEqual(expect.arrayContaining(['OperationType', 'OperationSubType', 'InvocationStatus']));
    for (const name of enums) expect({ name, value: oursModule[name] }).toEqual({ name, value: aws[name] });
  });

  it('gives every class the same static and prototype members', () => {
    const classes = Object.keys(aws).filter((name) => kindOf(aws[name]) === 'class');
    for (const name of classes) {
      const theirs = members(aws[name]);
      const mine = members(oursModule[name]);
      expect({ name, ...mine }).toEqual({ name, ...theirs });
    }
  });

  it('gives the objects of helpers AWS’s entries (retryPresets, defaultSerdes), ours adding only the listed ones', () => {
    for (const name of Object.keys(aws).filter((n) => kindOf(aws[n]) === 'object')) {
      const shape = (value: unknown) =>
        Object.fromEntries(Object.entries(value as object).map(([k, v]) => [k, kindOf(v)]));
      const mine = shape(oursModule[name]);
      const theirs = shape(aws[name]);
      expect({ name, shape: mine }).toEqual({ name, shape: { ...theirs, ...pick(mine, ADDED_ENTRIES[name] ?? []) } });
    }
  });

  it('differs in values only where listed, each for a stated reason', () => {
    const differing = Object.keys(aws).filter(
      (name) => ['number', 'string'].includes(kindOf(aws[name])) && aws[name] !== oursModule[name],
    );
    expect(differing).toEqual(Object.keys(DIFFERENCES));
    expect(ours.SDK_VERSION).toBe(JSON.parse(readFileSync(join(ROOT, 'packages/sdk/package.json'), 'utf8')).version);
    expect(ours.DURABLE_INSTRUMENTATION_PLUGIN_API_VERSION).toBe(aws.DURABLE_INSTRUMENTATION_PLUGIN_API_VERSION);
  });
});

describe('error objects as AWS builds them', () => {
  const make = (m: Module) => {
    type ErrorClass = new (...args: unknown[]) => Error;
    const E = m as Record<
      | 'StepError'
      | 'ChildContextError'
      | 'PromiseCombinatorError'
      | 'CallbackError'
      | 'CallbackExternalError'
      | 'CallbackTimeoutError'
      | 'CallbackSubmitterError'
      | 'InvokeError'
      | 'WaitForConditionError'
      | 'BatchCompletionError'
      | 'StepInterruptedError'
      | 'DurableExecutionClientError'
      | 'PluginLoadError',
      ErrorClass
    >;
    return {
      step: new E.StepError('boom', new TypeError('cause'), 'data'),
      child: new E.ChildContextError('child'),
      combinator: new E.PromiseCombinatorError(),
      callback: new E.CallbackError('cb'),
      callbackExternal: new E.CallbackExternalError('ext'),
      callbackTimeout: new E.CallbackTimeoutError(),
      callbackSubmitter: new E.CallbackSubmitterError('sub'),
      invoke: new E.InvokeError('inv'),
      waitForCondition: new E.WaitForConditionError(),
      batch: new E.BatchCompletionError('CUSTOM_COMPLETION_FAILED'),
      interrupted: new E.StepInterruptedError('1', 'step'),
      client: new E.DurableExecutionClientError('down', { scope: 'EXECUTION', cause: new Error('x') }),
      pluginLoad: new E.PluginLoadError('bad plugin'),
    };
  };

  it('constructs errors equal to AWS’s, with the same own enumerable fields; our code is not among them', () => {
    const mine = make(oursModule);
    const theirs = make(aws);
    for (const key of Object.keys(theirs) as Array<keyof typeof theirs>) {
      expect({ key, error: mine[key] }).toEqual({ key, error: theirs[key] });
      expect({ key, fields: Object.keys(mine[key]) }).toEqual({ key, fields: Object.keys(theirs[key]) });
      expect({ key, message: mine[key].message, name: mine[key].name }).toEqual({
        key,
        message: theirs[key].message,
        name: theirs[key].name,
      });
    }
    expect(mine.step).toMatchObject({ code: 'step_failed', errorType: 'StepError', errorData: 'data' });
    expect(Object.getOwnPropertyDescriptor(mine.step, 'code')?.enumerable).toBe(false);
    expect(JSON.stringify(mine.step)).toBe(JSON.stringify(theirs.step));
  });

  it('serializes and rebuilds errors as AWS does (toErrorObject, fromErrorObject)', () => {
    type DurableClass = { fromErrorObject(o: object): Error & { toErrorObject(): object } };
    const stored = [
      { ErrorType: 'TypeError', ErrorMessage: 'bad' },
      { ErrorType: 'CallbackTimeoutError', ErrorMessage: 'late', ErrorData: 'd' },
      { ErrorType: 'PromiseCombinatorError' },
      {},
    ];
    for (const errorObject of stored) {
      const mine = (oursModule.DurableOperationError as DurableClass).fromErrorObject(errorObject);
      const theirs = (aws.DurableOperationError as DurableClass).fromErrorObject(errorObject);
      expect(mine).toEqual(theirs);
      expect(mine.constructor.name).toBe(theirs.constructor.name);
      expect(mine.toErrorObject()).toEqual(theirs.toErrorObject());
    }
  });
});
