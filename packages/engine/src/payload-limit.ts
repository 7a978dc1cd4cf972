import type { Operation } from '@durable-lambda/protocol';
import { PayloadTooLargeError } from './errors';
import type { RunPatch, RunRecord } from './ports';

/** Largest payload one field may hold: Lambda's 6 MB response limit, as in every store. */
export const MAX_PAYLOAD_BYTES = 6 * 1024 * 1024;

function check(field: string, value: unknown): void {
  if (value === undefined || value === null) return;
  const bytes = Buffer.byteLength(typeof value === 'string' ? value : (JSON.stringify(value) ?? ''), 'utf8');
  if (bytes > MAX_PAYLOAD_BYTES) throw new PayloadTooLargeError(field, bytes, MAX_PAYLOAD_BYTES);
}

/** Throws `payload_too_large` when a payload of the operation (any `*Details` field) is too big. */
export function checkOperationPayloads(op: Operation): void {
  for (const [key, details] of Object.entries(op)) {
    if (!key.endsWith('Details') || details === null || typeof details !== 'object') continue;
    for (const [name, value] of Object.entries(details as Record<string, unknown>)) {
      check(`operation ${op.Id} ${key}.${name}`, value);
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
