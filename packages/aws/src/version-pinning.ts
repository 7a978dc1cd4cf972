/**
 * Which code version a run replays on. A run's name (`RunRecord.functionName`) says it:
 *
 * - `orders:7`: pinned to version 7. Every wake-up, resume, retry and reconciler wake targets
 *   `…:function:orders:7`, whatever the `live` alias points at since.
 * - `orders:live`: follows the alias (started on the alias, not yet pinned; or the function's
 *   `pinning` is `alias`).
 * - `orders:$LATEST`: on `$LATEST` (opted in per run, or first run on `$LATEST`); never pinned.
 * - `orders`: unqualified (started by the control API or a parent's `invoke`, not yet pinned; or
 *   `pinning` is `latest`, where it means `$LATEST`).
 *
 * A run is pinned where it first runs: started by an invoke of the alias, it is recorded as
 * `name:<version>` at once (`lambdaContext.functionVersion`); started elsewhere (the control
 * API, a parent's `invoke`), its first invocation re-records it (see `LambdaVersionPolicy`). From then
 * on it runs only on the qualifier it is recorded with: an invocation of other code that meets it
 * (a start event delivered again after a deploy, a wake-up through the alias or the wake-up
 * queue) hands it there unopened ({@link runsElsewhere}).
 */
import type { FunctionArn } from './lambda-targets';
import { ConfigurationError, type ProductionEnvironment } from './production-config';

/**
 * A function's pinning policy: `version` (default) pins each run to the version it first runs
 * on; `alias` lets runs follow the alias they started on (each deploy moves them to new code);
 * `latest` leaves unqualified runs on `$LATEST`. Runs already pinned stay pinned under any policy.
 */
export type VersionPinning = 'version' | 'alias' | 'latest';

/** The pinning policies {@link readPinningConfig} accepts. */
export const VERSION_PINNINGS: readonly VersionPinning[] = ['version', 'alias', 'latest'];

/** The environment variables of version pinning (the `DurableFunction` construct sets them). */
export const PINNING_ENV = {
  /** Optional: the function's {@link VersionPinning}. Default `version`. */
  pinning: 'DURABLE_VERSION_PINNING',
  /**
   * Optional: JSON object, durable function name to the alias runs start on (`{"orders":"live"}`):
   * a run of such a function that is not pinned yet is invoked through its alias, never `$LATEST`.
   */
  aliases: 'DURABLE_FUNCTION_ALIASES',
} as const;

/** The qualifier of a run that opted into `$LATEST`. */
export const LATEST = '$LATEST';

/** Version pinning as read from the environment. */
export interface PinningConfig {
  pinning: VersionPinning;
  /** Function name to the alias its runs start on. */
  aliases: Readonly<Record<string, string>>;
}

const ALIAS = /^(?!\d+$)[a-zA-Z0-9_-]{1,128}$/;
const NAME = /^[a-zA-Z0-9_-]{1,64}$/;

/** Reads {@link PINNING_ENV}; a malformed value is a `ConfigurationError` naming the variable. */
export function readPinningConfig(env: ProductionEnvironment): PinningConfig {
  const pinning = env[PINNING_ENV.pinning]?.trim() || 'version';
  if (!(VERSION_PINNINGS as readonly string[]).includes(pinning)) {
    invalid(PINNING_ENV.pinning, `one of ${VERSION_PINNINGS.join(', ')}`, pinning);
  }
  const raw = env[PINNING_ENV.aliases]?.trim();
  let aliases: Record<string, string> = {};
  if (raw) {
    let parsed: unknown;
    try {
      parsed = JSON.parse(raw);
    } catch {
      parsed = undefined;
    }
    const valid =
      parsed !== null &&
      typeof parsed === 'object' &&
      !Array.isArray(parsed) &&
      Object.entries(parsed as object).every(([k, v]) => NAME.test(k) && typeof v === 'string' && ALIAS.test(v));
    if (!valid) invalid(PINNING_ENV.aliases, 'a JSON object of function names to alias names', raw);
    aliases = parsed as Record<string, string>;
  }
  return { pinning: pinning as VersionPinning, aliases };
}

function invalid(name: string, expected: string, got: string): never {
  throw new ConfigurationError(
    'invalid_configuration',
    [name],
    `durable-lambda: environment variable ${name} must be ${expected}, got ${JSON.stringify(got)}`,
  );
}

/** A published version number (`7`), as opposed to an alias or `$LATEST`. */
export function isVersion(qualifier: string | undefined): qualifier is string {
  return qualifier !== undefined && /^\d+$/.test(qualifier);
}

