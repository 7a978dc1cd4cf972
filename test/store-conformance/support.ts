/**
 * What the store suites (`conformance.ts`, `control-conformance.ts`) share beyond their fixtures.
 */
import { it } from 'vitest';
import type { ConformanceOptions } from './conformance';

/**
 * The suites' `it`: a test named in `options.knownDeviations` runs as `it.fails`, so one helper
 * decides, for every suite alike, how a store's known deviation shows.
 */
export function conformanceTest(
  options: ConformanceOptions,
): (title: string, body: () => Promise<void>, timeout?: number) => void {
  const known = new Set(options.knownDeviations ?? []);
  return (title, body, timeout) => (known.has(title) ? it.fails : it)(title, body, timeout);
}
