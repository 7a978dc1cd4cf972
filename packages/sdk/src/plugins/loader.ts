import { createRequire } from 'node:module';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { PluginLoadError } from '../errors/client-errors';
import {
  DURABLE_INSTRUMENTATION_PLUGIN_API_VERSION,
  type DurableInstrumentationPlugin,
  type DurableInstrumentationPluginProvider,
} from '../types/plugin';

/** The variable naming plugin modules, comma-separated (AWS's). */
export const PLUGIN_ENVIRONMENT_VARIABLE = 'DURABLE_EXECUTION_PLUGINS';
/** The export a plugin module provides (AWS's). */
export const PLUGIN_PROVIDER_EXPORT = 'durableExecutionPluginProvider';

/** Imports a module by specifier. */
export type ModuleImporter = (specifier: string) => Promise<unknown>;

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null;
const messageOf = (error: unknown): string => (error instanceof Error ? error.message : String(error));

function parseSpecifiers(environment: NodeJS.ProcessEnv): string[] {
  const configured = environment[PLUGIN_ENVIRONMENT_VARIABLE];
  if (configured === undefined || configured.trim() === '') return [];
  const specifiers = configured.split(',').map((value) => value.trim());
  if (specifiers.some((specifier) => specifier === '')) {
    throw new PluginLoadError(
      `${PLUGIN_ENVIRONMENT_VARIABLE} must contain non-empty, comma-separated package or module specifiers.`,
    );
  }
  const seen = new Set<string>();
  for (const specifier of specifiers) {
    if (seen.has(specifier)) {
      throw new PluginLoadError(`${PLUGIN_ENVIRONMENT_VARIABLE} contains duplicate module specifier '${specifier}'.`);
    }
    seen.add(specifier);
  }
  return specifiers;
}

/**
 * Imports a specifier as the application would: first as is, then, when it is not found from
 * here, resolved from the application's root (`LAMBDA_TASK_ROOT`, else the working directory).
 */
function defaultImporter(environment: NodeJS.ProcessEnv): ModuleImporter {
  const root = environment.LAMBDA_TASK_ROOT?.trim() || process.cwd();
  const requireFromApp = createRequire(join(root, 'package.json'));
  return async (specifier) => {
    try {
      return await import(specifier);
    } catch (importError) {
      const code = (importError as { code?: unknown } | null)?.code;
      if (code !== 'ERR_MODULE_NOT_FOUND' && code !== 'MODULE_NOT_FOUND') throw importError;
      let resolved: string;
      try {
        resolved = requireFromApp.resolve(specifier);
      } catch {
        throw new Error(
          `Unable to resolve '${specifier}' from the application or configured Node.js module paths. Ensure the package is installed in the function artifact or an attached Lambda layer under 'nodejs/node_modules'.`,
        );
      }
      return import(pathToFileURL(resolved).href);
    }
  };
}

function providerOf(specifier: string, imported: unknown): unknown {
  if (!isRecord(imported)) {
    throw new PluginLoadError(`Plugin module '${specifier}' did not evaluate to a module namespace object.`);
  }
  const direct = imported[PLUGIN_PROVIDER_EXPORT];
  const fallback = isRecord(imported.default) ? imported.default[PLUGIN_PROVIDER_EXPORT] : undefined;
  const candidates = [direct, fallback].filter((c, i, all) => c !== undefined && all.indexOf(c) === i);
  if (candidates.length === 0) {
    throw new PluginLoadError(`Plugin module '${specifier}' must export '${PLUGIN_PROVIDER_EXPORT}'.`);
  }
  if (candidates.length > 1) {
    throw new PluginLoadError(
      `Plugin module '${specifier}' exposes multiple different '${PLUGIN_PROVIDER_EXPORT}' values.`,
    );
  }
  return candidates[0];
}

function validateProvider(specifier: string, value: unknown): DurableInstrumentationPluginProvider {
  if (!isRecord(value)) {
    throw new PluginLoadError(`Plugin module '${specifier}' exports an invalid provider; expected an object.`);
  }
  if (value.pluginApiVersion !== DURABLE_INSTRUMENTATION_PLUGIN_API_VERSION) {
    throw new PluginLoadError(
      `Plugin provider '${specifier}' declares plugin API version '${String(value.pluginApiVersion)}', but @durable-lambda/sdk supports version ${DURABLE_INSTRUMENTATION_PLUGIN_API_VERSION}. Install compatible SDK and plugin package versions.`,
    );
  }
  const pluginType = value.pluginType as { prototype?: unknown } | undefined;
  if (typeof pluginType !== 'function' || !isRecord(pluginType.prototype)) {
    throw new PluginLoadError(`Plugin provider '${specifier}' must declare a constructable 'pluginType'.`);
  }
  if (typeof value.createPlugin !== 'function') {
    throw new PluginLoadError(`Plugin provider '${specifier}' must define a 'createPlugin' factory function.`);
  }
  return value as unknown as DurableInstrumentationPluginProvider;
}

function createPlugin(specifier: string, provider: DurableInstrumentationPluginProvider): DurableInstrumentationPlugin {
  let plugin: unknown;
  try {
    plugin = provider.createPlugin();
  } catch (error) {
    throw new PluginLoadError(`Plugin provider '${specifier}' failed to create its plugin: ${messageOf(error)}`, {
      cause: error,
    });
  }
  if (!(plugin instanceof provider.pluginType)) {
    const actual =
      plugin === null || plugin === undefined
        ? String(plugin)
        : ((plugin as { constructor?: { name?: string } }).constructor?.name ?? typeof plugin);
    throw new PluginLoadError(
      `Plugin provider '${specifier}' declared plugin type '${provider.pluginType.name}' but created '${actual}'.`,
    );
  }
  return plugin as DurableInstrumentationPlugin;
}

/** True when `DURABLE_EXECUTION_PLUGINS` names modules to load. */
export function namesPluginModules(environment: NodeJS.ProcessEnv = process.env): boolean {
  return (environment[PLUGIN_ENVIRONMENT_VARIABLE]?.trim() ?? '') !== '';
}

/**
 * The plugins of a function: the explicit ones in order, then one per module named in
 * `DURABLE_EXECUTION_PLUGINS` (AWS's rules and messages).
 * @throws PluginLoadError naming the module and what is wrong with it.
 */
export async function loadConfiguredPlugins(
  explicit: readonly DurableInstrumentationPlugin[] | undefined,
  options: { environment?: NodeJS.ProcessEnv; importModule?: ModuleImporter } = {},
): Promise<DurableInstrumentationPlugin[]> {
  const plugins = [...(explicit ?? [])];
  const environment = options.environment ?? process.env;
  const specifiers = parseSpecifiers(environment);
  if (specifiers.length === 0) return plugins;
  const importModule = options.importModule ?? defaultImporter(environment);
  for (const specifier of specifiers) {
    let imported: unknown;
    try {
      imported = await importModule(specifier);
    } catch (error) {
      throw new PluginLoadError(`Failed to load plugin module '${specifier}': ${messageOf(error)}`, { cause: error });
    }
    plugins.push(createPlugin(specifier, validateProvider(specifier, providerOf(specifier, imported))));
  }
  return plugins;
}
