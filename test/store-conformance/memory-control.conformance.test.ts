import { MemoryStore } from '@durable-lambda/engine';
import { T0 } from './conformance';
import { describeControlConformance } from './control-conformance';
import { describePinRunConformance } from './pin-run-conformance';

async function setup() {
  let t = T0;
  const clock = {
    now: () => t,
    set: (next: number) => {
      t = next;
    },
  };
  return { store: new MemoryStore(clock), clock };
}

describeControlConformance('MemoryStore', setup);
describePinRunConformance('MemoryStore', setup);
