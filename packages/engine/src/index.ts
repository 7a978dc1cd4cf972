/**
 * `@durable-lambda/engine`: the server side of the checkpoint protocol, on three ports
 * (`Store`, `Waker`, `Invoker`) that adapters implement.
 */
export { Engine, EXECUTION_OPERATION_ID, isWakeEvent, wakeEvent } from './engine';
export type { EngineOptions, StartRunRequest, WakeEvent } from './engine';
export { EngineSession } from './session';
export { MemoryStore, applyPatch } from './memory-store';
export { applyUpdate, settleDue, nextDue } from './transitions';
export type { UpdateLimits } from './transitions';
export { runIdFor } from './run-ids';
export { RunKeyConflictError, RunNotFoundError, EngineInputError } from './errors';
export { systemClock } from './ports';
export type { Clock, Invoker, LeaseGrant, RunPatch, RunRecord, RunStatus, Store, WakeRequest, Waker } from './ports';
