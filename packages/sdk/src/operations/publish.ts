import { MAX_PUBLISHED_STATE_BYTES } from '@durable-lambda/protocol';
import type { Scope } from '../context/scope';
import { describe } from '../duration';
import { InvalidArgumentError } from '../errors/invalid-argument';
import { defaultSerdes } from '../serdes/checked';
import { passedPosition } from './patch';

/**
 * `context.publish(state)`: hands `state`, as JSON, to the invocation, which writes it with its
 * next write (a checkpoint or the invocation's end), so a publish costs no write of its own.
 *
 * Replay-safe: a publish made while the invocation replays (or rebuilds a finished context), or in
 * a branch that has recorded operations past it, is at a point the run already passed, and is
 * not sent: the stored state was written at that point or
 * later, so sending it again could only move the state back (a publish before a child context
 * whose stored result skips its body would otherwise overwrite the one inside it). A publish is
 * live only past every operation the run had recorded, so live publishes reach the backend in
 * the order the run made them and the stored state only ever moves forward. A publish lost with
 * its invocation (it died before any write) lies past every recorded operation too: the replay
 * that reaches it makes it live again.
 *
 * Always JSON (the default serdes, not the context's): readers outside the run (the API, the CLI,
 * the dashboard) parse it without the handler's code.
 */
export function runPublish(scope: Scope, args: readonly unknown[]): void {
  if (args.length !== 1) throw new InvalidArgumentError('publish', 'takes (state) only');
  const [value] = args;
  if (value === undefined) throw new InvalidArgumentError('state', 'must be a JSON value, got undefined');
  let data: string | undefined;
  try {
    data = defaultSerdes.serialize(value, { entityId: 'published', durableExecutionArn: '' }) as string | undefined;
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    throw new InvalidArgumentError('state', `must be JSON-serializable: ${reason}`);
  }
  if (typeof data !== 'string') throw new InvalidArgumentError('state', `must be a JSON value, got ${describe(value)}`);
  const bytes = Buffer.byteLength(data, 'utf8');
  if (bytes > MAX_PUBLISHED_STATE_BYTES) {
    throw new InvalidArgumentError(
      'state',
      `serializes to ${bytes} bytes of JSON; a published state may take at most ${MAX_PUBLISHED_STATE_BYTES}`,
    );
  }
  const runtime = scope.runtime;
  const invocation = runtime.invocation;
  if (!invocation.publish) {
    throw new InvalidArgumentError('publish', 'the backend running this run keeps no published state');
  }
  // Checked after the state, so a bad state is refused on replay as on the first run.
  if (runtime.replaying || scope.rebuilding || runtime.closed || passedInBranch(scope)) return;
  invocation.publish(data);
}

/**
 * Whether this context already went past this point in an earlier invocation, though the run as a
 * whole left replay: in concurrent branches (parallel, map, un-awaited work) one branch may reach
 * new work while another still walks what it recorded. An operation of this context at the next
 * position or later can only come from an earlier invocation (positions are taken in order), and
 * it was written after this publish was. Only a run that had operations to replay can have one.
 */
function passedInBranch(scope: Scope): boolean {
  if (scope.runtime.invocation.operations.length <= 1) return false;
  return passedPosition(scope, scope.peekId());
}
