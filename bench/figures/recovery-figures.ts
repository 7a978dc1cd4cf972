/**
 * Section "recovery": the dev server killed with `kill -9` while N runs are in flight
 * (recovery-child.ts: two 400 ms steps, a 2 s wait, a third step), started again on the same
 * SQLite file, against the same N runs left alone. N is 1,000 at full size (200 quick, 40 smoke).
 *
 * Both start the N runs through the control API, 50 requests at a time; at the moment the last
 * start is answered (T), one server is killed (SIGKILL) and a new one started on the file, the
 * other left alone. Measured from T: until no run is RUNNING (polled, `GET /v1/runs?status=RUNNING`).
 * Meanwhile the dashboard's own runs-list request (`GET /v1/runs?include=waitingFor&limit=25`) is
 * sent every 100 ms; its p99 counts from the moment the server listens (the restart's listening,
 * after a kill) until every run has finished.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { emitRows, type FigureRow, figure, progressLine, sizeArg } from './figure-rows';
import { tsxArgv, tsxEnv } from './tsx-process';

const CHILD = fileURLToPath(new URL('./recovery-child.ts', import.meta.url));
const RUNS = { smoke: 40, quick: 200, full: 1_000 }[sizeArg()];
/** Start requests in flight at once. */
const START_CONCURRENCY = 50;
const LIST_EVERY_MS = 100;
const POLL_EVERY_MS = 50;
/** A run that takes longer than this has not recovered: the section fails. */
const GIVE_UP_MS = 300_000;

interface Server {
  child: ChildProcess;
  url: string;
  /** The last `inflight <n>` the server printed. */
  inflight(): number;
  exited: Promise<void>;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Starts the dev server on `db`; resolves once it listens. */
function startServer(db: string): Promise<Server> {
  const child = spawn(process.execPath, tsxArgv(CHILD, [db]), {
    env: tsxEnv({ ...process.env, NODE_OPTIONS: '' }),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const exited = new Promise<void>((resolve) => child.on('exit', () => resolve()));
  let inflight = 0;
  let errors = '';
  child.stderr?.on('data', (chunk: Buffer) => {
    errors += chunk.toString('utf8');
  });
  return new Promise((resolve, reject) => {
    let buffered = '';
    let url: string | undefined;
    child.stdout?.on('data', (chunk: Buffer) => {
      buffered += chunk.toString('utf8');
      const lines = buffered.split('\n');
      buffered = lines.pop() ?? '';
      for (const line of lines) {
        const count = /^inflight (\d+)$/.exec(line);
        if (count) inflight = Number(count[1]);
        const listening = /dev server at (http:\/\/\S+)/.exec(line);
        if (listening && !url) {
          url = listening[1] as string;
          resolve({ child, url, inflight: () => inflight, exited });
        }
      }
    });
    void exited.then(() => {
      if (!url) reject(new Error(`the dev server ended before listening: ${errors.slice(-2_000)}`));
    });
  });
}

async function startRuns(url: string, n: number): Promise<void> {
  let next = 0;
  const worker = async () => {
    for (let i = next++; i < n; i = next++) {
      const res = await fetch(`${url}/v1/runs`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ function: 'flow', input: { i } }),
      });
      if (res.status !== 201) throw new Error(`start ${i}: ${res.status} ${await res.text()}`);
    }
  };
  await Promise.all(Array.from({ length: START_CONCURRENCY }, worker));
}

/** Resolves once no run is RUNNING on the server `url()` names (undefined while it restarts). */
async function allFinished(url: () => string | undefined, since: number): Promise<void> {
  for (;;) {
    const at = url();
    if (at) {
      try {
        const res = await fetch(`${at}/v1/runs?status=RUNNING&limit=1`);
        const page = (await res.json()) as { runs: unknown[] };
        if (res.status === 200 && page.runs.length === 0) return;
      } catch {
        // The server is between its kill and its restart.
      }
    }
    if (performance.now() - since > GIVE_UP_MS) throw new Error(`runs still RUNNING after ${GIVE_UP_MS} ms`);
    await sleep(POLL_EVERY_MS);
  }
}

