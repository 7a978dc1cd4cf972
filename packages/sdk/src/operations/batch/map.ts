import { parseName } from '../../config';
import type { Scope } from '../../context/scope';
import { describe } from '../../duration';
import { InvalidArgumentError } from '../../errors/invalid-argument';
import type { BatchResult, MapConfig } from '../../types/batch';
import type { MapFunction } from '../../types/durable-context';
import { splitNamed } from '../arguments';
import { BATCH_CONFIG_KEYS, type BatchUnit, checkConfigKeys, parseBatchOptions, runBatch } from './run-batch';

const MAP_CONFIG_KEYS = [...BATCH_CONFIG_KEYS, 'itemNamer'];

/**
 * `context.map(name?, items, fn(ctx, item, index, items), config?)`: one CONTEXT operation
 * (subType `Map`) running `fn` for every item in its own child context (`MapIteration`, named
 * by `itemNamer` or `map-item-<index>` as in AWS's SDK).
 */
export async function runMap<TInput, TOutput>(scope: Scope, args: readonly unknown[]): Promise<BatchResult<TOutput>> {
  const { name, main: items } = splitNamed<TInput[]>(args, Array.isArray, 'items');
  const rest = args.slice(Array.isArray(args[0]) ? 1 : 2);
  const fn = rest[0] as MapFunction<TInput, TOutput>;
  const config = rest[1];
  if (typeof fn !== 'function') throw new InvalidArgumentError('fn', `must be a function, got ${describe(fn)}`);
  checkConfigKeys(config, MAP_CONFIG_KEYS);
  const c = (config ?? {}) as MapConfig<TInput, TOutput>;
  const itemNamer = c.itemNamer as unknown;
  if (itemNamer !== undefined && typeof itemNamer !== 'function') {
    throw new InvalidArgumentError('config.itemNamer', `must be a function, got ${describe(itemNamer)}`);
  }
  const options = parseBatchOptions<TOutput>(scope, config);
  const units = items.map((item, index): BatchUnit<TOutput> => {
    let ownName: string | undefined;
    if (typeof itemNamer === 'function') {
      const named: unknown = itemNamer(item, index);
      if (typeof named !== 'string') {
        throw new InvalidArgumentError(
          'config.itemNamer',
          `must return a string, got ${describe(named)} for item ${index}`,
        );
      }
      ownName = parseName(named, `config.itemNamer(items[${index}])`);
    }
    return {
      name: ownName ?? `map-item-${index}`,
      ownName,
      run: (context) => fn(context, item, index, items),
    };
  });
  return runBatch(scope, { name, kind: 'Map', units, ...options });
}
