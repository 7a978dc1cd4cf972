import { tagsProblem } from '@durable-lambda/protocol';
import type { Scope } from '../context/scope';
import { InvalidArgumentError } from '../errors/invalid-argument';
import { passedPosition } from './patch';

/**
 * `context.tag(tags)`: hands search tags to the invocation, which writes them with its next write
 * (a checkpoint or the invocation's end), as `publish` does. Checked here first (count, key
 * charset, lengths), so a bad tag fails the handler at the call, on every replay alike.
 *
 * Replay-safe like `publish`: a tag made while the invocation replays (or rebuilds a finished
 * context, or walks a branch that recorded work past it) is at a point the run already passed and
 * is not sent, so a later tag of the same key, already stored, is never set back. A tag lost with
 * its invocation (it died before any write) lies past every recorded operation: the replay that
 * reaches it sends it again.
 */
export function runTag(scope: Scope, args: readonly unknown[]): void {
  if (args.length !== 1) throw new InvalidArgumentError('tag', 'takes (tags) only');
  const [tags] = args;
  const problem = tagsProblem(tags);
  if (problem) throw new InvalidArgumentError(problem.field, problem.message);
  const runtime = scope.runtime;
  const invocation = runtime.invocation;
  if (!invocation.tag) throw new InvalidArgumentError('tag', 'the backend running this run keeps no tags');
  if (runtime.replaying || scope.rebuilding || runtime.closed || passedInBranch(scope)) return;
  try {
    invocation.tag({ ...(tags as Record<string, string>) });
  } catch (error) {
    // The backend refuses what it alone can tell (too many tags with those stored): named as here.
    const field = (error as { field?: unknown } | null)?.field;
    if (typeof field === 'string' && error instanceof Error) {
      throw new InvalidArgumentError(field, error.message.replace(`${field}: `, ''));
    }
    throw error;
  }
}

/** As `publish`'s: this context already went past this point in an earlier invocation. */
function passedInBranch(scope: Scope): boolean {
  if (scope.runtime.invocation.operations.length <= 1) return false;
  return passedPosition(scope, scope.peekId());
}
