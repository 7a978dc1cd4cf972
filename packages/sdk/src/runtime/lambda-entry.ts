/**
 * The one Lambda entry of a durable function: how a Lambda event becomes an opened invocation,
 * runs, and ends. Shared by our SDK's `withDurableExecution` and `@durable-lambda/aws`'s
 * `selfHosted` (AWS's own SDK self-hosted): they differ only in what runs the opened invocation.
 */
import {
  type DurableBackend,
  FencedError,
  type LambdaContextLike,
  type OpenedInvocation,
} from '@durable-lambda/protocol';
import type { BackendFactory } from './backend-registry';
import type { InvocationResult } from './invocation-runtime';

/** A backend, or how to get one (called once per container, again after a failure). */
export type BackendSource = DurableBackend | BackendFactory;

/**
 * The backend of one Lambda handler, loaded at its first invocation and kept for the container's
 * life. Made by {@link backendLoader}.
 */
export type BackendLoader = () => Promise<DurableBackend>;

/** Runs one opened invocation to its explicit end. */
export type RunOpenedInvocation = (opened: OpenedInvocation) => Promise<InvocationResult>;

/**
 * A {@link BackendLoader} over `resolve` (which picks the source: the handler's own, the
 * registered one, ...). The backend is loaded once per container; a failed load is not kept, so
 * the next invocation on this warm container tries again.
 */
export function backendLoader(resolve: () => BackendSource): BackendLoader {
  let backend: Promise<DurableBackend> | undefined;
  return () => {
    backend ??= (async () => {
      const source = resolve();
      return typeof source === 'function' ? source() : source;
    })().catch((error: unknown) => {
      backend = undefined;
      throw error;
    });
    return backend;
  };
}

/**
 * Serves one Lambda event: loads the backend (once per container), opens the event (a duplicate,
 * early or foreign event is answered without running; an SQS batch is answered with its
 * `batchItemFailures`), runs the opened invocation with `run`, and finishes it
 * ({@link finishOpened}: closed, `STOPPED` when a newer invocation owns the run, or aborted and
 * rethrown on an infrastructure fault so Lambda retries the event).
 */
export async function serveLambdaEvent(
  backend: BackendLoader,
  event: unknown,
  context: LambdaContextLike,
  run: RunOpenedInvocation,
): Promise<unknown> {
  const opened = await (await backend()).open(event, context);
  if (!opened.opened) return opened.response;
  return finishOpened(opened.opened, await run(opened.opened));
}

/** What a Lambda invocation answers when a newer invocation owns its run. */
const STOPPED = { Status: 'STOPPED', reason: 'a newer invocation owns this run' } as const;

/** Hands an invocation's explicit result to its backend. */
export async function finishOpened(opened: OpenedInvocation, result: InvocationResult): Promise<unknown> {
  switch (result.type) {
    case 'completed':
      try {
        return await opened.close(result.output);
      } catch (error) {
        // The write recording the end was fenced (it may carry the last updates): a newer
        // invocation owns the run, so this one stops quietly, as when a checkpoint is fenced.
        if (error instanceof FencedError) return STOPPED;
        throw error;
      }
    case 'fenced':
      return STOPPED;
    case 'fault':
      await opened.abort(result.error);
      throw result.error;
  }
}
