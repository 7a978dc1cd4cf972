import type { Serdes } from './serdes';

/** Configuration of `invoke` (compat). */
export interface InvokeConfig<TInput, TOutput> {
  /** How the input is stored and sent; JSON by default. */
  payloadSerdes?: Serdes<TInput>;
  /** How the child's result is read; JSON by default. */
  resultSerdes?: Serdes<TOutput>;
  /** Accepted for compatibility; not used by this engine. */
  tenantId?: string;
}
