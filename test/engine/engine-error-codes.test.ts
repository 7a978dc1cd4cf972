import {
  AwsTransportError,
  CallbackAlreadyCompletedError,
  CallbackNotFoundError,
  ENGINE_ERROR_CODES,
  EngineError,
  type EngineErrorCode,
  EngineInputError,
  FunctionNotFoundError,
  InvalidCallbackIdError,
  InvalidMeterError,
  isEngineErrorCode,
  NothingToWakeError,
  OperationNotFoundError,
  OperationStateError,
  PayloadTooLargeError,
  RunBusyError,
  RunContendedError,
  RunEndedError,
  RunKeyConflictError,
  RunNotFoundError,
  RunStateError,
} from '@durable-lambda/engine';
import { describe, expect, it } from 'vitest';
import { FunctionNotFoundError as AwsFunctionNotFoundError } from '../../packages/aws/src/index';
import { FunctionNotFoundError as LocalFunctionNotFoundError } from '../../packages/local/src/index';

/** One instance of every error class the engine exports, with the name and code users see. */
const ERRORS: readonly [EngineError, string, EngineErrorCode][] = [
  [new RunKeyConflictError('k', 'r1'), 'RunKeyConflictError', 'run_key_conflict'],
  [new RunNotFoundError('r1'), 'RunNotFoundError', 'run_not_found'],
  [new InvalidCallbackIdError(), 'InvalidCallbackIdError', 'invalid_callback_id'],
  [new CallbackNotFoundError(), 'CallbackNotFoundError', 'callback_not_found'],
  [new CallbackAlreadyCompletedError('SUCCEEDED'), 'CallbackAlreadyCompletedError', 'callback_already_completed'],
  [new PayloadTooLargeError('input', 10, 5), 'PayloadTooLargeError', 'payload_too_large'],
  [new EngineInputError('limit', 'must be positive'), 'EngineInputError', 'invalid_argument'],
  [new FunctionNotFoundError('orders'), 'FunctionNotFoundError', 'function_not_found'],
  [new NothingToWakeError('r1', 'nothing waits'), 'NothingToWakeError', 'nothing_to_wake'],
  [new RunBusyError('r1'), 'RunBusyError', 'run_busy'],
  [new OperationNotFoundError('r1', 'op'), 'OperationNotFoundError', 'operation_not_found'],
  [new OperationStateError('not now'), 'OperationStateError', 'operation_state_conflict'],
  [new RunContendedError('r1'), 'RunContendedError', 'run_busy'],
  [new RunStateError('r1', 'SUCCEEDED', 'cancelled'), 'RunStateError', 'run_state_conflict'],
  [new InvalidMeterError('steps', -1), 'InvalidMeterError', 'invalid_meter'],
  [new RunEndedError('r1', 'SUCCEEDED'), 'RunEndedError', 'run_ended'],
  [
    new AwsTransportError('stale', 'INVOCATION', 'stale_checkpoint_token'),
    'InvalidParameterValueException',
    'stale_checkpoint_token',
  ],
  [
    new AwsTransportError('refused', 'EXECUTION', 'checkpoint_rejected'),
    'DurableExecutionClientError',
    'checkpoint_rejected',
  ],
  [new AwsTransportError('fault', 'INVOCATION', 'backend_fault'), 'DurableExecutionClientError', 'backend_fault'],
];

describe('engine errors', () => {
  it('share one base, EngineError, each with its own name and a code from ENGINE_ERROR_CODES', () => {
    for (const [error, name, code] of ERRORS) {
      expect(error).toBeInstanceOf(EngineError);
      expect(error).toBeInstanceOf(Error);
      expect(error.name).toBe(name);
      expect(error.code).toBe(code);
      expect(isEngineErrorCode(error.code)).toBe(true);
    }
  });

  it('every code of ENGINE_ERROR_CODES is carried by some engine error', () => {
    const carried = new Set(ERRORS.map(([error]) => error.code));
    expect([...ENGINE_ERROR_CODES].filter((code) => !carried.has(code))).toEqual([]);
    expect(new Set(ENGINE_ERROR_CODES).size).toBe(ENGINE_ERROR_CODES.length);
  });

  it('keeps the messages users read', () => {
    expect(new RunNotFoundError('r1').message).toBe('run r1 not found');
    expect(new EngineInputError('limit', 'must be positive').message).toBe('limit: must be positive');
    expect(new FunctionNotFoundError('orders', { message: 'no Lambda function "orders"' }).message).toBe(
      'no Lambda function "orders"',
    );
  });

  it('has one FunctionNotFoundError: the Lambda and the local invokers throw the engine class', () => {
    expect(AwsFunctionNotFoundError).toBe(FunctionNotFoundError);
    expect(LocalFunctionNotFoundError).toBe(FunctionNotFoundError);
  });

  it('tells an engine code from any other string', () => {
    expect(isEngineErrorCode('run_not_found')).toBe(true);
    expect(isEngineErrorCode('internal_error')).toBe(false);
    expect(isEngineErrorCode(404)).toBe(false);
  });
});
