import { type ChildProcess, spawn } from 'node:child_process';
import { type Dirent, type FSWatcher, readdirSync, statSync, watch } from 'node:fs';
import { basename, dirname, join, relative, resolve } from 'node:path';
import { onStopSignals } from '@durable-lambda/api';
import type { CommandLine } from './args';
import type { CliIo } from './io';

/** Folders never watched (nor hidden ones): dependencies, build output, the runs' database. */
const IGNORED = new Set(['node_modules', '.git', '.durable', 'dist', 'cdk.out', '.artifacts']);
/** Changes closer together than this restart the server once. */
const SETTLE_MS = 200;
/** How long a restart waits for the old server to stop gracefully before it kills it. */
const STOP_GRACE_MS = 10_000;

/** Whether a changed file can change the handlers (not the runs' database, a lock or a log). */
function relevant(file: string): boolean {
  return !/\.(sqlite|sqlite-wal|sqlite-shm|lock|log)$/.test(file);
}

/** Whether a folder is walked into: not dependencies, version control, build output, hidden ones. */
function walked(name: string): boolean {
  return !IGNORED.has(name) && !name.startsWith('.');
}

/**
 * Watches a folder and its subfolders (folders made later too), each with its own watcher, so
 * `node_modules` and the like are never watched (a recursive watch would walk them all).
 */
function watchTree(root: string, onChange: (file: string) => void, onError: (error: Error) => void): { close(): void } {
  const watchers = new Map<string, FSWatcher>();
  const add = (dir: string) => {
    if (watchers.has(dir)) return;
    let watcher: FSWatcher;
    try {
      watcher = watch(dir, (_event, name) => {
        const file = name ? join(dir, String(name)) : '';
        if (!file) return;
        if (isFolder(file)) {
          if (walked(basename(file))) add(file);
          return;
        }
        if (relevant(file)) onChange(file);
      });
    } catch (error) {
      onError(error as Error);
      return;
    }
    watcher.on('error', (error) => {
      watchers.delete(dir);
      // A folder that went away is no error; anything else is said once.
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') onError(error);
    });
    watchers.set(dir, watcher);
    let entries: Dirent[] = [];
    try {
      entries = readdirSync(dir, { withFileTypes: true });
    } catch {
      return;
    }
    for (const entry of entries) if (entry.isDirectory() && walked(entry.name)) add(join(dir, entry.name));
  };
  add(root);
  return {
    close: () => {
      for (const watcher of watchers.values()) watcher.close();
      watchers.clear();
    },
  };
}

function isFolder(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}

/** The command line of the supervised server: the same `durable dev`, without `--watch`. */
/**
 * The module path of an entry `[name=]path[#export]` (the grammar is `parseEntrySpec` of
 * `@durable-lambda/local`, which the api package does not import): the folder to watch.
 */
export function entryPath(entry: string): string {
  const eq = entry.indexOf('=');
  const rest = eq > 0 && !/[\\/]/.test(entry.slice(0, eq)) ? entry.slice(eq + 1) : entry;
  const hash = rest.lastIndexOf('#');
  return hash >= 0 ? rest.slice(0, hash) : rest;
}

function childArgs(argv: readonly string[]): string[] {
  return argv.filter((arg) => arg !== '--watch');
}

/**
 * `durable dev --watch`: runs `durable dev` (same arguments) in a child process and restarts it
 * whenever a file in the entries' folders changes, so every module the handlers import is loaded
 * afresh. Runs survive restarts (they live in the SQLite file and go on at the next start). A
 * first SIGINT or SIGTERM stops the server and the watcher gracefully; a third forces.
 */
export async function runDevWatch(line: CommandLine, io: CliIo): Promise<number> {
  const script = process.argv[1];
  if (!script) throw new Error('durable dev --watch: cannot tell which script to restart');
  const argv = childArgs(process.argv.slice(2));
  const folders = [
    ...new Set((line.args.length > 0 ? line.args : ['.']).map((entry) => dirname(resolve(entryPath(entry))))),
  ];
  let child: ChildProcess | undefined;
  let exited: Promise<void> = Promise.resolve();
  let stopping = false;
  let restarts = 0;
  let restarting = false;

  const launch = () => {
    const proc = spawn(process.execPath, [...process.execArgv, script, ...argv], {
      stdio: 'inherit',
      env: { ...process.env, ...(restarts > 0 ? { DURABLE_DEV_RESTARTED: '1' } : {}) },
    });
    child = proc;
    exited = new Promise<void>((done) => {
      proc.once('exit', (code, signal) => {
        if (child === proc) child = undefined;
        if (!stopping && !restarting) {
          io.err(
            `durable dev --watch: the server exited (${signal ?? `code ${code}`}); it starts again at the next change`,
          );
        }
        done();
      });
    });
  };

  const stopChild = async () => {
    const proc = child;
    if (!proc) return;
    proc.kill('SIGTERM');
    const killer = setTimeout(() => proc.kill('SIGKILL'), STOP_GRACE_MS);
    await exited;
    clearTimeout(killer);
  };

  let timer: ReturnType<typeof setTimeout> | undefined;
  let changed = '';
  const restart = async () => {
    if (stopping || restarting) return;
    restarting = true;
    try {
      io.out(`durable dev --watch: ${changed} changed; restarting the server`);
      await stopChild();
      restarts++;
      if (!stopping) launch();
    } finally {
      restarting = false;
    }
  };

  const trees = folders.map((folder) =>
    watchTree(
      folder,
      (file) => {
        changed = relative(process.cwd(), file) || file;
        if (timer) clearTimeout(timer);
        timer = setTimeout(() => void restart(), SETTLE_MS);
      },
      (error) => io.err(`durable dev --watch: cannot watch ${folder}: ${error.message}`),
    ),
  );
  const shown = folders.map((f) => relative(process.cwd(), f) || '.');
  io.out(`durable dev --watch: restarting on changes under ${shown.join(', ')}`);

  const stop = onStopSignals({
    say: io.out,
    exit: (code) => {
      child?.kill('SIGKILL');
      process.exit(code);
    },
  });
  launch();
  await stop.requested;
  stopping = true;
  if (timer) clearTimeout(timer);
  for (const tree of trees) tree.close();
  // The server got the terminal's Ctrl-C too; a SIGTERM covers a signal sent to this process alone.
  await stopChild();
  stop.dispose();
  return 0;
}
