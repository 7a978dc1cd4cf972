/**
 * The invoke suite's expectations, in our notation (see `../harness/requirement.ts`), transcribed
 * from AWS's conformance requirements; the handlers are in `invoke.handlers.ts`.
 */
import { type Expectation, ev } from '../harness/requirement';

export const INVOKE_EXPECTATIONS: Expectation[] = [
  {
    id: '5-1',
    vars: { INPUT_1: 'input15x1' },
    input: '{INPUT_1}',
    expect: { status: 'SUCCEEDED' },
    history: [
      ev(2, 'ChainedInvokeStarted', {
        id: '$ID1',
        details: {
          FunctionName: '*',
          Input: { Payload: '"{INPUT_1}"' },
          ExecutedVersion: '*',
          DurableExecutionArn: '*',
        },
      }),
      ev(3, 'InvocationCompleted', { details: '*' }),
      ev(4, 'ChainedInvokeSucceeded', { id: '$ID1', details: { Result: { Payload: '"{INPUT_1}"' } } }),
      ev(5, 'InvocationCompleted', { details: '*' }),
    ],
  },
  {
    id: '5-2',
    vars: { INPUT_1: 'input15x2', NAME_1: 'name15x2' },
    input: { name: '{NAME_1}', payload: '{INPUT_1}' },
    expect: { status: 'SUCCEEDED' },
    history: [
      ev(2, 'ChainedInvokeStarted', {
        id: '$ID1',
        name: '$NAME_1',
        details: {
          FunctionName: '*',
          Input: { Payload: '"{INPUT_1}"' },
          ExecutedVersion: '*',
          DurableExecutionArn: '*',
        },
      }),
      ev(3, 'InvocationCompleted', { details: '*' }),
      ev(4, 'ChainedInvokeSucceeded', {
        id: '$ID1',
        name: '$NAME_1',
        details: { Result: { Payload: '"{INPUT_1}"' } },
      }),
      ev(5, 'InvocationCompleted', { details: '*' }),
    ],
  },
  {
    id: '5-3',
    input: { nested: { key: 'value', items: [1, 2, 3] }, source: 'test' },
    expect: { status: 'SUCCEEDED' },
    history: [
      ev(2, 'ChainedInvokeStarted', {
        id: '$ID1',
        details: { FunctionName: '*', Input: { Payload: '*' }, ExecutedVersion: '*', DurableExecutionArn: '*' },
      }),
      ev(3, 'InvocationCompleted', { details: '*' }),
      ev(4, 'ChainedInvokeSucceeded', { id: '$ID1', details: { Result: { Payload: '*' } } }),
      ev(5, 'InvocationCompleted', { details: '*' }),
    ],
  },
  {
    id: '5-4',
    input: null,
    expect: { status: 'SUCCEEDED' },
    history: [
      ev(2, 'ChainedInvokeStarted', {
        id: '$ID1',
        details: { FunctionName: '*', Input: '*', ExecutedVersion: '*', DurableExecutionArn: '*' },
      }),
      ev(3, 'InvocationCompleted', { details: '*' }),
      ev(4, 'ChainedInvokeSucceeded', { id: '$ID1', details: { Result: '*' } }),
      ev(5, 'InvocationCompleted', { details: '*' }),
    ],
  },
  {
    id: '5-5',
    input: null,
    expect: { status: 'FAILED' },
    history: [
      ev(2, 'ChainedInvokeStarted', {
        id: '$ID1',
        details: { FunctionName: '*', Input: '*', ExecutedVersion: '*', DurableExecutionArn: '*' },
      }),
      ev(3, 'InvocationCompleted', { details: '*' }),
      ev(4, 'ChainedInvokeFailed', { id: '$ID1', details: { Error: '*' } }),
      ev(5, 'InvocationCompleted', { details: '*' }),
    ],
  },
  {
    id: '5-6',
    input: null,
    expect: { status: 'SUCCEEDED' },
    history: [
      ev(2, 'ChainedInvokeStarted', {
        id: '$ID1',
        details: { FunctionName: '*', Input: '*', ExecutedVersion: '*', DurableExecutionArn: '*' },
      }),
      ev(3, 'InvocationCompleted', { details: '*' }),
      ev(4, 'ChainedInvokeFailed', { id: '$ID1', details: { Error: '*' } }),
      ev(5, 'InvocationCompleted', { details: '*' }),
    ],
  },
  {
    id: '5-7',
    input: null,
    expect: { status: 'SUCCEEDED' },
    history: [
      ev(2, 'ChainedInvokeStarted', {
        id: '$ID1',
        details: { FunctionName: '*', Input: { Payload: '*' }, ExecutedVersion: '*', DurableExecutionArn: '*' },
      }),
      ev(3, 'InvocationCompleted', { details: '*' }),
      ev(4, 'ChainedInvokeSucceeded', { id: '$ID1', details: { Result: { Payload: '*' } } }),
      ev(5, 'InvocationCompleted', { details: '*' }),
    ],
  },
  {
    id: '5-8',
    vars: { TENANT_ID: 'tenantid5x8', PAYLOAD: 'payload5x8' },
    input: { tenantId: '{TENANT_ID}', payload: '{PAYLOAD}' },
    expect: { status: 'SUCCEEDED' },
    history: [
      ev(2, 'ChainedInvokeStarted', {
        id: '$ID1',
        details: {
          FunctionName: '*',
          TenantId: '$TENANT_ID',
          Input: { Payload: '"{PAYLOAD}"' },
          ExecutedVersion: '*',
          DurableExecutionArn: '*',
        },
      }),
      ev(3, 'InvocationCompleted', { details: '*' }),
      ev(4, 'ChainedInvokeSucceeded', { id: '$ID1', details: { Result: { Payload: '"{PAYLOAD}"' } } }),
      ev(5, 'InvocationCompleted', { details: '*' }),
    ],
  },
  {
    id: '5-9',
    input: null,
    expect: { status: 'SUCCEEDED' },
    history: [
      ev(2, 'ChainedInvokeStarted', {
        id: '$ID1',
        details: { FunctionName: '*', Input: '*', ExecutedVersion: '*', DurableExecutionArn: '*' },
      }),
      ev(3, 'InvocationCompleted', { details: '*' }),
      ev(4, 'ChainedInvokeSucceeded', { id: '$ID1', details: { Result: '*' } }),
      ev(5, 'WaitStarted', { id: '$ID2', details: { Duration: '*' } }),
      ev(6, 'InvocationCompleted', { details: '*' }),
      ev(7, 'WaitSucceeded', { id: '$ID2', details: { Duration: '*' } }),
      ev(8, 'InvocationCompleted', { details: '*' }),
    ],
  },
  {
    id: '5-10',
    input: null,
    expect: { status: 'SUCCEEDED' },
    history: [
      ev(2, 'ChainedInvokeStarted', {
        id: '$ID1',
        details: { FunctionName: '*', Input: '*', ExecutedVersion: '*', DurableExecutionArn: '*' },
      }),
      ev(3, 'InvocationCompleted', { details: '*' }),
      ev(4, 'ChainedInvokeFailed', { id: '$ID1', details: { Error: '*' } }),
      ev(5, 'WaitStarted', { id: '$ID2', details: { Duration: 1 } }),
      ev(6, 'InvocationCompleted', { details: '*' }),
      ev(7, 'WaitSucceeded', { id: '$ID2', details: { Duration: 1 } }),
      ev(8, 'InvocationCompleted', { details: '*' }),
    ],
  },
  {
    id: '5-11',
    input: null,
    expect: { status: 'SUCCEEDED' },
    history: [
      ev(2, 'StepStarted', { id: '$STEP1', details: '*' }),
      ev(3, 'StepSucceeded', { id: '$STEP1', details: '*' }),
      ev(4, 'ChainedInvokeStarted', {
        id: '$ID1',
        details: { FunctionName: '*', Input: '*', ExecutedVersion: '*', DurableExecutionArn: '*' },
      }),
      ev(5, 'InvocationCompleted', { details: '*' }),
      ev(6, 'ChainedInvokeSucceeded', { id: '$ID1', details: { Result: '*' } }),
      ev(7, 'InvocationCompleted', { details: '*' }),
    ],
  },
  {
    id: '5-12',
    input: null,
    expect: { status: 'SUCCEEDED' },
    history: [
      ev(2, 'ChainedInvokeStarted', {
        id: '$ID1',
        details: { FunctionName: '*', Input: '*', ExecutedVersion: '*', DurableExecutionArn: '*' },
      }),
      ev(3, 'InvocationCompleted', { details: '*' }),
      ev(4, 'ChainedInvokeSucceeded', { id: '$ID1', details: { Result: '*' } }),
      ev(5, 'StepStarted', { id: '$STEP1', details: '*' }),
      ev(6, 'StepSucceeded', { id: '$STEP1', details: '*' }),
      ev(7, 'InvocationCompleted', { details: '*' }),
    ],
  },
  {
    id: '5-13',
    input: null,
    expect: { status: 'SUCCEEDED' },
    history: [
      ev(2, 'ContextStarted', { id: '$CTX1', details: '*' }),
      ev(3, 'ChainedInvokeStarted', {
        id: '$ID1',
        parent: '$CTX1',
        details: { FunctionName: '*', Input: '*', ExecutedVersion: '*', DurableExecutionArn: '*' },
      }),
      ev(4, 'InvocationCompleted', { details: '*' }),
      ev(5, 'ChainedInvokeSucceeded', { id: '$ID1', parent: '$CTX1', details: { Result: '*' } }),
      ev(6, 'ContextSucceeded', { id: '$CTX1', details: { Result: '*' } }),
      ev(7, 'InvocationCompleted', { details: '*' }),
    ],
  },
  {
    id: '5-14',
    input: null,
    expect: { status: 'SUCCEEDED' },
    history: [
      ev(2, 'ChainedInvokeStarted', {
        id: '$ID1',
        details: { FunctionName: '*', Input: '*', ExecutedVersion: '*', DurableExecutionArn: '*' },
      }),
      ev(3, 'InvocationCompleted', { details: '*' }),
      ev(4, 'ChainedInvokeSucceeded', { id: '$ID1', details: { Result: '*' } }),
      ev(5, 'ChainedInvokeStarted', {
        id: '$ID2',
        details: { FunctionName: '*', Input: '*', ExecutedVersion: '*', DurableExecutionArn: '*' },
      }),
      ev(6, 'InvocationCompleted', { details: '*' }),
      ev(7, 'ChainedInvokeSucceeded', { id: '$ID2', details: { Result: '*' } }),
      ev(8, 'InvocationCompleted', { details: '*' }),
    ],
  },
  {
    id: '5-15',
    input: { data: 'hello' },
    expect: { status: 'SUCCEEDED' },
    history: [
      ev(2, 'ChainedInvokeStarted', {
        id: '$ID1',
        details: { FunctionName: '*', Input: { Payload: '*' }, ExecutedVersion: '*', DurableExecutionArn: '*' },
      }),
      ev(3, 'InvocationCompleted', { details: '*' }),
      ev(4, 'ChainedInvokeSucceeded', { id: '$ID1', details: { Result: { Payload: '*' } } }),
      ev(5, 'InvocationCompleted', { details: '*' }),
    ],
  },
  {
    id: '5-16',
    input: 'hello',
    expect: { status: 'SUCCEEDED', result: '"HELLO"' },
    history: [
      ev(2, 'ChainedInvokeStarted', {
        id: '$ID1',
        details: { FunctionName: '*', Input: { Payload: '"hello"' }, ExecutedVersion: '*', DurableExecutionArn: '*' },
      }),
      ev(3, 'InvocationCompleted', { details: '*' }),
      ev(4, 'ChainedInvokeSucceeded', { id: '$ID1', details: { Result: { Payload: '"hello"' } } }),
      ev(5, 'InvocationCompleted', { details: '*' }),
    ],
  },
];
