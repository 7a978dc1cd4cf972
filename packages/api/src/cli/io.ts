/** Where the CLI writes and what it reads from its environment (injectable for tests). */
export interface CliIo {
  /** Writes a line to standard output. */
  out(text: string): void;
  /** Writes a line to standard error. */
  err(text: string): void;
  /** Environment variables (`DURABLE_API_URL`). */
  env: Record<string, string | undefined>;
  /** The fetch the client uses. Default: the global one. */
  fetch?: typeof fetch;
}

/** The process's standard streams and environment. */
export const processIo: CliIo = {
  out: (text) => void process.stdout.write(`${text}\n`),
  err: (text) => void process.stderr.write(`${text}\n`),
  env: process.env,
};
