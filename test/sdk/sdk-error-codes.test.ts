import { describe, expect, it } from 'vitest';
import { AttemptFailure } from '../../packages/sdk/src/errors/runtime-errors';
import {
  BatchCompletionError,
  CallbackError,
  CallbackTimeoutError,
  ChildContextError,
  DurableExecutionClientError,
  DurableRuntimeFault,
  DurableSdkError,
  ErrorCode,
  type ErrorCodeValue,
  InvalidArgumentError,
  InvokeError,
  NonRetriableError,
  PluginLoadError,
  RetryAfterError,
  SignalTimeoutError,
  StepError,
  StepInterruptedError,
} from '../../packages/sdk/src/index';
import { WaitForConditionExhaustedError } from '../../packages/sdk/src/operations/wait-strategy';

const CODES: readonly string[] = Object.values(ErrorCode);

describe('SDK errors', () => {
  it('every error with a code of the SDK extends DurableSdkError, with a code of ErrorCode', () => {
    const errors: readonly [DurableSdkError<string>, string, ErrorCodeValue][] = [
      [new InvalidArgumentError('retry.maxAttempts', 'must be 1 to 100'), 'InvalidArgumentError', 'invalid_argument'],
      [new NonRetriableError('no'), 'NonRetriableError', 'non_retriable'],
      [new RetryAfterError('later', 1000), 'RetryAfterError', 'retry_after'],
      [new DurableRuntimeFault(ErrorCode.CONTEXT_MISUSE, 'wrong context'), 'Error', 'context_misuse'],
      [
        new DurableRuntimeFault(ErrorCode.NON_DETERMINISTIC, 'moved'),
        'NonDeterministicExecutionError',
        'non_deterministic',
      ],
      [new AttemptFailure(ErrorCode.STEP_TIMEOUT, 'too long', true), 'StepTimeoutError', 'step_timeout'],
      [
        new WaitForConditionExhaustedError('past the timeout'),
        'WaitForConditionExhaustedError',
        'wait_for_condition_exhausted',
      ],
      [new StepError('failed'), 'StepError', 'step_failed'],
      [new CallbackTimeoutError('late'), 'CallbackTimeoutError', 'callback_timeout'],
      [new SignalTimeoutError('no signal'), 'SignalTimeoutError', 'signal_timeout'],
    ];
    for (const [error, name, code] of errors) {
      expect(error).toBeInstanceOf(DurableSdkError);
      expect(error.name).toBe(name);
      expect(error.code).toBe(code);
      expect(CODES).toContain(error.code);
    }
  });

  it("AWS's operation errors stay DurableSdkErrors yet keep AWS's shape: the code is not enumerable", () => {
    for (const error of [
      new StepError('s'),
      new CallbackError('c'),
      new InvokeError('i'),
      new ChildContextError('x'),
      new BatchCompletionError('FAILURE_TOLERANCE_EXCEEDED', 'b'),
    ]) {
      expect(error).toBeInstanceOf(DurableSdkError);
      expect(Object.keys(error)).not.toContain('code');
    }
  });

  it("AWS's classes without a code of ours are not DurableSdkErrors", () => {
    expect(new StepInterruptedError('s1')).not.toBeInstanceOf(DurableSdkError);
    expect(new DurableExecutionClientError('gone')).not.toBeInstanceOf(DurableSdkError);
    expect(new PluginLoadError('missing')).not.toBeInstanceOf(DurableSdkError);
  });

  it('a user subclass of NonRetriableError may carry its own code', () => {
    class OutOfStock extends NonRetriableError {
      override readonly code = 'out_of_stock';
    }
    const error: DurableSdkError<string> = new OutOfStock('sold out');
    expect(error.code).toBe('out_of_stock');
  });
});
