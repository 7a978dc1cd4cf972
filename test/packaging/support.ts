/** Shared by the packaging tests: the packages, their entries, and child processes run side by side. */
import { spawn } from 'node:child_process';

/** The publishable packages, in dependency order. */
export const PACKAGES = ['protocol', 'sdk', 'engine', 'api', 'local', 'aws', 'cli', 'cdk', 'otel'] as const;
/** A publishable package's folder name under packages/. */
export type Pkg = (typeof PACKAGES)[number];

/** One entry of a package: `@durable-lambda/local/testing` is subpath `./testing`, built as dist/testing.*. */
export interface PackageEntry {
  subpath: string;
  /** The specifier a consumer imports. */
  id: string;
  /** The basename of its files in dist/. */
  dist: string;
}

/** The entries a package.json's `exports` declares (every subpath but ./package.json). */
export function packageEntries(manifest: { name: string; exports: Record<string, unknown> }): PackageEntry[] {
  return Object.keys(manifest.exports)
    .filter((subpath) => subpath !== './package.json')
    .map((subpath) => ({
      subpath,
      id: subpath === '.' ? manifest.name : `${manifest.name}/${subpath.slice(2)}`,
      dist: subpath === '.' ? 'index' : subpath.slice(2),
    }));
}

/** What a finished child process left. */
export interface ProcessResult {
  status: number | null;
  stdout: string;
  stderr: string;
}

/**
 * Runs a command to its end without blocking the test worker (spawnSync would stall every other
 * test of the file). A command still running after `timeoutMs` is killed and reported as such.
 */
export function runProcess(
  command: string,
  args: readonly string[],
  options: { cwd: string; env?: NodeJS.ProcessEnv; timeoutMs?: number },
): Promise<ProcessResult> {
  return new Promise((done) => {
    const child = spawn(command, args, { cwd: options.cwd, env: options.env ?? process.env });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk) => {
      stdout += chunk;
    });
    child.stderr.on('data', (chunk) => {
      stderr += chunk;
    });
    const timer = setTimeout(
      () => {
        stderr += `\n(killed: still running after ${options.timeoutMs} ms)`;
        child.kill('SIGKILL');
      },
      options.timeoutMs ?? 10 * 60_000,
    );
    child.on('error', (error) => {
      stderr += `${error.message}\n`;
    });
    child.on('close', (status) => {
      clearTimeout(timer);
      done({ status, stdout, stderr });
    });
  });
}

/** Runs the jobs, at most `concurrency` at a time; rejects once all have settled if any failed. */
export async function settleAll(jobs: ReadonlyArray<() => Promise<void>>, concurrency: number): Promise<void> {
  const errors: unknown[] = [];
  let next = 0;
  const worker = async () => {
    while (next < jobs.length) {
      const job = jobs[next++];
      try {
        await job?.();
      } catch (error) {
        errors.push(error);
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, jobs.length) }, worker));
  if (errors.length === 1) throw errors[0];
  if (errors.length > 1) throw new AggregateError(errors, errors.map(String).join('\n'));
}
