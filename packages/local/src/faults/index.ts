/** Seeded fault injection: the plan and the decorators over the engine's ports and invocations. */

export type { FaultKind, FaultOptions, FaultProbabilities, FaultRecord, FaultSite } from './fault-plan';
export { DEFAULT_FAULT_PROBABILITY, describeFaults, FAULT_KINDS, FaultPlan } from './fault-plan';
export { FaultScope } from './fault-scope';
export { FaultyInvoker, FaultyWaker } from './faulty-delivery';
export type { InvocationFaultHooks } from './faulty-invocation';
export { FaultyInvocation } from './faulty-invocation';
export type { FaultyStoreHooks } from './faulty-store';
export { FaultyStore } from './faulty-store';
export type { InjectedFaultCode } from './injected-errors';
export {
  InjectedFaultError,
  InjectedLostResponseError,
  InjectedThrottlingError,
  isInjectedFault,
} from './injected-errors';
export { keyedRandom, mulberry32 } from './seeded-random';
