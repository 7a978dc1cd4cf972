/** The `durable` CLI's help text. */
export const USAGE = `Usage: durable <command> [arguments] [options]

Commands:
  start <function> [--input JSON] [--run-key KEY]    start a run (a known run key finds its run)
  list [--function F] [--status S] [--limit N] [--cursor C] [--search TEXT]
       [--created-after ISO] [--created-before ISO]  list runs, newest first, with what they wait for
                                                     (--search: a run id or run key, or part of one)
  show <runId>                                       show a run
  history <runId>                                    show a run's operations, errors (with stack
                                                     traces) and the log lines of each step
  callback succeed <callbackId> [--result JSON]      complete a callback with a result
  callback fail <callbackId> --message M [--code C]  fail a callback
  callback heartbeat <callbackId>                    keep a callback alive
  cancel <runId>                                     cancel a running run
  retry <runId>                                      retry a failed run
  wake <runId> [--operation ID]                      wake now: end the run's durable waits and retry
                                                     backoffs at once (or only that operation's)
  dev [entry...] [--port N] [--host H] [--db FILE] [--watch] [--faults SEED]
                                                     start the local dev server (@durable-lambda/local);
                                                     --port defaults to $PORT, else 3000; --watch
                                                     restarts it when a file next to the entries changes;
                                                     --faults injects seeded faults (runs finish anyway)
  help                                               show this help

Options:
  --url URL    the control API (default: $DURABLE_API_URL, else http://localhost:3000)
  --json       print the API's JSON answer, for scripts
  -h, --help   show this help

Exit codes: 0 ok, 1 API error, 2 usage error, 3 cannot reach the API.`;

/** A command line the CLI cannot run: exit code 2. */
export class UsageError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'UsageError';
  }
}
