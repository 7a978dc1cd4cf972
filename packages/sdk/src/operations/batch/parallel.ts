import { parseName } from '../../config';
import type { Scope } from '../../context/scope';
import { describe } from '../../duration';
import { InvalidArgumentError } from '../../errors/invalid-argument';
import type { BatchResult } from '../../types/batch';
import type { NamedParallelBranch, ParallelFunction } from '../../types/durable-context';
import { splitNamed } from '../arguments';
import { BATCH_CONFIG_KEYS, type BatchUnit, checkConfigKeys, parseBatchOptions, runBatch } from './run-batch';

/**
 * `context.parallel(name?, branches, config?)`: one CONTEXT operation (subType `Parallel`)
 * running every branch in its own child context (`ParallelBranch`, named by the branch's `name`
 * or `parallel-branch-<index>` as in AWS's SDK).
 */
export async function runParallel<TOutput>(scope: Scope, args: readonly unknown[]): Promise<BatchResult<TOutput>> {
  const { name, main: branches, config } = splitNamed<unknown[]>(args, Array.isArray, 'branches');
  checkConfigKeys(config, BATCH_CONFIG_KEYS);
  const units = branches.map((branch, index): BatchUnit<TOutput> => {
    if (typeof branch === 'function') {
      const func = branch as ParallelFunction<TOutput>;
      return { name: `parallel-branch-${index}`, ownName: undefined, run: (context) => func(context) };
    }
    const named = branch as Partial<NamedParallelBranch<TOutput>> | null;
    if (typeof named !== 'object' || named === null || typeof named.func !== 'function') {
      throw new InvalidArgumentError(
        `branches[${index}]`,
        `must be a function or { name?, func }, got ${describe(branch)}`,
      );
    }
    const func = named.func;
    const ownName = parseName(named.name, `branches[${index}].name`);
    return { name: ownName ?? `parallel-branch-${index}`, ownName, run: (context) => func(context) };
  });
  return runBatch(scope, { name, kind: 'Parallel', units, ...parseBatchOptions<TOutput>(scope, config) });
}
