import { basename, extname, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { AwsDurableLambdaHandler } from '@durable-lambda/engine';
import { type DurableLambdaHandler, getDurableEntry } from '@durable-lambda/sdk';

/** A handler the dev server runs: wrapped by our `withDurableExecution`, or by AWS's. */
export type ServedHandler = DurableLambdaHandler | AwsDurableLambdaHandler;

/** Whether `value` is a handler wrapped with our SDK's `withDurableExecution`. */
export function isOurDurableHandler(value: unknown): value is DurableLambdaHandler {
  try {
    getDurableEntry(value);
    return true;
  } catch {
    return false;
  }
}

/** Where `selfHosted` of `@durable-lambda/aws` marks the AWS-wrapped handler it hosts (`AWS_SDK_HANDLER`). */
const SELF_HOSTED = Symbol.for('durable-lambda.aws-sdk-handler');

/**
 * Whether `value` is a handler wrapped by AWS's `withDurableExecution`
 * (`@aws/durable-execution-sdk-js`), or such a handler made `selfHosted`. AWS's wrapper carries no
 * mark, so it is known by its code: it starts by validating AWS's invocation input
 * (`validateDurableExecutionEvent`, in AWS's SDK 2.x). A module's other functions are not handlers.
 */
export function isAwsDurableHandler(value: unknown): value is AwsDurableLambdaHandler {
  if (typeof value !== 'function' || isOurDurableHandler(value)) return false;
  if (typeof (value as { [SELF_HOSTED]?: unknown })[SELF_HOSTED] === 'function') return true;
  return Function.prototype.toString.call(value).includes('validateDurableExecutionEvent(');
}

/** Whether `value` is a handler the dev server runs (ours or AWS-wrapped). */
export function isDurableHandler(value: unknown): value is ServedHandler {
  return isOurDurableHandler(value) || isAwsDurableHandler(value);
}

const TYPESCRIPT = new Set(['.ts', '.mts', '.cts', '.tsx']);

/** Imports a module by path; a TypeScript file Node cannot load is retried through tsx, if installed. */
async function importEntry(file: string): Promise<Record<string, unknown>> {
  const url = pathToFileURL(file).href;
  try {
    return (await import(url)) as Record<string, unknown>;
  } catch (error) {
    if (
      !TYPESCRIPT.has(extname(file).toLowerCase()) ||
      (error as { code?: unknown }).code !== 'ERR_UNKNOWN_FILE_EXTENSION'
    ) {
      throw error;
    }
    let tsImport: ((specifier: string, parent: string) => Promise<unknown>) | undefined;
    try {
      const specifier = 'tsx/esm/api';
      ({ tsImport } = (await import(specifier)) as { tsImport: typeof tsImport });
    } catch {
      tsImport = undefined;
    }
    if (!tsImport) {
      throw new Error(
        `${file}: a TypeScript entry needs tsx (npm install --save-dev tsx, then run with NODE_OPTIONS='--import tsx'), or give the compiled .js file`,
      );
    }
    return (await tsImport(url, pathToFileURL(`${process.cwd()}/`).href)) as Record<string, unknown>;
  }
}

/**
 * The durable handlers a module exports (ours and AWS-wrapped ones), by name: named exports, then `default` under
 * `defaultName` (unless it is also a named export). A CommonJS module (e.g. TypeScript compiled
 * to CommonJS by tsx) may show its exports only as properties of `default`: those count too.
 */
export function handlersOf(mod: Record<string, unknown>, defaultName: string): Array<[string, ServedHandler]> {
  const exported = new Map<string, unknown>(Object.entries(mod));
  const fallback = mod.default;
  if (fallback !== null && typeof fallback === 'object' && !isDurableHandler(fallback)) {
    exported.delete('default');
    for (const [name, value] of Object.entries(fallback)) if (!exported.has(name)) exported.set(name, value);
  }
  const handlers: Array<[string, ServedHandler]> = [];
  for (const [name, value] of exported) {
    if (name !== 'default' && isDurableHandler(value)) handlers.push([name, value]);
  }
  const byDefault = exported.get('default');
  if (isDurableHandler(byDefault) && !handlers.some(([, value]) => value === byDefault)) {
    handlers.push([defaultName, byDefault]);
  }
  return handlers;
}

/** A sample input of a function, offered by the dashboard's start form. */
export interface SampleInput {
  /** A short label, e.g. `one book`. */
  name: string;
  /** The input, any JSON value. */
  input: unknown;
}

/**
 * Checks a list of samples (`where` names it in errors): an array of `{ name, input }` with a
 * non-empty name and an input JSON can carry.
 */
export function checkSamples(value: unknown, where: string): SampleInput[] {
  if (!Array.isArray(value)) throw new TypeError(`${where}: expected an array of { name, input }`);
  return value.map((sample, i) => {
    const item = sample as Partial<SampleInput> | null;
    if (item === null || typeof item !== 'object' || typeof item.name !== 'string' || item.name.length === 0) {
      throw new TypeError(`${where}[${i}].name: expected a non-empty string`);
    }
    if (!('input' in item) || JSON.stringify(item.input) === undefined) {
      throw new TypeError(`${where}[${i}].input: expected a JSON value`);
    }
    return { name: item.name, input: JSON.parse(JSON.stringify(item.input)) as unknown };
  });
}

/**
 * The samples a module declares for its handlers: an export `samples` that is either an array
 * (for a module with one handler) or an object of arrays by handler name.
 */
export function samplesOf(
  mod: Record<string, unknown>,
  handlers: ReadonlyArray<[string, ServedHandler]>,
  from: string,
): Map<string, SampleInput[]> {
  const declared = mod.samples ?? (mod.default as { samples?: unknown } | undefined)?.samples;
  const out = new Map<string, SampleInput[]>();
  if (declared === undefined) return out;
  if (Array.isArray(declared)) {
    if (handlers.length !== 1) {
      throw new TypeError(`${from}: samples: an array fits a module with one handler; give { <handler>: [...] }`);
    }
    out.set((handlers[0] as [string, ServedHandler])[0], checkSamples(declared, `${from}: samples`));
    return out;
  }
  if (declared === null || typeof declared !== 'object') {
    throw new TypeError(`${from}: samples: expected an array or an object of arrays by handler name`);
  }
  const names = new Set(handlers.map(([name]) => name));
  for (const [name, list] of Object.entries(declared)) {
    if (!names.has(name)) throw new TypeError(`${from}: samples.${name}: no durable handler has this name`);
    out.set(name, checkSamples(list, `${from}: samples.${name}`));
  }
  return out;
}

/** The handlers and samples of the entries, by function name. */
export interface LoadedEntries {
  handlers: Map<string, ServedHandler>;
  samples: Map<string, SampleInput[]>;
}

/**
 * Loads handler modules and returns their durable handlers by name: each export that is a
 * wrapped handler under its export name, a `default` export under the file's name (without its
 * extension). Paths are relative to the working directory. Throws when a module cannot be
 * loaded, exports no durable handler, or two handlers get the same name.
 */
export async function loadEntries(entries: readonly string[]): Promise<Map<string, ServedHandler>> {
  return (await loadEntryModules(entries)).handlers;
}

/** Like {@link loadEntries}, with the samples each module declares (see {@link samplesOf}). */
export async function loadEntryModules(entries: readonly string[]): Promise<LoadedEntries> {
  const found = new Map<string, { handler: ServedHandler; from: string }>();
  const samples = new Map<string, SampleInput[]>();
  for (const entry of entries) {
    const file = resolve(entry);
    let mod: Record<string, unknown>;
    try {
      mod = await importEntry(file);
    } catch (error) {
      throw new Error(`cannot load the entry ${entry}: ${(error as Error).message}`, { cause: error });
    }
    const handlers = handlersOf(mod, basename(file, extname(file)));
    if (handlers.length === 0) {
      throw new Error(
        `the entry ${entry} exports no durable handler (a function wrapped with withDurableExecution, ours or AWS's)`,
      );
    }
    for (const [name, handler] of handlers) {
      const seen = found.get(name);
      if (seen && seen.handler !== handler) {
        throw new Error(`two durable handlers are named ${JSON.stringify(name)}: in ${seen.from} and in ${entry}`);
      }
      found.set(name, { handler, from: entry });
    }
    for (const [name, list] of samplesOf(mod, handlers, entry)) samples.set(name, list);
  }
  return { handlers: new Map([...found].map(([name, { handler }]) => [name, handler])), samples };
}
