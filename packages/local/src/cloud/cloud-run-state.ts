import type { InvocationWire, RunWire } from '@durable-lambda/api';
import { type AwsHistoryEvent, toAwsHistoryEvents } from '@durable-lambda/engine';
import type { Operation } from '@durable-lambda/protocol';
import type { CloudCallbacks } from './cloud-callbacks';
import { errorFromWire, payloadText } from './from-wire';
import { historyToOperations, type OperationEvents } from './history-operations';

/**
 * What the cloud runner has seen of its current run, shared by the runner, its operation handles
 * and its result: the run's history as of the latest poll (in the shape of Lambda's
 * `GetDurableExecutionHistory`, built with the engine's own mapping) and the operations rebuilt
 * from it as AWS's cloud runner rebuilds them, and who to tell when they change.
 */
export class CloudRunState {
  run: RunWire | undefined;
  invocations: readonly InvocationWire[] = [];
  /** True once the run being polled has ended (or the polling gave up). */
  ended = false;
  private history: AwsHistoryEvent[] = [];
  private views: OperationEvents[] = [];
  private readonly listeners = new Set<() => void>();

  constructor(
    /** Where callback completions go. */
    readonly callbacks: CloudCallbacks,
  ) {}

  /** Forgets the previous run (handles must not find its operations). */
  clear(): void {
    this.ended = false;
    this.run = undefined;
    this.invocations = [];
    this.history = [];
    this.views = [];
  }

  /** The operations tests see, in the order they first appear in the history: the execution left out. */
  visible(): OperationEvents[] {
    return this.views.filter((view) => view.operation.Type !== 'EXECUTION');
  }

  byId(id: string): OperationEvents | undefined {
    return this.visible().find((view) => view.operation.Id === id);
  }

  children(id: string): OperationEvents[] {
    return this.views.filter((view) => view.operation.ParentId === id);
  }

  /** The run's history events, in order. */
  events(): AwsHistoryEvent[] {
    return this.history;
  }

  /** Takes a poll's answer and tells every listener. */
  update(run: RunWire, operations: readonly Operation[], invocations: readonly InvocationWire[] | undefined): void {
    this.run = run;
    this.invocations = invocations ?? [];
    const error = errorFromWire(run.error);
    const result = run.status === 'SUCCEEDED' ? payloadText(run.result) : undefined;
    this.history = toAwsHistoryEvents(operations, {
      invocations: this.invocations.map((invocation) => ({
        startTimestamp: new Date(invocation.startedAt),
        ...(invocation.endedAt === undefined ? {} : { endTimestamp: new Date(invocation.endedAt) }),
        ...(invocation.historyOrder === undefined ? {} : { order: invocation.historyOrder }),
      })),
      run: { ...(result === undefined ? {} : { result }), ...(error ? { error } : {}) },
      attemptCounting: 'service',
    });
    this.views = historyToOperations(this.history);
    this.notify();
  }

  /** Marks the run as over: listeners still waiting give up. */
  end(): void {
    this.ended = true;
    this.notify();
  }

  /** Calls `listener` after every change; returns a function that stops it. */
  subscribe(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  private notify(): void {
    for (const listener of [...this.listeners]) listener();
  }
}
