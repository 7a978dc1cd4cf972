import { SqliteStore } from '@durable-lambda/local';
import { describeSignalSemantics } from './signal-semantics';

describeSignalSemantics('SqliteStore', (clock) => new SqliteStore({ path: ':memory:', clock }));
