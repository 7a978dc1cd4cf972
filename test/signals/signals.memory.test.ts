import { MemoryStore } from '@durable-lambda/engine';
import { describeSignalSemantics } from './signal-semantics';

describeSignalSemantics('MemoryStore', (clock) => new MemoryStore(clock));