/** Sends the dashboard's list request every 100 ms until `stop` settles; each one's latency, ms. */
async function listLatencies(url: () => string | undefined, stop: Promise<unknown>): Promise<number[]> {
  let stopped = false;
  void stop.finally(() => {
    stopped = true;
  });
  const latencies: number[] = [];
  do {
    const at = url();
    if (at) {
      const started = performance.now();
      try {
        const res = await fetch(`${at}/v1/runs?include=waitingFor&limit=25`);
        await res.arrayBuffer();
        if (res.status === 200) latencies.push(performance.now() - started);
        if (process.env.RECOVERY_DEBUG)
          progressLine(`list ${(performance.now() - started).toFixed(0)} ms at ${started.toFixed(0)}`);
      } catch {
        // Not listening (killed, not restarted yet): not a request the dashboard could make.
      }
    }
    await sleep(LIST_EVERY_MS);
  } while (!stopped);
  return latencies;
}

function p99(xs: number[]): number {
  if (xs.length === 0) return Number.NaN;
  const sorted = [...xs].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil(sorted.length * 0.99) - 1)] as number;
}

interface Outcome {
  /** From T until no run is RUNNING, ms. */
  finishMs: number;
  /** List latencies while recovering, ms. */
  latencies: number[];
  /** Step bodies running at T. */
  inflightAtKill: number;
  /** From the kill until the new server listened, ms (crash only). */
  restartMs?: number;
}

async function scenario(crash: boolean, dir: string): Promise<Outcome> {
  const db = join(dir, `${crash ? 'crash' : 'calm'}.sqlite`);
  let server = await startServer(db);
  try {
    await startRuns(server.url, RUNS);
    const t = performance.now();
    const inflightAtKill = server.inflight();
    let current: string | undefined = server.url;
    let restartMs: number | undefined;
    let done: Promise<void>;
    let latencies: Promise<number[]>;
    if (crash) {
      server.child.kill('SIGKILL');
      await server.exited;
      current = undefined;
      done = allFinished(() => current, t);
      latencies = listLatencies(() => current, done);
      server = await startServer(db);
      restartMs = performance.now() - t;
      current = server.url;
    } else {
      done = allFinished(() => current, t);
      latencies = listLatencies(() => current, done);
    }
    await done;
    const finishMs = performance.now() - t;
    const measured = await latencies;
    // At the smallest size the runs may all finish before the first request after the restart.
    if (measured.length === 0) measured.push(...(await listLatencies(() => current, sleep(1))));
    return {
      finishMs,
      latencies: measured,
      inflightAtKill,
      ...(restartMs === undefined ? {} : { restartMs }),
    };
  } finally {
    server.child.kill('SIGTERM');
    await Promise.race([server.exited, sleep(10_000)]);
    server.child.kill('SIGKILL');
  }
}

const dir = mkdtempSync(join(tmpdir(), 'durable-bench-recovery-'));
const rows: FigureRow[] = [];
try {
  progressLine(`recovery: ${RUNS} runs, no crash`);
  const calm = await scenario(false, dir);
  progressLine(`recovery: ${RUNS} runs, kill -9 and restart`);
  const crash = await scenario(true, dir);
  const n = RUNS.toLocaleString('en-US');
  rows.push(
    figure({
      section: 'recovery',
      metric: `dev server kill -9 with ${n} runs in flight: time until all finished`,
      unit: 's',
      ours: crash.finishMs / 1000,
      reference: calm.finishMs / 1000,
      referenceName: 'the same runs, no crash',
      target: '≤ 2× without a crash',
      met: (_r, ours) => ours <= (2 * calm.finishMs) / 1000,
      note:
        `${n} runs of two 400 ms steps, a 2 s wait and a third step, started 50 at a time; measured from the ` +
        `moment the last start was answered (${crash.inflightAtKill} step bodies in flight when killed). ` +
        `The restart listened ${((crash.restartMs ?? 0) / 1000).toFixed(1)} s after the kill (a fresh node ` +
        "process loading the sources through tsx): it takes the dead process's leases back and pages through " +
        'the due runs, the woken ones starting between passes.',
    }),
    figure({
      section: 'recovery',
      metric: `dashboard runs-list p99 while recovering from kill -9 (${n} runs)`,
      unit: 'ms',
      ours: p99(crash.latencies),
      reference: p99(calm.latencies),
      referenceName: 'the same request, no crash',
      target: '< 50 ms',
      met: (_r, ours) => ours < 50,
      note:
        `GET /v1/runs?include=waitingFor&limit=25 every ${LIST_EVERY_MS} ms from the restart's listening until every ` +
        `run finished: ${crash.latencies.length} requests, max ${Math.max(...crash.latencies).toFixed(0)} ms ` +
        `(no crash: ${calm.latencies.length} requests, max ${Math.max(...calm.latencies).toFixed(0)} ms).`,
    }),
  );
} finally {
  rmSync(dir, { recursive: true, force: true });
}
emitRows(rows);
