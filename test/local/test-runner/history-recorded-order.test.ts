/**
 * The test runner's `getHistoryEvents()` lists a run's events in the order they were recorded
 * (issue 23), in the examples the inferred order got wrong under the virtual clock, where every
 * event of an invocation shares one millisecond.
 */
import { LocalDurableTestRunner } from '@durable-lambda/local';
import { withDurableExecution } from '@durable-lambda/sdk';
import { describe, expect, it } from 'vitest';
import {
  AWAITS_CALLBACK_ORDER,
  awaitsCallback,
  eventLabel,
  MAP_ONE_AT_A_TIME_ORDER,
  mapOneAtATime,
  STEPS_SIDE_BY_SIDE_ORDER,
  stepsSideBySide,
} from '../../support/history-order-cases';

describe('the test runner lists history events in the order they were recorded', () => {
  it('a callback completed after its invocation suspended comes after that invocation ends', async () => {
    const runner = new LocalDurableTestRunner({ handlerFunction: withDurableExecution(awaitsCallback) });
    const running = runner.run({ payload: {} });
    const approval = runner.getOperation('approval');
    // Sent as outside code would (AWS's runner's way), at the virtual millisecond the invocation ended.
    await approval.waitForData();
    await approval.sendCallbackSuccess(JSON.stringify('yes'));
    const result = await running;
    expect(result.getResult()).toBe('"yes"');
    expect(result.getHistoryEvents().map(eventLabel)).toEqual(AWAITS_CALLBACK_ORDER);
  });

  it('a map with maxConcurrency 1 lists its items one after the other, as they ran', async () => {
    const runner = new LocalDurableTestRunner({ handlerFunction: withDurableExecution(mapOneAtATime) });
    const result = await runner.run({ payload: {} });
    expect(result.getResult()).toEqual(['A', 'B']);
    expect(result.getHistoryEvents().map(eventLabel)).toEqual(MAP_ONE_AT_A_TIME_ORDER);
  });

  it('steps started side by side in one millisecond start before either ends', async () => {
    const runner = new LocalDurableTestRunner({ handlerFunction: withDurableExecution(stepsSideBySide) });
    const result = await runner.run({ payload: {} });
    expect(result.getHistoryEvents().map(eventLabel)).toEqual(STEPS_SIDE_BY_SIDE_ORDER);
  });
});
