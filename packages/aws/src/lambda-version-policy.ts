import type { RunStartOrigin, VersionPolicy } from '@durable-lambda/engine';
import {
  LATEST,
  nameAtStart,
  namePinnedAtLease,
  qualifiedRunName,
  type RunningCode,
  runsElsewhere,
  splitRunName,
  type VersionPinning,
} from './version-pinning';

/** Options of a {@link LambdaVersionPolicy}. */
export interface LambdaVersionPolicyOptions {
  /** The function's {@link VersionPinning} (`DURABLE_VERSION_PINNING`). */
  pinning: VersionPinning;
  /**
   * Function name to the alias a run asked for by its bare name is recorded on when a request
   * starts it (the control API's `DURABLE_API_ALIASES`: `orders` is recorded as `orders:live`, and
   * its first invocation pins it). Default: none, a requested run is recorded as asked.
   */
  startOnAliases?: Readonly<Record<string, string>>;
  /**
   * Function name to the alias a run of another function recorded by its bare name is invoked
   * through (`DURABLE_FUNCTION_ALIASES`: a child run `billing` is woken through `billing:live`,
   * where its first invocation pins it). Default: none, such a run is invoked unqualified.
   */
  invokeAliases?: Readonly<Record<string, string>>;
}

/**
 * Lambda's version pinning as the engine's {@link VersionPolicy}: a run is recorded as
 * `name:qualifier` (`orders:7`, `orders:live`, `orders:$LATEST`, or bare `orders`, see
 * `version-pinning.ts`), and runs only on the code that qualifier names.
 *
 * - A start event is recorded where it runs ({@link nameAtStart}); a run a request starts (the
 *   control API, a parent's invoke) as asked, or on its function's alias (`startOnAliases`).
 * - A start that differs from the run its key names only in the qualifier finds it.
 * - An invocation meeting a run recorded on other code hands it there ({@link runsElsewhere}), and
 *   pins a run not pinned yet where it runs at its first lease ({@link namePinnedAtLease}).
 * - A wake-up, resume or invoke of a recorded name reaches the qualifier {@link invokeTarget} says
 *   (the production backend's invoker and wakers build the ARN from it).
 *
 * The last two need the code the invocation runs, which {@link runningOn} sets (the production
 * backend, once per invocation: a container runs one at a time). Without it (the control API and
 * the reconciler run no code) nothing is handed over or pinned.
 */
export class LambdaVersionPolicy implements VersionPolicy {
  readonly pinning: VersionPinning;
  private readonly startOnAliases: Readonly<Record<string, string>>;
  private readonly invokeAliases: Readonly<Record<string, string>>;
  private code: RunningCode | undefined;

  constructor(options: LambdaVersionPolicyOptions) {
    this.pinning = options.pinning;
    this.startOnAliases = options.startOnAliases ?? {};
    this.invokeAliases = options.invokeAliases ?? {};
  }

  /** Sets the code the current invocation runs (its invoked ARN and version). */
  runningOn(code: RunningCode): void {
    this.code = code;
  }

  /** The code the current invocation runs, once {@link runningOn} said. */
  get running(): RunningCode | undefined {
    return this.code;
  }

  nameAtStart(functionName: string, origin: RunStartOrigin): string {
    if (origin === 'event') return this.code === undefined ? functionName : nameAtStart(this.code, this.pinning);
    const aliases = this.startOnAliases;
    const alias = Object.hasOwn(aliases, functionName) ? aliases[functionName] : undefined;
    return alias === undefined ? functionName : qualifiedRunName(functionName, alias);
  }

  sameFunction(recorded: string, asked: string): boolean {
    return splitRunName(recorded).name === splitRunName(asked).name;
  }

  runsElsewhere(recorded: string): string | undefined {
    return this.code === undefined ? undefined : runsElsewhere(recorded, this.code, this.pinning);
  }

  pinAtLease(recorded: string): string | undefined {
    return this.code === undefined ? undefined : namePinnedAtLease(recorded, this.code, this.pinning);
  }

  /**
   * The function and qualifier a wake-up, resume or invoke of a run recorded as `recorded` (a run
   * name, not an ARN) reaches, as a run name: `name` alone is the unqualified function (`$LATEST`).
   * A qualified name reaches its qualifier (`orders:$LATEST` the unqualified function). This
   * function's bare name reaches the code running now: its version under `version`, `$LATEST`
   * under `latest`, else the qualifier it was invoked with. Another function's bare name reaches
   * its alias when `invokeAliases` names one, else the unqualified function.
   */
  invokeTarget(recorded: string): string {
    const { name, qualifier } = splitRunName(recorded);
    if (qualifier === LATEST) return name;
    if (qualifier !== undefined) return recorded;
    const code = this.code;
    if (code !== undefined && name === code.own.name) {
      if (this.pinning === 'latest') return name;
      if (this.pinning === 'version' && code.version !== undefined) return qualifiedRunName(name, code.version);
      return qualifiedRunName(name, code.own.qualifier);
    }
    const aliases = this.invokeAliases;
    const alias = Object.hasOwn(aliases, name) ? aliases[name] : undefined;
    return qualifiedRunName(name, alias);
  }
}
