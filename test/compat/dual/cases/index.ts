/** Every dual-run case, in the order they run. */
import type { DualCase } from '../harness/case';
import { batchCases } from './batch';
import { callbackCases } from './callbacks';
import { compositionCases } from './composition';
import { handlerSurfaceCases } from './handler-surface';
import { stepCases } from './steps';
import { waitCases } from './waits';

export const DUAL_CASES: readonly DualCase[] = [
  ...stepCases,
  ...waitCases,
  ...callbackCases,
  ...compositionCases,
  ...batchCases,
  ...handlerSurfaceCases,
];
