import { CliError } from './cli-error';

/** The `durable` CLI's help text. */
export const USAGE = `Usage: durable <command> [arguments] [options]

Commands:
  start <function> [--input JSON] [--run-key KEY] [--latest] [--tag K=V]...
                                                     start a run (a known run key finds its run);
                                                     --latest: on $LATEST, not pinned to a version;
                                                     --tag: a search tag it starts with
  list [--function F] [--status S] [--limit N] [--cursor C] [--search TEXT]
       [--created-after ISO] [--created-before ISO] [--concurrency-key K]
       [--tag K=V]... [--error-code CODE]
                                                     list runs, newest first, with what they wait for
                                                     (--tag: runs carrying every tag given, ctx.tag's;
                                                     --error-code: runs that failed with that code;
                                                     --search: a run id or run key, or part of one;
                                                     --function F: every version of F, F:7 only v7;
                                                     QUEUED runs with their key and queue position;
                                                     --function F --status QUEUED --concurrency-key K:
                                                     K's queue in order)
  show <runId>                                       show a run (with what it consumed: invocations,
                                                     billed ms, DynamoDB units, Scheduler, SQS; a
                                                     QUEUED run's key, queue time and position)
  functions                                          the functions served, each with its limits (as
                                                     its code recorded them), its RUNNING and QUEUED
                                                     runs and its schedules
  history <runId>                                    show a run's operations, errors (with stack
                                                     traces) and the log lines of each step
  logs <runId>                                       the run's log lines alone, oldest first, each
                                                     with the step (and attempt) that wrote it
  callback succeed <callbackId> [--result JSON]      complete a callback with a result
  callback fail <callbackId> --message M [--code C]  fail a callback
  callback heartbeat <callbackId>                    keep a callback alive
  signal <runId> <name> [json] [--idempotency-key K] send a named signal (json: its payload, inline,
                                                     @file or - for standard input) to a run; a
                                                     ctx.waitForSignal(name) takes it, now or later
  signals <runId>                                    a run's signals (delivered, pending) and its waits
  cancel <runId>                                     cancel a running run
  cancel-tree <runId>                                cancel a run and its child runs (and theirs)
  retry <runId> [--operation ID]                     retry a failed run (from that operation on: it and
                                                     every later step run again; fences a live invocation)
  skip <runId> <operationId> [--result JSON]         skip a failed step: it returns the result, the run
                                                     goes on; each action is recorded as $DURABLE_ACTOR
                                                     (else $USER) in the run's history
  wake <runId> [--operation ID]                      wake now: end the run's durable waits and retry
                                                     backoffs at once (or only that operation's)
  dev [entry...] [--port N] [--host H] [--db FILE] [--watch] [--faults SEED] [--allowed-hosts A,B]
                                                     start the local dev server (@durable-lambda/local);
                                                     --port defaults to $PORT, else 3000; --watch
                                                     restarts it when a file next to the entries changes;
                                                     --faults injects seeded faults (runs finish anyway);
                                                     --allowed-hosts (else $DURABLE_ALLOWED_HOSTS): host
                                                     names it answers besides localhost and IP addresses
  console [--port N]                                 the dashboard for a deployed API (--url), on
                                                     http://127.0.0.1:N (default $PORT, else 3001),
                                                     its requests signed (a Function URL, or --sign)
                                                     with your AWS credentials
  export <runId> [--table T | --db FILE]             print the run as an exported-run file (> run.json),
                                                     from the API, a DynamoDB table (--region) or a dev
                                                     server's SQLite file
  replay <file|runId> --handler <module>#<export> [--table T | --db FILE]
                                                     replay a recorded run against the handler (nothing
                                                     runs): clean, or where the code diverges
  replay --function F --handler <module>#<export> [--last N] [--table T | --db FILE]
                                                     CI: replay all running runs and the last N (20) ended
                                                     runs of F; exit 4 if any does not replay cleanly
  cost <function> [--runs N] [--since WHEN] [--memory MB] [--runs-per-month N]
                                                     estimate a month of the function at AWS list
                                                     prices from its last N (100) ended runs' meters;
                                                     runs a month observed from their rate unless given;
                                                     WHEN: an ISO time or 12h, 7d, 2w; exit 1 with
                                                     [unknown_function] or [no_metered_runs]
  help                                               show this help

Options:
  --url URL    the control API (default: $DURABLE_API_URL, else http://localhost:3000)
  --json       print the API's JSON answer, for scripts
  --sign       sign requests with SigV4 (service lambda) from your AWS credentials (also
               DURABLE_SIGN=1); always on for a Function URL (https://<id>.lambda-url.<region>.on.aws)
  --region R   the region signed for (also of --table) (default: the Function URL's, else
               $AWS_REGION) (no AWS credentials found: one line, exit code 2)
  -h, --help   show this help

JSON values (--input, --result) are inline JSON, @FILE for a file's content or - for standard input.

Exit codes: 0 ok, 1 API error, 2 usage error, 3 cannot reach the API, 4 a replay diverged.`;

/** A command line the CLI cannot run: exit code 2. Code `invalid_usage`. */
export class UsageError extends CliError<'invalid_usage'> {
  /** Stable code. */
  readonly code = 'invalid_usage';
  constructor(message: string) {
    super(message);
    this.name = 'UsageError';
  }
}
