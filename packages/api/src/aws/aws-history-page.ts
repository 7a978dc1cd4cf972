/**
 * Paging of the Lambda-shaped `GetDurableExecutionHistory`: Lambda's `Marker`/`MaxItems`/
 * `NextMarker`, plus a byte budget so that no page passes Lambda's response limit. A payload too
 * big for a page is dropped from its event with `Truncated: true`, as Lambda's own history marks
 * a payload cut for size; the control API's payload routes read it whole.
 */
import { PAGE_BUDGET_BYTES, travelBytes } from '../server/page-budget';

/** Largest payload an event keeps, bytes as it travels (a quarter of the page). */
const MAX_EVENT_PAYLOAD_BYTES = PAGE_BUDGET_BYTES / 4;

/** The event with every `Payload` (of its `*Details` results, errors and inputs) too big for a page dropped. */
export function truncateEventPayloads<T>(event: T): T {
  const walk = (value: unknown): unknown => {
    if (value === null || typeof value !== 'object' || value instanceof Date) return value;
    if (Array.isArray(value)) return value.map(walk);
    const record = value as Record<string, unknown>;
    const out: Record<string, unknown> = {};
    for (const [key, inner] of Object.entries(record)) out[key] = walk(inner);
    if ('Payload' in record && record.Payload !== undefined && travelBytes(record.Payload) > MAX_EVENT_PAYLOAD_BYTES) {
      delete out.Payload;
      out.Truncated = true;
    }
    return out;
  };
  return walk(event) as T;
}

/**
 * The page of `events` from `start`: at most `max`, and no more than fit the byte budget (at least
 * one, its payloads truncated to fit); `next` is the position after it, when events remain.
 */
export function awsHistoryPage<T>(events: readonly T[], start: number, max: number): { page: T[]; next?: number } {
  const page: T[] = [];
  let used = 512;
  let at = start;
  while (at < events.length && page.length < max) {
    const event = truncateEventPayloads(events[at] as T);
    const bytes = travelBytes(event) + 1;
    if (page.length > 0 && used + bytes > PAGE_BUDGET_BYTES) break;
    page.push(event);
    used += bytes;
    at += 1;
  }
  return at < events.length ? { page, next: at } : { page };
}
