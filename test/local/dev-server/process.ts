/** Helpers of the tests that run a dev server in a child process. */
import { type ChildProcess, spawn } from 'node:child_process';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

export const root = resolve(dirname(fileURLToPath(import.meta.url)), '../../..');

/** Children still running, killed by {@link killAll}. */
const children = new Set<ChildProcess>();

export interface Child {
  process: ChildProcess;
  /** Everything written to stdout and stderr so far. */
  output(): string;
  /** Resolves with the first match of `pattern` in the output; rejects if the process ends first or after `timeoutMs`. */
  waitFor(pattern: RegExp, timeoutMs?: number): Promise<RegExpMatchArray>;
  /** Resolves with the exit code (or the signal) once the process has ended. */
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

/** Spawns `node <args>` from the repository root, sources resolved through tsx and tsconfig paths. */
export function spawnNode(args: string[], env: Record<string, string> = {}): Child {
  const child = spawn(process.execPath, args, {
    cwd: root,
    env: { ...process.env, NODE_OPTIONS: '', TSX_TSCONFIG_PATH: 'tsconfig.json', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.add(child);
  let output = '';
  const listeners = new Set<() => void>();
  const append = (chunk: Buffer) => {
    output += chunk.toString('utf8');
    for (const listener of listeners) listener();
  };
  child.stdout?.on('data', append);
  child.stderr?.on('data', append);
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => {
    child.on('exit', (code, signal) => {
      children.delete(child);
      resolve({ code, signal });
      for (const listener of listeners) listener();
    });
  });
  let ended = false;
  void exited.then(() => {
    ended = true;
  });
  return {
    process: child,
    output: () => output,
    exited,
    waitFor(pattern, timeoutMs = 15_000) {
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => {
          listeners.delete(check);
          reject(new Error(`no ${pattern} in the output after ${timeoutMs} ms:\n${output}`));
        }, timeoutMs);
        const check = () => {
          const match = output.match(pattern);
          if (match) {
            clearTimeout(timer);
            listeners.delete(check);
            resolve(match);
          } else if (ended || child.exitCode !== null || child.signalCode !== null) {
            clearTimeout(timer);
            listeners.delete(check);
            reject(new Error(`the process ended before printing ${pattern}:\n${output}`));
          }
        };
        listeners.add(check);
        check();
      });
    },
  };
}

/** Kills every child still running (after a failed test). */
export function killAll(): void {
  for (const child of children) child.kill('SIGKILL');
  children.clear();
}

/** The dev server's URL line: `durable-lambda dev server at http://127.0.0.1:PORT`. */
export const SERVER_URL = /dev server at (http:\/\/[^\s]+:(\d+))/;

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export async function until<T>(probe: () => Promise<T | undefined | false>, timeoutMs = 10_000): Promise<T> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe().catch(() => undefined);
    if (value) return value;
    if (Date.now() > end) throw new Error('condition not met in time');
    await sleep(50);
  }
}

export async function getJson<T>(url: string): Promise<{ status: number; body: T }> {
  const res = await fetch(url);
  return { status: res.status, body: (await res.json()) as T };
}

export async function postJson<T>(url: string, body: unknown): Promise<{ status: number; body: T }> {
  const res = await fetch(url, {
    method: 'POST',
    body: JSON.stringify(body),
    headers: { 'content-type': 'application/json' },
  });
  return { status: res.status, body: (await res.json()) as T };
}
