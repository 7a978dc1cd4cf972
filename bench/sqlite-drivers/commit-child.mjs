// One measurement of `SqliteStore` commits on the driver this process picks (DURABLE_SQLITE_DRIVER,
// else node:sqlite where Node.js has it without a flag, else better-sqlite3), through the public API
// of the @durable-lambda/local installed in PROJECT (a packed tarball, as a user has it): plain
// JavaScript, so the same file runs under Node 20 and Node 22 without a loader.
//
//   node commit-child.mjs PROJECT DB_FILE RUNS STEPS
//
// The workload is a run's life in the store, as the engine writes it: create, take the lease, one
// commit per step (the step's operation), a last commit that ends the run and releases the lease.
// Each commit is one immediate transaction on a WAL file with synchronous = NORMAL (the store's),
// so this measures the driver and SQLite, not the engine. Then reads: 300 pages of the runs list
// (25 runs) and 300 replay loads of a run's operations. Prints one JSON line.
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';

const [project, file, runsArg, stepsArg] = process.argv.slice(2);
const RUNS = Number(runsArg ?? 500);
const STEPS = Number(stepsArg ?? 4);
const T0 = 1_700_000_000_000;

const { SqliteStore } = createRequire(join(project, 'package.json'))('@durable-lambda/local');
// Every commit goes at once (no turn-sharing pauses): the figure is the driver's, not the scheduler's.
const store = new SqliteStore({ path: file, turnBudgetMs: Number.POSITIVE_INFINITY });

const result = 'x'.repeat(200);
const latencies = [];
const started = performance.now();
for (let r = 0; r < RUNS; r++) {
  const runId = `run-${r}`;
  await store.createRun(
    {
      runId,
      functionName: 'fn',
      status: 'RUNNING',
      input: '{"n":1}',
      createdAt: T0,
      updatedAt: T0,
      fence: 0,
      nextWakeAt: T0,
      invocations: 0,
      lostInvocations: 0,
      eventSeq: 0,
      handledEventSeq: 0,
    },
    { Id: '0', Type: 'EXECUTION', Status: 'STARTED', StartTimestamp: T0, ExecutionDetails: { InputPayload: '{}' } },
  );
  const grant = await store.acquireLease(runId, T0, T0 + 900_000, `token-${r}`);
  const fence = grant.run.fence;
  for (let s = 0; s <= STEPS; s++) {
    const last = s === STEPS;
    const operations = last
      ? []
      : [
          {
            Id: `step-${s}`,
            Type: 'STEP',
            Status: 'SUCCEEDED',
            StartTimestamp: T0,
            EndTimestamp: T0 + 1,
            StepDetails: { Attempt: 1, Result: JSON.stringify(result) },
          },
        ];
    const t = performance.now();
    await store.commit(runId, fence, {
      operations,
      ...(last ? { run: { status: 'SUCCEEDED', result: '"done"', leaseExpiresAt: null } } : {}),
    });
    latencies.push(performance.now() - t);
  }
}
const elapsed = performance.now() - started;

// Reads, as the dashboard and a replay make them: a page of the runs list, a run's operations.
const reads = { list: [], replay: [] };
for (let i = 0; i < 300; i++) {
  let t = performance.now();
  await store.listRuns({ limit: 25 });
  reads.list.push(performance.now() - t);
  t = performance.now();
  await store.loadReplayOperations(`run-${i % RUNS}`);
  reads.replay.push(performance.now() - t);
}
store.close();
const median = (xs) => {
  const sorted = [...xs].sort((a, b) => a - b);
  return Number(sorted[Math.floor(sorted.length / 2)].toFixed(3));
};

latencies.sort((a, b) => a - b);
const at = (q) => latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))];
console.log(
  JSON.stringify({
    node: process.version,
    driver: store.driver,
    runs: RUNS,
    commits: latencies.length,
    commitsPerSecond: Math.round(latencies.length / (latencies.reduce((a, b) => a + b, 0) / 1_000)),
    runsPerSecond: Math.round(RUNS / (elapsed / 1_000)),
    p50Ms: Number(at(0.5).toFixed(3)),
    p99Ms: Number(at(0.99).toFixed(3)),
    maxMs: Number(latencies[latencies.length - 1].toFixed(3)),
    listP50Ms: median(reads.list),
    replayP50Ms: median(reads.replay),
  }),
);
