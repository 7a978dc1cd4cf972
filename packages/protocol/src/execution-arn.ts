import { incarnationId } from './run-incarnation';

/**
 * Lambda's ARN shape for one run (AWS's `…:function:<name>/durable-execution/<name>/<id>`), with
 * a fixed region and account: a self-hosted run is not a Lambda resource, but code written for
 * AWS's SDK reads, logs and parses `durableExecutionArn` as an ARN, and AWS's conformance
 * requirements expect one. Our SDK, AWS's SDK over our transport, the Lambda-shaped routes and the
 * recorded history all name a run by this one form.
 */
const ARN_PREFIX = 'arn:aws:lambda:local:000000000000:function:';
const ARN_MARK = '/durable-execution/';

/**
 * The execution ARN of one creation of a run: `…/durable-execution/<runId>`, and for a run with
 * an incarnation (its id came from a key) `…/durable-execution/<runId>/<incarnation>`, so a run
 * created again under an expired key has another ARN, as a Lambda execution name used again does.
 */
export function executionArn(functionName: string, runId: string, incarnation?: string): string {
  const execution = incarnation === undefined ? runId : `${runId}/${incarnation}`;
  return `${ARN_PREFIX}${functionName}${ARN_MARK}${execution}`;
}

/**
 * The run (and incarnation, when named) of an execution ARN made by {@link executionArn}. A value
 * without the ARN's mark is taken as an {@link incarnationId} (`<runId>[.<incarnation>]`), the form
 * runs were named by before. Undefined when it names no run.
 */
export function executionOfArn(arn: string): { runId: string; incarnation?: string } | undefined {
  const at = arn.indexOf(ARN_MARK);
  if (at === -1) {
    const dot = arn.lastIndexOf('.');
    if (dot > 0 && /^[0-9a-z]+$/.test(arn.slice(dot + 1))) {
      return { runId: arn.slice(0, dot), incarnation: arn.slice(dot + 1) };
    }
    return arn === '' ? undefined : { runId: arn };
  }
  const rest = arn.slice(at + ARN_MARK.length);
  const slash = rest.indexOf('/');
  const runId = slash === -1 ? rest : rest.slice(0, slash);
  if (runId === '') return undefined;
  const incarnation = slash === -1 ? '' : rest.slice(slash + 1);
  return incarnation === '' ? { runId } : { runId, incarnation };
}

/** The {@link incarnationId} an execution ARN names, or the value itself when it names no run. */
export function incarnationIdOfArn(arn: string): string {
  const execution = executionOfArn(arn);
  return execution ? incarnationId(execution.runId, execution.incarnation) : arn;
}
