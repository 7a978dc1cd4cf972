import type { RunStartOrigin, VersionPolicy } from '@durable-lambda/engine';
import {
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
 *
 * The last two need the code the invocation runs, which {@link runningOn} sets (the production
 * backend, once per invocation: a container runs one at a time). Without it (the control API and
 * the reconciler run no code) nothing is handed over or pinned.
 */
export class LambdaVersionPolicy implements VersionPolicy {
  readonly pinning: VersionPinning;
  private readonly startOnAliases: Readonly<Record<string, string>>;
  private code: RunningCode | undefined;

  constructor(options: LambdaVersionPolicyOptions) {
    this.pinning = options.pinning;
    this.startOnAliases = options.startOnAliases ?? {};
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
}
