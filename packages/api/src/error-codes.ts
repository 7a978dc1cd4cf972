/**
 * The codes the control API answers with, shared by its server (which gives each a status in
 * `API_ERROR_STATUS`) and its client (which reads them back into a `DurableApiError`).
 */
import { ENGINE_ERROR_CODES, type EngineErrorCode } from '@durable-lambda/engine';
import { PROTOCOL_ERROR_CODES, type ProtocolErrorCode } from '@durable-lambda/protocol';

/**
 * The control API's own codes: what it answers about a request itself (its body, its route, its
 * idempotency key, its transport), beside the engine's and the protocol's codes it passes on.
 */
export const API_ERROR_CODES = [
  'invalid_json',
  'bad_request',
  'not_found',
  'method_not_allowed',
  'unsupported_media_type',
  'request_headers_too_large',
  'payload_not_found',
  'idempotency_in_progress',
  'idempotency_key_reused',
  'export_incomplete',
  'internal_error',
] as const;

/** One of {@link API_ERROR_CODES}. */
export type ApiErrorCode = (typeof API_ERROR_CODES)[number];

/**
 * Every code the control API can answer with: its own, the engine's and the protocol's. Each has
 * a status in `API_ERROR_STATUS`, checked by the type-checker.
 */
export type ControlApiErrorCode = ApiErrorCode | EngineErrorCode | ProtocolErrorCode;

/** Every {@link ControlApiErrorCode}, each once. */
export const CONTROL_API_ERROR_CODES: readonly ControlApiErrorCode[] = [
  ...new Set<ControlApiErrorCode>([...API_ERROR_CODES, ...ENGINE_ERROR_CODES, ...PROTOCOL_ERROR_CODES]),
];

/** Whether `code` is one the control API answers with. */
export function isControlApiErrorCode(code: unknown): code is ControlApiErrorCode {
  return typeof code === 'string' && (CONTROL_API_ERROR_CODES as readonly string[]).includes(code);
}
