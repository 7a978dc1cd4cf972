/** The options `durable dev` passes to `startDevServer` of `@durable-lambda/local`. */
export interface DevCommandOptions {
  /** Handler modules given as positional arguments. */
  entries: string[];
  port?: number;
  host?: string;
  /** The SQLite file the dev server keeps runs in. */
  db?: string;
  /** `short` when restarted by `--watch`: one line instead of the whole banner. */
  banner?: 'full' | 'short';
  /** `--faults <seed>`: seeded fault injection (see the README's "Fault injection"). */
  faults?: { seed: number };
  /** `--allowed-hosts a,b` (else `$DURABLE_ALLOWED_HOSTS`): host names answered besides localhost and IP addresses. */
  allowedHosts?: string[];
}
