/**
 * Two ways for a test to run the `durable` CLI, with the same result shape.
 *
 * - `runDurableCli`: `runCli` (the function packages/cli/bin/durable.mjs calls) in this process,
 *   writing into buffers. For tests about what a command does and prints, and its exit code.
 * - `spawnDurableCli`: the real binary in a child process, from the TypeScript sources through tsx.
 *   For tests about the process itself (its exit status, signals, what the launcher does).
 *
 * A spawn costs about half a CPU-second (Node, tsx, and every module of the CLI loaded and compiled
 * again): the CLI test files spawned some 150 of them, a sixth of `npm test`'s CPU on two cores.
 * In-process, the modules are loaded once per worker.
 */
import { spawn } from 'node:child_process';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { runCli } from '../../packages/cli/src/main';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const BIN = join(ROOT, 'packages/cli/bin/durable.mjs');

/** How a CLI run ended: its exit code and everything it wrote. */
export interface CliExit {
  code: number | null;
  stdout: string;
  stderr: string;
}

/**
 * Runs `durable <args>` in this process: the environment it sees is this process's, with
 * DURABLE_API_URL cleared (a developer's own must not leak in) and `env` on top.
 */
export async function runDurableCli(args: readonly string[], env: Record<string, string> = {}): Promise<CliExit> {
  let stdout = '';
  let stderr = '';
  const code = await runCli(args, {
    out: (text) => {
      stdout += `${text}\n`;
    },
    err: (text) => {
      stderr += `${text}\n`;
    },
    env: { ...process.env, DURABLE_API_URL: '', ...env },
  });
  return { code, stdout, stderr };
}

/**
 * Runs the real `durable` binary from the sources (DURABLE_CLI_SOURCE=1), asynchronously (an API a
 * test serves answers from this process), with NODE_OPTIONS cleared of the test runner's loaders.
 */
export function spawnDurableCli(
  args: readonly string[],
  env: Record<string, string> = {},
  cwd: string = ROOT,
  /** Written to the process's standard input, which is then closed. */
  stdin?: string,
): Promise<CliExit> {
  return new Promise((done, fail) => {
    const child = spawn(process.execPath, [BIN, ...args], {
      cwd,
      env: { ...process.env, NODE_OPTIONS: '', DURABLE_CLI_SOURCE: '1', DURABLE_API_URL: '', ...env },
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk) => {
      stdout += chunk;
    });
    child.stderr.on('data', (chunk) => {
      stderr += chunk;
    });
    child.on('error', fail);
    child.stdin.end(stdin ?? '');
    child.on('close', (code) => done({ code, stdout, stderr }));
  });
}
