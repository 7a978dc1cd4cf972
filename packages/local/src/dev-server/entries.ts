import { basename, extname, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { type DurableLambdaHandler, getDurableEntry } from '@durable-lambda/sdk';

/** Whether `value` is a handler wrapped with `withDurableExecution`. */
export function isDurableHandler(value: unknown): value is DurableLambdaHandler {
  try {
    getDurableEntry(value);
    return true;
  } catch {
    return false;
  }
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
 * The durable handlers a module exports, by name: named exports, then `default` under
 * `defaultName` (unless it is also a named export). A CommonJS module (e.g. TypeScript compiled
 * to CommonJS by tsx) may show its exports only as properties of `default`: those count too.
 */
export function handlersOf(mod: Record<string, unknown>, defaultName: string): Array<[string, DurableLambdaHandler]> {
  const exported = new Map<string, unknown>(Object.entries(mod));
  const fallback = mod.default;
  if (fallback !== null && typeof fallback === 'object' && !isDurableHandler(fallback)) {
    exported.delete('default');
    for (const [name, value] of Object.entries(fallback)) if (!exported.has(name)) exported.set(name, value);
  }
  const handlers: Array<[string, DurableLambdaHandler]> = [];
  for (const [name, value] of exported) {
    if (name !== 'default' && isDurableHandler(value)) handlers.push([name, value]);
  }
  const byDefault = exported.get('default');
  if (isDurableHandler(byDefault) && !handlers.some(([, value]) => value === byDefault)) {
    handlers.push([defaultName, byDefault]);
  }
  return handlers;
}

/**
 * Loads handler modules and returns their durable handlers by name: each export that is a
 * wrapped handler under its export name, a `default` export under the file's name (without its
 * extension). Paths are relative to the working directory. Throws when a module cannot be
 * loaded, exports no durable handler, or two handlers get the same name.
 */
export async function loadEntries(entries: readonly string[]): Promise<Map<string, DurableLambdaHandler>> {
  const found = new Map<string, { handler: DurableLambdaHandler; from: string }>();
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
      throw new Error(`the entry ${entry} exports no durable handler (a function wrapped with withDurableExecution)`);
    }
    for (const [name, handler] of handlers) {
      const seen = found.get(name);
      if (seen && seen.handler !== handler) {
        throw new Error(`two durable handlers are named ${JSON.stringify(name)}: in ${seen.from} and in ${entry}`);
      }
      found.set(name, { handler, from: entry });
    }
  }
  return new Map([...found].map(([name, { handler }]) => [name, handler]));
}
