import type { ErrorObject } from '@durable-lambda/protocol';

/** An attribute value of a {@link DurableSpan}. */
export type DurableSpanAttributeValue = string | number | boolean;

/** What a {@link DurableSpan} stands for. */
export type DurableSpanKind = 'run' | 'operation' | 'attempt';

/** A span's outcome, as OpenTelemetry's status codes name it. */
export type DurableSpanStatus = 'UNSET' | 'OK' | 'ERROR';

/**
 * One span of a run's trace, as plain data (epoch ms, hex ids): what {@link runTrace} returns and
 * what the tracing plugin hands to OpenTelemetry. Built from stored operations only, so the same
 * run always yields the same spans, whichever process builds them.
 */
export interface DurableSpan {
  kind: DurableSpanKind;
  name: string;
  /** 32 hex digits, X-Ray-shaped (the first 8 are the run's start in epoch seconds). */
  traceId: string;
  /** 16 hex digits, a hash of the run id (and operation id and attempt). */
  spanId: string;
  /** The parent's span id; absent on the run's root span. */
  parentSpanId?: string;
  /** Epoch ms. */
  startTime: number;
  /** Epoch ms, never before `startTime`. */
  endTime: number;
  /** False when the run, operation or attempt has not ended yet (`endTime` is then the latest time known). */
  ended: boolean;
  status: DurableSpanStatus;
  /** The error's message, on `ERROR`. */
  statusMessage?: string;
  attributes: Record<string, DurableSpanAttributeValue>;
  /** The operation's id (operation and attempt spans). */
  operationId?: string;
  /** The attempt's number, 1-based (attempt spans). */
  attempt?: number;
}

/** The run a trace is built for: a subset of the engine's run record and of the API's run view. */
export interface TraceRun {
  /** The run's id (AWS: the execution's ARN). */
  runId: string;
  /**
   * The run's incarnation, when its id comes from a key: a run created again under the same key
   * after its retention is another execution, with a trace and span ids of its own.
   */
  incarnation?: string;
  /** The durable function, when known. */
  functionName?: string;
  /** `RUNNING`, `SUCCEEDED`, `FAILED`, `TIMED_OUT`, `STOPPED`…; left out: taken from the EXECUTION operation. */
  status?: string;
  /** When the run started (epoch ms); left out: its EXECUTION operation's start. */
  createdAt?: number;
  /** When the run ended (epoch ms), once it has. */
  endedAt?: number;
  /** The run's error, once it failed. */
  error?: ErrorObject;
}

/** Attribute names of the spans (stable: dashboards and queries rely on them). */
export const DurableAttributes = {
  RUN_ID: 'durable.run.id',
  RUN_STATUS: 'durable.run.status',
  FUNCTION_NAME: 'durable.function.name',
  OPERATION_ID: 'durable.operation.id',
  OPERATION_NAME: 'durable.operation.name',
  OPERATION_TYPE: 'durable.operation.type',
  OPERATION_SUBTYPE: 'durable.operation.subtype',
  OPERATION_STATUS: 'durable.operation.status',
  OPERATION_PARENT_ID: 'durable.operation.parent_id',
  /** On an operation span: how many attempts the step made. */
  OPERATION_ATTEMPTS: 'durable.operation.attempts',
  ATTEMPT: 'durable.attempt',
  /** `SUCCEEDED`, `FAILED`, or `STARTED` while it runs. */
  ATTEMPT_OUTCOME: 'durable.attempt.outcome',
  /** True when the attempt's start is not stored and was taken from the attempt before it. */
  ATTEMPT_START_ESTIMATED: 'durable.attempt.start_estimated',
  ERROR_CODE: 'durable.error.code',
  ERROR_TYPE: 'durable.error.type',
  ERROR_MESSAGE: 'durable.error.message',
  WAIT_SCHEDULED_END: 'durable.wait.scheduled_end',
  CALLBACK_ID: 'durable.callback.id',
  INVOKE_FUNCTION: 'durable.invoke.function',
  INVOKE_CHILD_RUN_ID: 'durable.invoke.child_run_id',
  /** On the root span: the trace id as X-Ray writes it. */
  XRAY_TRACE_ID: 'aws.xray.trace_id',
  /** The Lambda request id of the invocation that emitted the span (plugin only). */
  INVOCATION_ID: 'faas.invocation_id',
} as const;
