import { MemoryStore } from '@durable-lambda/engine';
import { conformanceClock, describeStoreConformance } from './conformance';

describeStoreConformance('MemoryStore', async () => {
  const clock = conformanceClock();
  return { store: new MemoryStore(clock), clock };
});