/**
 * The name part and qualifier of a run's name (`orders:7` → `orders`, `7`): with
 * {@link qualifiedRunName}, the one place pinning reads and writes the stored shape.
 */
export function splitRunName(functionName: string): { name: string; qualifier?: string } {
  const at = functionName.indexOf(':');
  return at < 0 ? { name: functionName } : { name: functionName.slice(0, at), qualifier: functionName.slice(at + 1) };
}

/** A run's name for function `name` on `qualifier` (`orders`, `7` → `orders:7`; bare without one). */
export function qualifiedRunName(name: string, qualifier?: string): string {
  return qualifier === undefined ? name : `${name}:${qualifier}`;
}

/** Where the current invocation runs: its invoked ARN and the version of its code, if published. */
export interface RunningCode {
  own: FunctionArn;
  /** The published version (`lambdaContext.functionVersion`, or a numeric qualifier), if any. */
  version?: string;
}

/** The version the invocation's code is, from `functionVersion` or a version-qualified ARN. */
export function runningCode(own: FunctionArn, functionVersion: string | undefined): RunningCode {
  const version = isVersion(functionVersion) ? functionVersion : isVersion(own.qualifier) ? own.qualifier : undefined;
  return version === undefined ? { own } : { own, version };
}

/**
 * The qualifier this invocation was invoked with: an alias, a version, or `$LATEST` (also for an
 * unqualified ARN, which Lambda runs as `$LATEST`).
 */
function invokedQualifier(own: FunctionArn): string {
  return own.qualifier ?? LATEST;
}

/**
 * The name a run started by this invocation (a plain event) is recorded under: where it runs now,
 * so that every later invocation of it runs there too. `version`: the running version
 * (`orders:7`). Otherwise the qualifier it was invoked with: the alias (`orders:live`), a version,
 * or `$LATEST` (`orders:$LATEST`; bare `orders` under `latest`, where a bare name means `$LATEST`).
 */
export function nameAtStart(code: RunningCode, pinning: VersionPinning): string {
  const { own } = code;
  if (pinning === 'version' && code.version !== undefined) return qualifiedRunName(own.name, code.version);
  const invoked = invokedQualifier(own);
  if (invoked === LATEST) return pinning === 'latest' ? own.name : qualifiedRunName(own.name, LATEST);
  return qualifiedRunName(own.name, invoked);
}

/**
 * The name a run leased by this invocation is re-recorded under, or undefined to keep it: a run
 * not yet pinned is pinned where it runs now ({@link nameAtStart}), so no later invocation runs it
 * elsewhere. Not yet pinned: a bare name (started by the control API or a parent's `invoke`, or
 * under `latest` before a policy change), except under `latest`, where a bare name is `$LATEST`'s;
 * and, under `version`, the alias this invocation came through. Runs of other functions, runs
 * pinned already and runs on `$LATEST` are kept.
 */
export function namePinnedAtLease(recorded: string, code: RunningCode, pinning: VersionPinning): string | undefined {
  const { name, qualifier } = splitRunName(recorded);
  if (name !== code.own.name) return undefined;
  if (qualifier === undefined) return pinning === 'latest' ? undefined : nameAtStart(code, pinning);
  const onThisAlias = qualifier === code.own.qualifier && !isVersion(qualifier) && qualifier !== LATEST;
  if (pinning === 'version' && onThisAlias && code.version !== undefined) return qualifiedRunName(name, code.version);
  return undefined;
}

/**
 * Where a run of this function must run when it is not here, so the invocation hands it over
 * instead of running it (a start event delivered again after a deploy, a wake-up through the
 * alias or the wake-up queue): the run's recorded name, which its wake-ups target. Undefined when
 * this invocation may run it:
 *
 * - pinned to a version (`orders:7`): only code of that version;
 * - on `$LATEST` (`orders:$LATEST`): only an invocation of `$LATEST` (unqualified);
 * - on an alias (`orders:live`): only an invocation through that alias (which pins it there
 *   under `version`, see {@link namePinnedAtLease});
 * - bare (`orders`): anywhere under `version` and `alias` (its first lease pins it where it runs),
 *   only `$LATEST` under `latest`.
 *
 * Runs of other functions (and names that are ARNs) are not judged here.
 */
export function runsElsewhere(recorded: string, code: RunningCode, pinning: VersionPinning): string | undefined {
  const { name, qualifier } = splitRunName(recorded);
  if (name !== code.own.name) return undefined;
  const invoked = invokedQualifier(code.own);
  if (qualifier === undefined) return pinning === 'latest' && invoked !== LATEST ? recorded : undefined;
  if (isVersion(qualifier)) return qualifier === code.version ? undefined : recorded;
  return qualifier === invoked ? undefined : recorded;
}
