/**
 * The step suite's expectations, in our notation (see `../harness/requirement.ts`), transcribed
 * from AWS's conformance requirements; the handlers are in `step.handlers.ts`.
 */
import { type Expectation, ev } from '../harness/requirement';

export const STEP_EXPECTATIONS: Expectation[] = [
  {
    id: '1-1',
    input: 'World',
    expect: { status: 'SUCCEEDED', result: 'Hello, World!' },
    history: [
      ev(2, 'StepStarted', { sub: 'Step', id: '$ID1', details: '*' }),
      ev(3, 'StepSucceeded', { sub: 'Step', id: '$ID1', details: '*' }),
      ev(4, 'InvocationCompleted', { details: '*' }),
    ],
  },
  {
    id: '1-2',
    input: 'World',
    expect: { status: 'SUCCEEDED', result: 'Hello, World!' },
    history: [
      ev(2, 'StepStarted', { sub: 'Step', id: '$ID1', name: 'custom_step_name', details: '*' }),
      ev(3, 'StepSucceeded', { sub: 'Step', id: '$ID1', name: 'custom_step_name', details: '*' }),
      ev(4, 'InvocationCompleted', { details: '*' }),
    ],
  },
  {
    id: '1-3',
    input: null,
    expect: { status: 'SUCCEEDED', result: 'first_second' },
    history: [
      ev(2, 'StepStarted', { sub: 'Step', id: '$ID1', details: '*' }),
      ev(3, 'StepSucceeded', { sub: 'Step', id: '$ID1', details: '*' }),
      ev(4, 'StepStarted', { sub: 'Step', id: '$ID2', details: '*' }),
      ev(5, 'StepSucceeded', { sub: 'Step', id: '$ID2', details: '*' }),
      ev(6, 'InvocationCompleted', { details: '*' }),
    ],
  },
  {
    id: '1-4',
    input: { name: 'Alice', tags: ['admin', 'active'] },
    expect: { status: 'SUCCEEDED', result: { user: { name: 'Alice', tags: ['admin', 'active'] }, count: 2 } },
    history: [
      ev(2, 'StepStarted', { sub: 'Step', id: '$ID1', details: '*' }),
      ev(3, 'StepSucceeded', { sub: 'Step', id: '$ID1', details: '*' }),
      ev(4, 'InvocationCompleted', { details: '*' }),
    ],
  },
  {
    id: '1-5',
    input: null,
    expect: { status: 'SUCCEEDED', result: null },
    history: [
      ev(2, 'StepStarted', { sub: 'Step', id: '$ID1', details: '*' }),
      ev(3, 'StepSucceeded', { sub: 'Step', id: '$ID1', details: '*' }),
      ev(4, 'InvocationCompleted', { details: '*' }),
    ],
  },
  {
    id: '1-6',
    input: 'hello world',
    expect: { status: 'SUCCEEDED', result: 'HELLO WORLD' },
    history: [
      ev(2, 'StepStarted', { sub: 'Step', id: '$ID1', details: '*' }),
      ev(3, 'StepSucceeded', { sub: 'Step', id: '$ID1', details: '*' }),
      ev(4, 'InvocationCompleted', { details: '*' }),
    ],
  },
  {
    id: '1-7',
    vars: { INPUT_1: 'input11x7' },
    input: '{INPUT_1}',
    expect: { status: 'SUCCEEDED', result: 'Hello, {INPUT_1}!' },
    history: [
      ev(2, 'StepStarted', { sub: 'Step', id: '$ID1', details: '*' }),
      ev(3, 'StepSucceeded', { sub: 'Step', id: '$ID1', details: '*' }),
      ev(4, 'InvocationCompleted', { details: '*' }),
    ],
    logs: [
      { match: { message: /Greeting step started for: {INPUT_1}/ }, count: 1 },
      { match: { message: /Greeting step completed with: Hello, {INPUT_1}!/ }, count: 1 },
      { match: { message: /\[ERROR\]/ }, count: 0 },
    ],
  },
  {
    id: '1-8',
    input: null,
    expect: { status: 'SUCCEEDED', result: 'computed' },
    history: [
      ev(2, 'StepStarted', { sub: 'Step', id: '$ID1', details: '*' }),
      ev(3, 'StepSucceeded', { sub: 'Step', id: '$ID1', details: '*' }),
      ev(4, 'WaitStarted', { sub: 'Wait', id: '$ID2', details: { Duration: 2 } }),
      ev(5, 'InvocationCompleted', { details: '*' }),
      ev(6, 'WaitSucceeded', { sub: 'Wait', id: '$ID2', details: { Duration: 2 } }),
      ev(7, 'InvocationCompleted', { details: '*' }),
    ],
  },
  {
    id: '1-9',
    input: null,
    expect: { status: 'SUCCEEDED', result: 'cached_value' },
    history: [
      ev(2, 'StepStarted', { sub: 'Step', id: '$ID1', details: '*' }),
      ev(3, 'StepSucceeded', { sub: 'Step', id: '$ID1', details: '*' }),
      ev(4, 'WaitStarted', { sub: 'Wait', id: '$ID2', details: { Duration: 1 } }),
      ev(5, 'InvocationCompleted', { details: '*' }),
      ev(6, 'WaitSucceeded', { sub: 'Wait', id: '$ID2', details: { Duration: 1 } }),
      ev(7, 'InvocationCompleted', { details: '*' }),
    ],
  },
  {
    id: '1-10',
    input: null,
    expect: { status: 'SUCCEEDED' },
    history: [
      ev(2, 'StepStarted', { sub: 'Step', id: '$ID1', details: '*' }),
      ev(3, 'StepFailed', {
        sub: 'Step',
        id: '$ID1',
        details: { Error: { Payload: { ErrorMessage: '*', ErrorType: '*' } } },
      }),
      ev(4, 'WaitStarted', { sub: 'Wait', id: '$ID2', details: { Duration: 1 } }),
      ev(5, 'InvocationCompleted', { details: '*' }),
      ev(6, 'WaitSucceeded', { sub: 'Wait', id: '$ID2', details: { Duration: 1 } }),
      ev(7, 'InvocationCompleted', { details: '*' }),
    ],
  },
  {
    id: '1-11',
    input: null,
    expect: { status: 'SUCCEEDED', result: 'Operation succeeded' },
    history: [
      ev(2, 'StepStarted', { sub: 'Step', id: '$ID1', details: '*' }),
      ev(3, 'StepFailed', {
        sub: 'Step',
        id: '$ID1',
        details: { Error: '*', RetryDetails: { CurrentAttempt: 1, NextAttemptDelaySeconds: '*' } },
      }),
      ev(4, 'InvocationCompleted', { details: '*' }),
      ev(5, 'StepStarted', { sub: 'Step', id: '$ID1', details: '*' }),
      ev(6, 'StepSucceeded', {
        sub: 'Step',
        id: '$ID1',
        details: { Result: '*', RetryDetails: { CurrentAttempt: 2 } },
      }),
      ev(7, 'InvocationCompleted', { details: '*' }),
    ],
  },
  {
    id: '1-12',
    input: null,
    expect: { status: 'FAILED' },
    history: [
      ev(2, 'StepStarted', { sub: 'Step', id: '$ID1', details: '*' }),
      ev(3, 'StepFailed', {
        sub: 'Step',
        id: '$ID1',
        details: { Error: { Payload: '*' }, RetryDetails: { CurrentAttempt: 1, NextAttemptDelaySeconds: 1 } },
      }),
      ev(4, 'InvocationCompleted', { details: '*' }),
      ev(5, 'StepStarted', { sub: 'Step', id: '$ID1', details: '*' }),
      ev(6, 'StepFailed', {
        sub: 'Step',
        id: '$ID1',
        details: { Error: { Payload: '*' }, RetryDetails: { CurrentAttempt: 2, NextAttemptDelaySeconds: 1 } },
      }),
      ev(7, 'InvocationCompleted', { details: '*' }),
      ev(8, 'StepStarted', { sub: 'Step', id: '$ID1', details: '*' }),
      ev(9, 'StepFailed', {
        sub: 'Step',
        id: '$ID1',
        details: { Error: { Payload: '*' }, RetryDetails: { CurrentAttempt: 3, NextAttemptDelaySeconds: 1 } },
      }),
      ev(10, 'InvocationCompleted', { details: '*' }),
      ev(11, 'StepStarted', { sub: 'Step', id: '$ID1', details: '*' }),
      ev(12, 'StepFailed', {
        sub: 'Step',
        id: '$ID1',
        details: { Error: { Payload: '*' }, RetryDetails: { CurrentAttempt: 4 } },
      }),
      ev(13, 'InvocationCompleted', { details: '*' }),
    ],
  },
  {
    id: '1-13',
    input: null,
    expect: { status: 'SUCCEEDED' },
    history: [
      ev(2, 'StepStarted', { sub: 'Step', id: '$ID1', details: '*' }),
      ev(3, 'StepFailed', {
        sub: 'Step',
        id: '$ID1',
        details: { Error: { Payload: '*' }, RetryDetails: { CurrentAttempt: 1, NextAttemptDelaySeconds: /^[0-5]$/ } },
      }),
      ev(4, 'InvocationCompleted', { details: '*' }),
      ev(5, 'StepStarted', { sub: 'Step', id: '$ID1', details: '*' }),
      ev(6, 'StepFailed', {
        sub: 'Step',
        id: '$ID1',
        details: {
          Error: { Payload: '*' },
          RetryDetails: { CurrentAttempt: 2, NextAttemptDelaySeconds: /^([0-9]|10)$/ },
        },
      }),
      ev(7, 'InvocationCompleted', { details: '*' }),
      ev(8, 'StepStarted', { sub: 'Step', id: '$ID1', details: '*' }),
      ev(9, 'StepSucceeded', {
        sub: 'Step',
        id: '$ID1',
        details: { Result: '*', RetryDetails: { CurrentAttempt: 3 } },
      }),
      ev(10, 'InvocationCompleted', { details: '*' }),
    ],
  },
  {
    id: '1-14',
    input: null,
    expect: { status: 'SUCCEEDED' },
    history: [
      ev(2, 'StepStarted', { sub: 'Step', id: '$ID1', details: '*' }),
      ev(3, 'StepFailed', {
        sub: 'Step',
        id: '$ID1',
        details: { Error: { Payload: '*' }, RetryDetails: { CurrentAttempt: 1, NextAttemptDelaySeconds: 2 } },
      }),
      ev(4, 'InvocationCompleted', { details: '*' }),
      ev(5, 'StepStarted', { sub: 'Step', id: '$ID1', details: '*' }),
      ev(6, 'StepFailed', {
        sub: 'Step',
        id: '$ID1',
        details: { Error: { Payload: '*' }, RetryDetails: { CurrentAttempt: 2, NextAttemptDelaySeconds: 6 } },
      }),
      ev(7, 'InvocationCompleted', { details: '*' }),
      ev(8, 'StepStarted', { sub: 'Step', id: '$ID1', details: '*' }),
      ev(9, 'StepSucceeded', {
        sub: 'Step',
        id: '$ID1',
        details: { Result: '*', RetryDetails: { CurrentAttempt: 3 } },
      }),
      ev(10, 'InvocationCompleted', { details: '*' }),
    ],
  },
  {
    id: '1-15',
    input: null,
    expect: { status: 'SUCCEEDED' },
    history: [
      ev(2, 'StepStarted', { sub: 'Step', id: '$ID1', details: '*' }),
      ev(3, 'StepFailed', {
        sub: 'Step',
        id: '$ID1',
        details: {
          Error: { Payload: { ErrorMessage: '*', ErrorType: /.*TransientError$/ } },
          RetryDetails: { CurrentAttempt: 1, NextAttemptDelaySeconds: 1 },
        },
      }),
      ev(4, 'InvocationCompleted', { details: '*' }),
      ev(5, 'StepStarted', { sub: 'Step', id: '$ID1', details: '*' }),
      ev(6, 'StepSucceeded', { sub: 'Step', id: '$ID1', details: { RetryDetails: { CurrentAttempt: 2 } } }),
      ev(7, 'InvocationCompleted', { details: '*' }),
    ],
  },
  {
    id: '1-16',
    input: null,
    expect: { status: 'FAILED' },
    history: [
      ev(2, 'StepStarted', { sub: 'Step', id: '$ID1', details: '*' }),
      ev(3, 'StepFailed', {
        sub: 'Step',
        id: '$ID1',
        details: { Error: { Payload: { ErrorMessage: '*', ErrorType: /.*TransientError$/ } } },
      }),
      ev(4, 'InvocationCompleted', { details: '*' }),
    ],
  },
  {
    id: '1-17',
    vars: { INPUT_1: 'input11x17' },
    input: '{INPUT_1}',
    expect: { status: 'FAILED' },
    history: [
      ev(2, 'StepStarted', { sub: 'Step', id: '$ID1', name: 'at_most_once_flaky_step', details: '*' }),
      ev(3, 'InvocationCompleted', {
        details: { Error: { Payload: { ErrorMessage: '*', ErrorType: 'Runtime.ExitError' } } },
      }),
      ev(4, 'StepFailed', {
        sub: 'Step',
        id: '$ID1',
        name: 'at_most_once_flaky_step',
        details: { Error: { Payload: { ErrorMessage: '*', ErrorType: '*' } }, RetryDetails: { CurrentAttempt: 1 } },
      }),
      ev(5, 'InvocationCompleted', { details: '*' }),
    ],
    // logs: not checked
  },
  {
    id: '1-18',
    vars: { INPUT_1: 'input11x18' },
    input: '{INPUT_1}',
    expect: { status: 'SUCCEEDED', result: 'succeeded on second attempt' },
    history: [
      ev(2, 'StepStarted', { sub: 'Step', id: '$ID1', details: '*' }),
      ev(3, 'InvocationCompleted', {
        details: { Error: { Payload: { ErrorMessage: '*', ErrorType: 'Runtime.ExitError' } } },
      }),
      ev(4, 'StepFailed', {
        sub: 'Step',
        id: '$ID1',
        details: {
          Error: { Payload: { ErrorMessage: '*', ErrorType: '*' } },
          RetryDetails: { CurrentAttempt: 1, NextAttemptDelaySeconds: '*' },
        },
      }),
      ev(5, 'InvocationCompleted', { details: '*' }),
      ev(6, 'StepStarted', { sub: 'Step', id: '$ID1', details: '*' }),
      ev(7, 'StepSucceeded', {
        sub: 'Step',
        id: '$ID1',
        details: {
          Result: { Payload: '"succeeded on second attempt"', Truncated: false },
          RetryDetails: { CurrentAttempt: 2 },
        },
      }),
      ev(8, 'InvocationCompleted', { details: '*' }),
    ],
    // logs: not checked
  },
  {
    id: '1-19',
    input: null,
    expect: { status: 'FAILED' },
    history: [
      ev(2, 'StepStarted', { sub: 'Step', id: '$ID1', details: '*' }),
      ev(3, 'StepFailed', {
        sub: 'Step',
        id: '$ID1',
        details: { Error: { Payload: { ErrorMessage: '*', ErrorType: '*' } } },
      }),
      ev(4, 'InvocationCompleted', { details: '*' }),
    ],
  },
  {
    id: '1-20',
    input: null,
    expect: { status: 'SUCCEEDED', result: 'fallback_result' },
    history: [
      ev(2, 'StepStarted', { sub: 'Step', id: '$ID1', details: '*' }),
      ev(3, 'StepFailed', {
        sub: 'Step',
        id: '$ID1',
        details: { Error: { Payload: { ErrorMessage: '*', ErrorType: '*' } } },
      }),
      ev(4, 'StepStarted', { sub: 'Step', id: '$ID2', details: '*' }),
      ev(5, 'StepSucceeded', { sub: 'Step', id: '$ID2', details: '*' }),
      ev(6, 'InvocationCompleted', { details: '*' }),
    ],
  },
];
