/**
 * The transitions of the operations that wait on the outside: a CALLBACK (completed through the
 * control API, or timed out here) and a CHAINED_INVOKE (completed by its child run). The handler
 * only starts them.
 */
import type { Operation, OperationUpdate } from '@durable-lambda/protocol';
import { fresh, type IdIssuer, positiveSeconds, reject } from './update-checks';

/** A CALLBACK update from the handler: only its START. */
export function applyCallback(
  current: Operation | undefined,
  update: OperationUpdate,
  now: number,
  ids: IdIssuer,
): Operation {
  if (update.Action !== 'START') {
    return reject(
      update,
      `${update.Action} is not valid for a CALLBACK from the handler (callbacks complete from outside)`,
    );
  }
  if (current) reject(update, 'the callback is already started');
  const timeoutMs = positiveSeconds(update, update.CallbackOptions?.TimeoutSeconds, 'CallbackOptions.TimeoutSeconds');
  const heartbeatMs = positiveSeconds(
    update,
    update.CallbackOptions?.HeartbeatTimeoutSeconds,
    'CallbackOptions.HeartbeatTimeoutSeconds',
  );
  return {
    ...fresh(update, now),
    CallbackDetails: {
      CallbackId: ids.callbackId(update.Id),
      ...(timeoutMs === undefined ? {} : { TimeoutTimestamp: now + timeoutMs }),
      ...(heartbeatMs === undefined
        ? {}
        : { HeartbeatTimeoutSeconds: heartbeatMs / 1000, HeartbeatDeadline: now + heartbeatMs }),
    },
  };
}

/** A CHAINED_INVOKE update from the handler: only its START (the child run id issued here). */
export function applyChainedInvoke(
  current: Operation | undefined,
  update: OperationUpdate,
  now: number,
  ids: IdIssuer,
): Operation {
  if (update.Action !== 'START') {
    return reject(
      update,
      `${update.Action} is not valid for a CHAINED_INVOKE from the handler (the child run completes it)`,
    );
  }
  if (current) reject(update, 'the invoke is already started');
  const functionName = update.ChainedInvokeOptions?.FunctionName;
  if (typeof functionName !== 'string' || functionName.length === 0 || functionName.length > 256) {
    reject(update, 'START needs ChainedInvokeOptions.FunctionName (1-256 characters)');
  }
  const tenantId = update.ChainedInvokeOptions?.TenantId;
  const executed = executedVersionOf(functionName as string);
  return {
    ...fresh(update, now),
    ChainedInvokeDetails: {
      FunctionName: functionName,
      ChildRunId: ids.childRunId(update.Id),
      ...(update.Payload === undefined ? {} : { Input: update.Payload }),
      ...(tenantId === undefined ? {} : { TenantId: tenantId }),
      ...(executed === undefined ? {} : { ExecutedVersion: executed }),
    },
  };
}

/**
 * The version a child run of `functionName` executes, as Lambda's `ExecutedVersion`: a version
 * number or `$LATEST` as qualified, `$LATEST` unqualified; undefined for an alias (its version is
 * known only once the child runs).
 */
export function executedVersionOf(functionName: string): string | undefined {
  // `name[:qualifier]`, or `arn:aws:lambda:<region>:<account>:function:<name>[:<qualifier>]`.
  const parts = functionName.split(':');
  const qualifier = functionName.startsWith('arn:') ? parts[7] : parts[1];
  if (qualifier === undefined) return '$LATEST';
  return /^(\d+|\$LATEST)$/.test(qualifier) ? qualifier : undefined;
}

/**
 * A callback whose timeout or heartbeat deadline has passed, as TIMED_OUT; otherwise undefined.
 * Kept apart from {@link settleDue}: a callback is also written by outside callers, so its
 * timeout is stored only by a conditional outside write, never carried by a session commit.
 */
export function callbackTimeout(op: Operation, now: number): Operation | undefined {
  if (op.Type !== 'CALLBACK' || op.Status !== 'STARTED') return undefined;
  const d = op.CallbackDetails;
  const heartbeat = d?.HeartbeatDeadline !== undefined && d.HeartbeatDeadline <= now;
  const overall = d?.TimeoutTimestamp !== undefined && d.TimeoutTimestamp <= now;
  if (!heartbeat && !overall) return undefined;
  const end = Math.min(heartbeat ? (d?.HeartbeatDeadline ?? now) : now, overall ? (d?.TimeoutTimestamp ?? now) : now);
  // AWS's service's error types (`Callback.Timeout`, `Callback.Heartbeat`: the conformance
  // requirements' CallbackTimedOut events carry them) with the messages of AWS's local runner,
  // which stores no type; our stable code rides along.
  const overallFirst = overall && (!heartbeat || (d?.TimeoutTimestamp ?? now) <= (d?.HeartbeatDeadline ?? now));
  const message = overallFirst ? 'Callback timed out' : 'Callback timed out on heartbeat';
  const type = overallFirst ? 'Callback.Timeout' : 'Callback.Heartbeat';
  return {
    ...op,
    Status: 'TIMED_OUT',
    EndTimestamp: end,
    CallbackDetails: {
      ...(d as NonNullable<Operation['CallbackDetails']>),
      Error: { ErrorType: type, ErrorMessage: message, ErrorCode: 'callback_timeout' },
    },
  };
}
