/** The store's gate methods, or an error naming what is missing. */
import type { Store } from '../ports';

/** `store`'s register methods (`throttle`, `rateLimit`, `debounce`), bound. */
export function gateStore(store: Store): Required<Pick<Store, 'readGate' | 'writeGate'>> {
  const { readGate, writeGate } = store;
  if (!readGate || !writeGate) {
    throw new Error(
      'durable-lambda: this store keeps no flow-control registers (throttle, rateLimit and debounce need readGate and writeGate)',
    );
  }
  return { readGate: readGate.bind(store), writeGate: writeGate.bind(store) };
}
