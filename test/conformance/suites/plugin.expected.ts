/**
 * The plugin suite's expectations, in our notation (see `../harness/requirement.ts`), transcribed
 * from AWS's conformance requirements; the handlers are in `plugin.handlers.ts`.
 */
import { type Expectation, ev } from '../harness/requirement';

export const PLUGIN_EXPECTATIONS: Expectation[] = [
  {
    id: '10-1',
    vars: { INPUT_1: 'input110x1' },
    input: '{INPUT_1}',
    expect: { status: 'SUCCEEDED', result: 'Hello, {INPUT_1}!' },
    history: [
      ev(2, 'StepStarted', { sub: 'Step', id: '$ID1', details: '*' }),
      ev(3, 'StepSucceeded', { sub: 'Step', id: '$ID1', details: '*' }),
      ev(4, 'InvocationCompleted', { details: '*' }),
    ],
    // logs: not checked
  },
  {
    id: '10-2',
    vars: { INPUT_1: 'input110x2' },
    input: '{INPUT_1}',
    expect: { status: 'SUCCEEDED', result: 'Hello, {INPUT_1}!' },
    history: [
      ev(2, 'StepStarted', { sub: 'Step', id: '$ID1', details: '*' }),
      ev(3, 'StepSucceeded', { sub: 'Step', id: '$ID1', details: '*' }),
      ev(4, 'InvocationCompleted', { details: '*' }),
    ],
    // logs: not checked
  },
  {
    id: '10-3',
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
    // logs: not checked
  },
  {
    id: '10-4',
    vars: { INPUT_1: 'input110x4' },
    input: '{INPUT_1}',
    expect: { status: 'SUCCEEDED', result: 'Hello, {INPUT_1}!' },
    history: [
      ev(2, 'StepStarted', { sub: 'Step', id: '$ID1', details: '*' }),
      ev(3, 'StepSucceeded', { sub: 'Step', id: '$ID1', details: '*' }),
      ev(4, 'InvocationCompleted', { details: '*' }),
    ],
    // logs: not checked
  },
  {
    id: '10-5',
    vars: { INPUT_1: 'input110x5' },
    input: '{INPUT_1}',
    expect: { status: 'SUCCEEDED', result: 'Hello, {INPUT_1}!' },
    history: [
      ev(2, 'StepStarted', { sub: 'Step', id: '$ID1', details: '*' }),
      ev(3, 'StepSucceeded', { sub: 'Step', id: '$ID1', details: '*' }),
      ev(4, 'InvocationCompleted', { details: '*' }),
    ],
    // logs: not checked
  },
  {
    id: '10-6',
    input: null,
    expect: { status: 'SUCCEEDED' },
    history: [
      ev(2, 'WaitStarted', { sub: 'Wait', id: '$ID1', details: { Duration: 2 } }),
      ev(3, 'InvocationCompleted', { details: '*' }),
      ev(4, 'WaitSucceeded', { sub: 'Wait', id: '$ID1', details: { Duration: 2 } }),
      ev(5, 'InvocationCompleted', { details: '*' }),
    ],
    // logs: not checked
  },
  {
    id: '10-7',
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
    // logs: not checked
  },
  {
    id: '10-8',
    vars: { INPUT_1: 'input110x8' },
    input: '{INPUT_1}',
    expect: { status: 'SUCCEEDED', result: 'Hello, {INPUT_1}!' },
    history: [
      ev(2, 'StepStarted', { sub: 'Step', id: '$ID1', details: '*' }),
      ev(3, 'StepSucceeded', { sub: 'Step', id: '$ID1', details: { Result: '*' } }),
      ev(4, 'InvocationCompleted', { details: '*' }),
    ],
    // logs: not checked
  },
  {
    id: '10-9',
    input: null,
    expect: { status: 'SUCCEEDED' },
    history: [
      ev(2, 'WaitStarted', { sub: 'Wait', id: '$ID1', details: { Duration: 2 } }),
      ev(3, 'InvocationCompleted', { details: '*' }),
      ev(4, 'WaitSucceeded', { sub: 'Wait', id: '$ID1', details: { Duration: 2 } }),
      ev(5, 'InvocationCompleted', { details: '*' }),
    ],
    // logs: not checked
  },
  {
    id: '10-10',
    input: null,
    expect: { status: 'SUCCEEDED' },
    history: [
      ev(2, 'WaitStarted', { sub: 'Wait', id: '$ID1', details: { Duration: 2 } }),
      ev(3, 'InvocationCompleted', { details: '*' }),
      ev(4, 'WaitSucceeded', { sub: 'Wait', id: '$ID1', details: { Duration: 2 } }),
      ev(5, 'InvocationCompleted', { details: '*' }),
    ],
    // logs: not checked
  },
  {
    id: '10-11',
    vars: { INPUT_1: 'input110x11' },
    input: '{INPUT_1}',
    expect: { status: 'SUCCEEDED', result: 'Hello, {INPUT_1}!' },
    history: [
      ev(2, 'ContextStarted', { sub: 'RunInChildContext', id: '$CTX1', details: '*' }),
      ev(3, 'StepStarted', { sub: 'Step', id: '$STEP1', parent: '$CTX1', details: '*' }),
      ev(4, 'StepSucceeded', { sub: 'Step', id: '$STEP1', parent: '$CTX1', details: { Result: '*' } }),
      ev(5, 'ContextSucceeded', { sub: 'RunInChildContext', id: '$CTX1', details: { Result: '*' } }),
      ev(6, 'InvocationCompleted', { details: '*' }),
    ],
    // logs: not checked
  },
  {
    id: '10-12',
    input: null,
    expect: { status: 'SUCCEEDED', result: ['task-1', 'task-2'] },
    history: [
      ev(2, 'ContextStarted', { sub: 'Parallel', id: '$CTX_P', details: '*' }),
      ev(3, 'ContextStarted', { sub: 'ParallelBranch', id: '$CTX_B1', parent: '$CTX_P', details: '*' }),
      ev(4, 'ContextSucceeded', {
        sub: 'ParallelBranch',
        id: '$CTX_B1',
        parent: '$CTX_P',
        details: { Result: { Payload: '"task-1"' } },
      }),
      ev(5, 'ContextStarted', { sub: 'ParallelBranch', id: '$CTX_B2', parent: '$CTX_P', details: '*' }),
      ev(6, 'ContextSucceeded', {
        sub: 'ParallelBranch',
        id: '$CTX_B2',
        parent: '$CTX_P',
        details: { Result: { Payload: '"task-2"' } },
      }),
      ev(7, 'ContextSucceeded', { sub: 'Parallel', id: '$CTX_P', details: '*' }),
      ev(8, 'InvocationCompleted', { details: '*' }),
    ],
    // logs: not checked
  },
  {
    id: '10-13',
    input: null,
    expect: { status: 'SUCCEEDED', result: 'Operation succeeded' },
    history: [
      ev(2, 'StepStarted', { sub: 'Step', id: '$ID1', details: '*' }),
      ev(3, 'StepSucceeded', { sub: 'Step', id: '$ID1', details: { Result: '*' } }),
      ev(4, 'StepStarted', { sub: 'Step', id: '$ID2', details: '*' }),
      ev(5, 'StepFailed', {
        sub: 'Step',
        id: '$ID2',
        details: { Error: '*', RetryDetails: { CurrentAttempt: 1, NextAttemptDelaySeconds: '*' } },
      }),
      ev(6, 'InvocationCompleted', { details: '*' }),
      ev(7, 'StepStarted', { sub: 'Step', id: '$ID2', details: '*' }),
      ev(8, 'StepSucceeded', {
        sub: 'Step',
        id: '$ID2',
        details: { Result: '*', RetryDetails: { CurrentAttempt: 2 } },
      }),
      ev(9, 'InvocationCompleted', { details: '*' }),
    ],
    // logs: not checked
  },
  {
    id: '10-14',
    input: null,
    expect: { status: 'FAILED' },
    history: [
      ev(2, 'StepStarted', { sub: 'Step', id: '$ID1', details: '*' }),
      ev(3, 'StepSucceeded', { sub: 'Step', id: '$ID1', details: { Result: { Payload: '"task-a"' } } }),
      ev(4, 'StepStarted', { sub: 'Step', id: '$ID2', details: '*' }),
      ev(5, 'StepFailed', {
        sub: 'Step',
        id: '$ID2',
        details: { Error: { Payload: { ErrorMessage: 'boom', ErrorType: '*' } } },
      }),
      ev(6, 'InvocationCompleted', { details: '*' }),
    ],
    // logs: not checked
  },
  {
    id: '10-15',
    input: null,
    expect: { status: 'FAILED' },
    history: [
      ev(2, 'StepStarted', { sub: 'Step', id: '$ID1', details: '*' }),
      ev(3, 'StepFailed', {
        sub: 'Step',
        id: '$ID1',
        details: { Error: { Payload: '*' }, RetryDetails: { CurrentAttempt: 1, NextAttemptDelaySeconds: '*' } },
      }),
      ev(4, 'InvocationCompleted', { details: '*' }),
      ev(5, 'StepStarted', { sub: 'Step', id: '$ID1', details: '*' }),
      ev(6, 'StepFailed', {
        sub: 'Step',
        id: '$ID1',
        details: { Error: { Payload: '*' }, RetryDetails: { CurrentAttempt: 2 } },
      }),
      ev(7, 'InvocationCompleted', { details: '*' }),
    ],
    // logs: not checked
  },
  {
    id: '10-16',
    input: null,
    expect: { status: 'SUCCEEDED' },
    history: [
      ev(2, 'WaitStarted', { sub: 'Wait', id: '$ID1', details: { Duration: 2 } }),
      ev(3, 'InvocationCompleted', { details: '*' }),
      ev(4, 'WaitSucceeded', { sub: 'Wait', id: '$ID1', details: { Duration: 2 } }),
      ev(5, 'InvocationCompleted', { details: '*' }),
    ],
    // logs: not checked
  },
  {
    id: '10-17',
    vars: { INPUT_1: 'input110x17' },
    input: '{INPUT_1}',
    expect: { status: 'SUCCEEDED', result: 'Hello, {INPUT_1}!' },
    history: [
      ev(2, 'StepStarted', { sub: 'Step', id: '$ID1', details: '*' }),
      ev(3, 'StepSucceeded', { sub: 'Step', id: '$ID1', details: { Result: '*' } }),
      ev(4, 'InvocationCompleted', { details: '*' }),
    ],
    // logs: not checked
  },
  {
    id: '10-18',
    input: null,
    expect: { status: 'SUCCEEDED', result: ['short-done', 'long-done'] },
    history: [ev(2, 'ContextStarted', { sub: 'Parallel', id: '$CTX_P', details: '*' })],
    // logs: not checked
  },
  {
    id: '10-19',
    vars: { INPUT_1: 'input110x19' },
    input: '{INPUT_1}',
    expect: { status: 'SUCCEEDED', result: 'done-{INPUT_1}' },
    history: [
      ev(2, 'WaitStarted', { sub: 'Wait', id: '$ID1', details: { Duration: 2 } }),
      ev(3, 'InvocationCompleted', { details: '*' }),
      ev(4, 'WaitSucceeded', { sub: 'Wait', id: '$ID1', details: { Duration: 2 } }),
      ev(5, 'InvocationCompleted', { details: '*' }),
    ],
    // logs: not checked
  },
  {
    id: '10-20',
    input: null,
    expect: { status: 'SUCCEEDED', result: 'task-a' },
    history: [
      ev(2, 'StepStarted', { sub: 'Step', id: '$ID1', details: '*' }),
      ev(3, 'StepSucceeded', { sub: 'Step', id: '$ID1', details: { Result: '*' } }),
      ev(4, 'InvocationCompleted', { details: '*' }),
    ],
    // logs: not checked
  },
  {
    id: '10-21',
    input: null,
    expect: { status: 'SUCCEEDED', result: 'ok' },
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
    // logs: not checked
  },
  {
    id: '10-22',
    input: null,
    expect: { status: 'SUCCEEDED', result: 'task-a' },
    history: [
      ev(2, 'StepStarted', { sub: 'Step', id: '$ID1', details: '*' }),
      ev(3, 'StepSucceeded', { sub: 'Step', id: '$ID1', details: { Result: '*' } }),
      ev(4, 'InvocationCompleted', { details: '*' }),
    ],
    // logs: not checked
  },
  {
    id: '10-23',
    input: null,
    expect: { status: 'SUCCEEDED', result: ['a-done', 'b-done'] },
    history: [ev(2, 'ContextStarted', { sub: 'Parallel', id: '$CTX_P', details: '*' })],
    // logs: not checked
  },
];
