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

/** An entry as given on the command line: `[name=]path[#export]`. */
export interface EntrySpec {
  /** The path of the module, as given (relative to the working directory). */
  file: string;
  /** The function name to serve the handler under (`name=`). */
  name?: string;
  /** The one export to serve (`#export`). */
  exportName?: string;
}

/** A function name an entry may give: what the API, the CLI and pinned names (`name:7`) accept. */
const FUNCTION_NAME = /^[A-Za-z0-9_-]{1,64}$/;
const EXPORT_NAME = /^[A-Za-z_$][\w$]*$/;

/**
 * Parses an entry: `src/orders.ts` (every handler it exports, by export name),
 * `src/orders.ts#handler` (that export alone, under its name), `orders=src/orders.ts#handler` or
 * `orders=src/orders.ts` (under the name given; the module must then export one handler). AWS-style
 * files all export `handler`: naming each is how two of them are served together.
 */
export function parseEntrySpec(entry: string): EntrySpec {
  let rest = entry;
  let name: string | undefined;
  const eq = rest.indexOf('=');
  if (eq > 0 && !/[\\/]/.test(rest.slice(0, eq))) {
    name = rest.slice(0, eq);
    rest = rest.slice(eq + 1);
    if (!FUNCTION_NAME.test(name)) {
      throw new TypeError(
        `the entry ${entry}: the function name ${JSON.stringify(name)} must be 1-64 letters, digits, - or _`,
      );
    }
  }
  let exportName: string | undefined;
  const hash = rest.lastIndexOf('#');
  if (hash >= 0) {
    exportName = rest.slice(hash + 1);
    rest = rest.slice(0, hash);
    if (!EXPORT_NAME.test(exportName)) {
      throw new TypeError(`the entry ${entry}: ${JSON.stringify(exportName)} after # is not an export name`);
    }
  }
  if (rest === '') throw new TypeError(`the entry ${entry}: a module path is required`);
  return { file: rest, ...(name === undefined ? {} : { name }), ...(exportName === undefined ? {} : { exportName }) };
}

/** The handlers an entry serves, by name, as its spec selects and names them. */
function selectHandlers(
  spec: EntrySpec,
  entry: string,
  handlers: ReadonlyArray<[string, ServedHandler]>,
): Array<[string, ServedHandler]> {
  let chosen = handlers;
  if (spec.exportName !== undefined) {
    chosen = handlers.filter(([exported]) => exported === spec.exportName);
    if (chosen.length === 0) {
      const known = handlers.map(([exported]) => exported).join(', ');
      throw new Error(
        `the entry ${entry}: ${spec.file} has no durable handler exported as ${spec.exportName} (it has ${known})`,
      );
    }
  }
  if (spec.name === undefined) return [...chosen];
  if (chosen.length !== 1) {
    const known = chosen.map(([exported]) => exported).join(', ');
    throw new Error(
      `the entry ${entry}: ${spec.file} exports ${chosen.length} durable handlers (${known}); name one: ${spec.name}=${spec.file}#<export>`,
    );
  }
  return [[spec.name, (chosen[0] as [string, ServedHandler])[1]]];
}

/**
 * Loads handler modules and returns their durable handlers by name: each export that is a
 * wrapped handler under its export name, a `default` export under the file's name (without its
 * extension); an entry may name its function and pick its export (see {@link parseEntrySpec}).
 * Paths are relative to the working directory. Throws when a module cannot be loaded, exports no
 * durable handler, or two handlers get the same name.
 */
export async function loadEntries(entries: readonly string[]): Promise<Map<string, ServedHandler>> {
  return (await loadEntryModules(entries)).handlers;
}

/** Like {@link loadEntries}, with the samples each module declares (see {@link samplesOf}). */
export async function loadEntryModules(entries: readonly string[]): Promise<LoadedEntries> {
  const found = new Map<string, { handler: ServedHandler; from: string }>();
  const samples = new Map<string, SampleInput[]>();
  for (const entry of entries) {
    const spec = parseEntrySpec(entry);
    const file = resolve(spec.file);
    let mod: Record<string, unknown>;
    try {
      mod = await importEntry(file);
    } catch (error) {
      throw new Error(`cannot load the entry ${entry}: ${(error as Error).message}`, { cause: error });
    }
    const exported = handlersOf(mod, basename(file, extname(file)));
    if (exported.length === 0) {
      throw new Error(
        `the entry ${entry} exports no durable handler (a function wrapped with withDurableExecution, ours or AWS's)`,
      );
    }
    const handlers = selectHandlers(spec, entry, exported);
    for (const [name, handler] of handlers) {
      const seen = found.get(name);
      if (seen && seen.handler !== handler) {
        throw new Error(
          `two durable handlers are named ${JSON.stringify(name)}: in ${seen.from} and in ${entry} (name each: <name>=<path>#<export>)`,
        );
      }
      found.set(name, { handler, from: entry });
    }
    // Samples are declared by export name; a renamed handler keeps its module's samples.
    const declared = samplesOf(mod, exported, entry);
    for (const [exportedName, handler] of exported) {
      const list = declared.get(exportedName);
      if (!list) continue;
      for (const [name, chosen] of handlers) if (chosen === handler) samples.set(name, list);
    }
  }
  return { handlers: new Map([...found].map(([name, { handler }]) => [name, handler])), samples };
}
