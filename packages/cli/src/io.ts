import { readFile } from 'node:fs/promises';

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
  /**
   * Reads what a JSON option names instead of holding it: `-` standard input, else a file path
   * (`--input @order.json`). Default: the process's stdin and the file system.
   */
  readText?(source: string): Promise<string>;
}

/** Reads standard input (`-`) or a file, as UTF-8. */
export async function readTextSource(source: string): Promise<string> {
  if (source !== '-') return readFile(source, 'utf8');
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

/** The process's standard streams and environment. */
export const processIo: CliIo = {
  out: (text) => void process.stdout.write(`${text}\n`),
  err: (text) => void process.stderr.write(`${text}\n`),
  env: process.env,
  readText: readTextSource,
};
