import type { Operation } from '@durable-lambda/protocol';
import { PayloadTooLargeError } from './errors';
import type { RunPatch, RunRecord } from './ports';

/** Largest payload one field may hold: Lambda's 6 MB response limit, as in every store. */
export const MAX_PAYLOAD_BYTES = 6 * 1024 * 1024;

/** True when `value` cannot be over the limit, known without measuring it (the hot path). */
function surelyFits(value: unknown): boolean {
  if (value === undefined || value === null || typeof value === 'number' || typeof value === 'boolean') return true;
  // A UTF-16 code unit is at most 3 bytes of UTF-8.
  return typeof value === 'string' && value.length * 3 <= MAX_PAYLOAD_BYTES;
}

function check(field: string, value: unknown): void {
  if (surelyFits(value)) return;
  const bytes = Buffer.byteLength(typeof value === 'string' ? value : (JSON.stringify(value) ?? ''), 'utf8');
  if (bytes > MAX_PAYLOAD_BYTES) throw new PayloadTooLargeError(field, bytes, MAX_PAYLOAD_BYTES);
}

/** Throws `payload_too_large` when a payload of the operation (any `*Details` field) is too big. */
export function checkOperationPayloads(op: Operation): void {
  // for-in, not Object.keys/entries: no arrays allocated for every operation stored (operations
  // are plain objects, so nothing inherited is enumerated).
  for (const key in op) {
    const details = (op as unknown as Record<string, unknown>)[key];
    if (details === null || typeof details !== 'object' || !key.endsWith('Details')) continue;
    for (const name in details) {
      const value = (details as Record<string, unknown>)[name];
      // The field's name is built only when it may be over: this runs on every stored operation.
      if (!surelyFits(value)) check(`operation ${op.Id} ${key}.${name}`, value);
    }
  }
}

/** Throws `payload_too_large` when the run's input, result or error is too big. */
export function checkRunPayloads(run: Partial<RunRecord> | RunPatch): void {
  const fields = run as Partial<RunRecord>;
  check('input', fields.input);
  check('result', fields.result);
  check('error', fields.error);
}
