import * as timers from 'node:timers';
import type { RunRecord } from '@durable-lambda/engine';

// Taken at load, so a test that fakes timers later cannot stall the driver.
const { setTimeout: realSetTimeout, clearTimeout: realClearTimeout } = timers;

/** Real time an invocation must have run before other runs' due invocations go on beside it. */
export const BESIDE_AFTER_MS = 500;

/**
 * Runs `invocation` to its end; while it runs long (a step that takes real time), other runs'
 * due invocations go on beside it, one after another, as Lambda runs them at once: a parent
 * whose long step keeps its invocation open sees the child runs it invoked finish meanwhile
 * (AWS's force-checkpointing examples end in one invocation). Invocations that end within
 * {@link BESIDE_AFTER_MS} keep the driver's one-at-a-time order.
 */
export async function invokeWithOthersBeside(
  invocation: Promise<void>,
  nextDue: () => RunRecord | undefined,
  invoke: (run: RunRecord) => Promise<void>,
): Promise<void> {
  let ended = false;
  const settled = invocation.then(
    () => {
      ended = true;
    },
    () => {
      ended = true;
    },
  );
  while (!ended) {
    let timer: ReturnType<typeof realSetTimeout> | undefined;
    await Promise.race([settled, new Promise<void>((resolve) => (timer = realSetTimeout(resolve, BESIDE_AFTER_MS)))]);
    realClearTimeout(timer);
    if (ended) break;
    const other = nextDue();
    if (other) await invoke(other);
  }
  await invocation;
}
