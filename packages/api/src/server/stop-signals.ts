/** A stop asked for by a signal (SIGINT, SIGTERM), as a long-running command handles it. */
export interface StopRequest {
  /** Resolves with the first signal. */
  readonly requested: Promise<NodeJS.Signals>;
  /** Stops listening (the process's default handling of the signals returns). */
  dispose(): void;
}

/** Options of {@link onStopSignals}. */
export interface StopSignalOptions {
  /** Where its lines go. Default: stdout. */
  say?: (line: string) => void;
  /** Ends the process when a stop is forced. Default: `process.exit`. */
  exit?: (code: number) => void;
  /** The signals listened to. Default SIGINT and SIGTERM. */
  signals?: readonly NodeJS.Signals[];
}

/**
 * Listens for stop signals the way a developer's terminal sends them: the first one asks for a
 * graceful stop; a second one is taken as a copy of the first (Ctrl-C reaches every process of
 * the terminal's group, and `tsx` relays it to its child too, so one key press can arrive twice)
 * and changes nothing; a third one forces the exit (code 130) without waiting.
 */
export function onStopSignals(options: StopSignalOptions = {}): StopRequest {
  const say = options.say ?? ((line: string) => void process.stdout.write(`${line}\n`));
  const exit = options.exit ?? ((code: number) => process.exit(code));
  const signals = options.signals ?? (['SIGINT', 'SIGTERM'] as const);
  let count = 0;
  let resolve: (signal: NodeJS.Signals) => void = () => {};
  const requested = new Promise<NodeJS.Signals>((done) => {
    resolve = done;
  });
  const handler = (signal: NodeJS.Signals) => {
    count++;
    if (count === 1) resolve(signal);
    else if (count === 2) say(`${signal} again: still stopping (once more to force)`);
    else {
      say(`${signal}: forced to exit without waiting for the invocations under way`);
      exit(130);
    }
  };
  for (const signal of signals) process.on(signal, handler);
  return {
    requested,
    dispose: () => {
      for (const signal of signals) process.off(signal, handler);
    },
  };
}
