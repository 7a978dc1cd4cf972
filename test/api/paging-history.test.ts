import { MemoryStore } from '@durable-lambda/engine';
import { describeHistoryPaging, pagingWorld } from './paging-suite';

describeHistoryPaging(
  'MemoryStore',
  async () => {
    const clock = { now: () => Date.UTC(2026, 0, 1) };
    return pagingWorld(new MemoryStore(clock), clock);
  },
  // 10,000 operations. About 4.9 MB of JSON (its quotes escaped): past the 4 MB an answer holding one operation may carry.
  { items: Number(process.env.PAGING_ITEMS ?? 4_999), hugeBytes: 3_500_000, timeoutMs: 120_000 },
);
