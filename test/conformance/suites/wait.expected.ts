/**
 * The wait suite's expectations, in our notation (see `../harness/requirement.ts`), transcribed
 * from AWS's conformance requirements; the handlers are in `wait.handlers.ts`.
 */
import { type Expectation, ev } from '../harness/requirement';

export const WAIT_EXPECTATIONS: Expectation[] = [
  {
    id: '2-1',
    input: null,
    expect: { status: 'SUCCEEDED' },
    history: [
      ev(2, 'WaitStarted', { sub: 'Wait', id: '$ID1', details: { Duration: 2 } }),
      ev(3, 'InvocationCompleted', { details: '*' }),
      ev(4, 'WaitSucceeded', { sub: 'Wait', id: '$ID1', details: { Duration: 2 } }),
      ev(5, 'InvocationCompleted', { details: '*' }),
    ],
  },
  {
    id: '2-2',
    input: null,
    expect: { status: 'SUCCEEDED' },
    history: [
      ev(2, 'WaitStarted', { sub: 'Wait', id: '$ID1', name: 'custom_wait_name', details: { Duration: 2 } }),
      ev(3, 'InvocationCompleted', { details: '*' }),
      ev(4, 'WaitSucceeded', { sub: 'Wait', id: '$ID1', name: 'custom_wait_name', details: { Duration: 2 } }),
      ev(5, 'InvocationCompleted', { details: '*' }),
    ],
  },
  {
    id: '2-3',
    input: null,
    expect: { status: 'SUCCEEDED', result: { completedWaits: 2 } },
    history: [
      ev(2, 'WaitStarted', { sub: 'Wait', id: '$ID1', name: 'wait-1', details: { Duration: 2 } }),
      ev(3, 'InvocationCompleted', { details: '*' }),
      ev(4, 'WaitSucceeded', { sub: 'Wait', id: '$ID1', name: 'wait-1', details: { Duration: 2 } }),
      ev(5, 'WaitStarted', { sub: 'Wait', id: '$ID2', name: 'wait-2', details: { Duration: 2 } }),
      ev(6, 'InvocationCompleted', { details: '*' }),
      ev(7, 'WaitSucceeded', { sub: 'Wait', id: '$ID2', name: 'wait-2', details: { Duration: 2 } }),
      ev(8, 'InvocationCompleted', { details: '*' }),
    ],
  },
  {
    id: '2-4',
    input: null,
    history: [
      ev(2, 'WaitStarted', { sub: 'Wait', id: '$ID1', details: { Duration: 60 } }),
      ev(3, 'InvocationCompleted', { details: '*' }),
    ],
  },
  {
    id: '2-5',
    input: null,
    history: [
      ev(2, 'WaitStarted', { sub: 'Wait', id: '$ID1', details: { Duration: 3600 } }),
      ev(3, 'InvocationCompleted', { details: '*' }),
    ],
  },
];
