import {
  DURABLE_ENTRY,
  type DurableEntry,
  type DurableLambdaHandler,
  getDurableEntry,
  type LogEntry,
  type LogSink,
} from '@durable-lambda/sdk';
import { isOurDurableHandler, type ServedHandler } from './entries';

/**
 * The same handler with its log lines kept (see {@link capturingLogs}) when it is ours; a handler
 * wrapped by AWS's `withDurableExecution` as it is: AWS's logger writes to the process's stdout,
 * where its lines (JSON with the run's `executionArn`) appear, not kept with the run.
 */
export function capturingServedLogs(
  handler: ServedHandler,
  keep: (entry: LogEntry) => void,
  onKeepError?: (error: unknown) => void,
): ServedHandler {
  return isOurDurableHandler(handler) ? capturingLogs(handler, keep, onKeepError) : handler;
}

/**
 * The same durable handler, with every log line of its loggers (the context's and each step's)
 * also handed to `keep` before its own sink (the function's `logSink`, stdout by default) gets
 * it. The dev server keeps them with their run this way. A failure to keep a line never fails
 * the handler: the line still reaches the function's own sink.
 */
export function capturingLogs(
  handler: DurableLambdaHandler,
  keep: (entry: LogEntry) => void,
  onKeepError: (error: unknown) => void = () => {},
): DurableLambdaHandler {
  const entry = getDurableEntry(handler);
  const own = entry.settings.logSink;
  const logSink: LogSink = (line) => {
    try {
      keep(line);
    } catch (error) {
      onKeepError(error);
    }
    own(line);
  };
  const captured: DurableEntry = {
    settings: { ...entry.settings, logSink },
    ...(entry.limits ? { limits: entry.limits } : {}),
    // An override the runtime gives (its own logSink) still wins, as it would without the capture.
    execute: (invocation, context, overrides) => entry.execute(invocation, context, { logSink, ...overrides }),
  };
  const wrapped = ((event: unknown, context?: Parameters<DurableLambdaHandler>[1]) =>
    handler(event, context)) as DurableLambdaHandler;
  Object.defineProperty(wrapped, DURABLE_ENTRY, { value: captured, enumerable: false });
  return wrapped;
}
