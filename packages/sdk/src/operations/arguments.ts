import { parseName } from '../config';
import { describe } from '../duration';
import { InvalidArgumentError } from '../errors/invalid-argument';

/**
 * Splits `(name?, main, config?)` the way every operation accepts them: when the first argument
 * is not the main one, it is the name (a string, or undefined).
 */
export function splitNamed<M>(
  args: readonly unknown[],
  isMain: (value: unknown) => boolean,
  mainField: string,
): { name: string | undefined; main: M; config: unknown } {
  if (isMain(args[0])) return { name: undefined, main: args[0] as M, config: args[1] };
  // Neither a name nor followed by the main argument: the main argument itself is wrong.
  if (typeof args[0] !== 'string' && args[0] !== undefined && !isMain(args[1])) {
    throw new InvalidArgumentError(mainField, `expected, got ${describe(args[0])}`);
  }
  const name = parseName(args[0]);
  if (!isMain(args[1])) throw new InvalidArgumentError(mainField, `expected, got ${describe(args[1])}`);
  return { name, main: args[1] as M, config: args[2] };
}

/** True for functions. */
export const isFunction = (value: unknown): boolean => typeof value === 'function';

/** True for plain objects (e.g. a Duration). */
export const isObject = (value: unknown): boolean =>
  typeof value === 'object' && value !== null && !Array.isArray(value);
