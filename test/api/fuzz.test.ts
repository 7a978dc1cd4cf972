import { Agent } from 'node:http';
import { API_ERROR_STATUS } from '@durable-lambda/api';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type FuzzRequest, fuzzRequest } from './fuzz-requests';
import { type FuzzAnswer, FuzzWorld } from './fuzz-world';
import { listen } from './support';

/**
 * Requests per run of the suite: 5,000 (200 fresh worlds, ~8 CPU-s; 10,000 cost 16, 3% of
 * `npm test`). `DURABLE_FUZZ_RUNS=50000` for a longer run (or fewer).
 */
const REQUESTS = Number(process.env.DURABLE_FUZZ_RUNS ?? 5_000);
/** Requests sent to one fresh world (API, engine, store and runs), so a seed replays alone. */
const PER_WORLD = 25;
/**
 * A seed to replay (fast-check prints it, with the path, on failure); otherwise a new one.
 * `DURABLE_FUZZ_NO_SHRINK=1` reports the first failure as found, without shrinking it.
 */
const SEED = process.env.DURABLE_FUZZ_SEED === undefined ? undefined : Number(process.env.DURABLE_FUZZ_SEED);
const PATH = process.env.DURABLE_FUZZ_PATH;

const STABLE_CODE = /^[a-z][a-z0-9]*(_[a-z0-9]+)*$/;

/** What went wrong with one answer, or undefined. */
function violation(answer: FuzzAnswer, changed: boolean): string | undefined {
  if (!Number.isInteger(answer.status) || answer.status < 200 || answer.status >= 500) {
    return `status ${answer.status}: ${answer.body.slice(0, 300)}`;
  }
  let json: unknown;
  try {
    json = JSON.parse(answer.body);
  } catch {
    return `status ${answer.status} with a body that is not JSON: ${JSON.stringify(answer.body.slice(0, 200))} (headers ${JSON.stringify(answer.headers)})`;
  }
  if (!String(answer.headers['content-type']).startsWith('application/json')) {
    return `content-type ${JSON.stringify(answer.headers['content-type'])}`;
  }
  if (answer.status < 400) return undefined;
  const error = (json as { error?: { code?: unknown; message?: unknown } } | null)?.error;
  if (typeof error?.code !== 'string' || typeof error.message !== 'string' || error.message === '') {
    return `error body is not {error: {code, message}}: ${answer.body.slice(0, 200)}`;
  }
  if (!STABLE_CODE.test(error.code)) return `code ${JSON.stringify(error.code)} is not snake_case`;
  if (API_ERROR_STATUS[error.code] !== answer.status) {
    return `code ${error.code} with status ${answer.status} (documented: ${API_ERROR_STATUS[error.code] ?? 'none'})`;
  }
  if (changed) return `a rejected request (${answer.status} ${error.code}) changed the store or called out`;
  return undefined;
}

describe('control API fuzz', () => {
  const byClass = new Map<string, number>();
  const byCode = new Map<string, number>();
  const byTransport = new Map<string, number>();
  let generated = 0;
  let sent = 0;
  let world: FuzzWorld | undefined;
  let server: Awaited<ReturnType<typeof listen>>;
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  let usedSeed: number | undefined;

  beforeAll(async () => {
    server = await listen((req, res) => {
      if (world) world.listener(req, res);
      else res.destroy();
    });
  });

  afterAll(async () => {
    agent.destroy();
    await server?.close();
    const line = (m: Map<string, number>) =>
      [...m.entries()]
        .sort()
        .map(([k, v]) => `${k}=${v}`)
        .join(' ');
    console.log(
      `control API fuzz: ${generated} generated requests, ${sent} sent (duplicates sent at once), seed ${usedSeed ?? 'unknown'}\n` +
        `  by status class: ${line(byClass)}\n  by transport: ${line(byTransport)}\n  by error code: ${line(byCode)}`,
    );
  });

  const count = (m: Map<string, number>, key: string) => m.set(key, (m.get(key) ?? 0) + 1);

  function tally(request: FuzzRequest, answer: FuzzAnswer): void {
    sent += 1;
    count(byClass, `${Math.floor(answer.status / 100)}xx`);
    count(byTransport, request.transport);
    if (answer.headers['idempotent-replayed'] === 'true') count(byCode, '(replayed)');
    if (answer.status < 400) return;
    try {
      count(byCode, String(JSON.parse(answer.body).error.code));
    } catch {
      count(byCode, '(no code)');
    }
  }

  async function check(request: FuzzRequest): Promise<void> {
    const current = world as FuzzWorld;
    generated += 1;
    if (request.advanceMs) current.fixture.clock.advanceBy(request.advanceMs);
    const before = await current.digest();
    const reported = current.fixture.errors.length;
    const port = Number(new URL(server.url).port);
    const answers = await Promise.all(
      Array.from({ length: request.twice ? 2 : 1 }, () => current.send(request, { port, agent })),
    );
    for (const answer of answers) tally(request, answer);
    // With two at once, the store may change only when one of them was accepted.
    const rejected = answers.every((a) => a.status >= 400);
    // A callback whose deadline passed is recorded TIMED_OUT by the first request that meets it
    // (the timeout happened when it was due; its 409 says so): the one write a rejection may make.
    const recordedTimeout = answers.some(
      (a) => a.status === 409 && a.body.includes('"callback_already_completed"') && a.body.includes('(TIMED_OUT)'),
    );
    const changed = rejected && !recordedTimeout && (await current.digest()) !== before;
    for (const answer of answers) {
      const problem = violation(answer, changed);
      if (!problem) continue;
      const error = current.fixture.errors.at(-1);
      throw new Error(
        `${request.method} ${current.path(request)}: ${problem}\nrequest: ${JSON.stringify(request)}\nreported: ${
          error instanceof Error ? error.stack : String(error)
        }`,
      );
    }
    // The API reports unexpected errors it answered anyway: none is expected here.
    expect(current.fixture.errors.slice(reported).map(String)).toEqual([]);
  }

  it(
    `answers ${REQUESTS} generated requests with < 500, a documented code on 4xx, and no change on a rejection`,
    async () => {
      const numRuns = Math.max(1, Math.ceil(REQUESTS / PER_WORLD));
      const property = fc.asyncProperty(
        fc.array(fuzzRequest, { minLength: PER_WORLD, maxLength: PER_WORLD }),
        async (requests) => {
          world = await FuzzWorld.create();
          for (const request of requests) await check(request);
        },
      );
      const params: fc.Parameters<[FuzzRequest[]]> = {
        numRuns,
        ...(SEED === undefined ? {} : { seed: SEED }),
        ...(PATH === undefined ? {} : { path: PATH }),
        endOnFailure: process.env.DURABLE_FUZZ_NO_SHRINK !== undefined,
        reporter: (details) => {
          usedSeed = details.seed;
          if (details.failed) {
            throw new Error(`${fc.defaultReportMessage(details)}\nFailure: ${String(details.errorInstance)}`);
          }
        },
      };
      await fc.assert(property, params);
      expect(generated).toBe(numRuns * PER_WORLD);
    },
    10 * 60_000,
  );
});
