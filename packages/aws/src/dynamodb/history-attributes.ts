/**
 * Where the run item keeps its history's order (issue 23, `history-order.ts` in the engine): the
 * count of events its invocations recorded (`hq`), its latest ended invocations (`hv`), and, in
 * each inline operation's text, the places of its events (`encodeOrder`, folded into the status).
 * Every write of the run item pays for every byte of it (issue 21), so each is a few bytes of text.
 */
import type { HistoryInvocation } from '@durable-lambda/engine';

/** Run-item attribute: `RunRecord.historySeq`. */
export const HISTORY_SEQ = 'hq';
/** Run-item attribute: `RunRecord.historyInvocations`, as {@link encodeInvocations} writes them. */
export const HISTORY_INVOCATIONS = 'hv';

const b36 = (n: number) => n.toString(36);
/** Places are whole numbers, or a whole number and a half or three quarters (`history-order.ts`). */
const SCALE = 4;

/**
 * The invocations as text: one entry each, separated by spaces, `<start>.<duration>.<place>` in
 * base 36 (ms; the first entry's start since the epoch, each later one's since the start before).
 * Two invocations of a run an hour apart: ~25 bytes.
 */
export function encodeInvocations(invocations: readonly HistoryInvocation[]): string {
  let previous = 0;
  return invocations
    .map((inv) => {
      const entry = `${b36(inv.startedAt - previous)}.${b36(inv.endedAt - inv.startedAt)}.${b36(inv.order)}`;
      previous = inv.startedAt;
      return entry;
    })
    .join(' ');
}

/** The invocations of {@link encodeInvocations}' text (anything unreadable left out). */
export function decodeInvocations(text: unknown): HistoryInvocation[] | undefined {
  if (typeof text !== 'string') return undefined;
  const out: HistoryInvocation[] = [];
  let previous = 0;
  for (const entry of text.split(' ')) {
    const [start, duration, order] = entry.split('.').map((part) => Number.parseInt(part, 36));
    if (start === undefined || duration === undefined || order === undefined) continue;
    if (Number.isNaN(start) || Number.isNaN(duration) || Number.isNaN(order)) continue;
    const startedAt = previous + start;
    out.push({ startedAt, endedAt: startedAt + duration, order });
    previous = startedAt;
  }
  return out;
}

/**
 * An operation's `HistoryOrder` as text, folded after its one-letter status: the places times four
 * (an outside event's `n + 0.5` or `n + 0.75` becomes a whole number), the first in base 36, each
 * later one as its step from the one before, empty for the common step of one place. A step that
 * started at 4 and succeeded at 5: `g.`, two bytes. Only lowercase base-36 digits, `.` and `-`:
 * never mistaken for a status.
 */
export function encodeOrder(order: readonly number[]): string {
  let previous: number | undefined;
  return order
    .map((place) => {
      const scaled = Math.round(place * SCALE);
      const token = previous === undefined ? b36(scaled) : scaled - previous === SCALE ? '' : b36(scaled - previous);
      previous = scaled;
      return token;
    })
    .join('.');
}

/** The places of {@link encodeOrder}'s text; undefined when it is not such a text. */
export function decodeOrder(text: string): number[] | undefined {
  if (!/^-?[0-9a-z]+(\.-?[0-9a-z]*)*$/.test(text)) return undefined;
  const out: number[] = [];
  let previous = 0;
  for (const [index, token] of text.split('.').entries()) {
    const scaled =
      index === 0 ? Number.parseInt(token, 36) : previous + (token === '' ? SCALE : Number.parseInt(token, 36));
    out.push(scaled / SCALE);
    previous = scaled;
  }
  return out;
}
