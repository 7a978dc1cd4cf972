import { splitRunName } from '@durable-lambda/aws';
import type { DurableBackend, InvocationOutput, LambdaContextLike } from '@durable-lambda/protocol';
import { emfLine, type LineWriter, METRIC, stdoutWriter } from './metrics';

/** The id of a run's EXECUTION operation; its StartTimestamp is when the run started. */
const EXECUTION_OPERATION_ID = '0';

/**
 * Wraps the production backend so every invocation that ends its run publishes `RunsSucceeded`
 * or `RunsFailed` and `RunDuration` (EMF, dimension `FunctionName`), the metrics the
 * `DurableFunction` alarms watch. Nothing else changes: the same invocation, the same answers.
 */
export function withRunMetrics(
  backend: DurableBackend,
  options: { write?: LineWriter; now?: () => number } = {},
): DurableBackend {
  const write = options.write ?? stdoutWriter;
  const now = options.now ?? Date.now;
  return {
    async open(event: unknown, context: LambdaContextLike) {
      const result = await backend.open(event, context);
      if (!result.opened) return result;
      const opened = result.opened;
      const started = opened.invocation.operations.find((op) => op.Id === EXECUTION_OPERATION_ID)?.StartTimestamp;
      return {
        opened: {
          invocation: opened.invocation,
          abort: (error: unknown) => opened.abort(error),
          async close(output: InvocationOutput) {
            const answer = await opened.close(output);
            if (output.Status !== 'PENDING') {
              const at = now();
              const functionName = context.functionName ?? splitRunName(opened.invocation.functionName).name;
              const outcome = output.Status === 'SUCCEEDED' ? METRIC.runsSucceeded : METRIC.runsFailed;
              const metrics: Record<string, readonly [number, 'Count' | 'Milliseconds']> = { [outcome]: [1, 'Count'] };
              if (typeof started === 'number')
                metrics[METRIC.runDuration] = [Math.max(0, at - started), 'Milliseconds'];
              try {
                write(emfLine(functionName, metrics, at));
              } catch {
                // Metrics never change the outcome of a run.
              }
            }
            return answer;
          },
        },
      };
    },
  };
}
