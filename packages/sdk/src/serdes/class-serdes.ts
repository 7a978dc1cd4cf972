import type { Serdes } from '../types/serdes';

/**
 * A serdes that gives back instances of `cls` (AWS's): JSON, then `Object.assign(new cls(), …)`,
 * so methods work on replayed values. `cls` must take no constructor arguments; nested
 * instances, getters and private fields are not rebuilt.
 */
export function createClassSerdes<T extends object>(cls: new () => T): Serdes<T> {
  return {
    serialize: async (value) => (value !== undefined ? JSON.stringify(value) : undefined),
    deserialize: async (data) => (data !== undefined ? Object.assign(new cls(), JSON.parse(data)) : undefined),
  };
}

/**
 * {@link createClassSerdes} that also turns the properties at `dateProps` (dot paths such as
 * `metadata.createdAt`) back into `Date`s (AWS's).
 */
export function createClassSerdesWithDates<T extends object>(cls: new () => T, dateProps: string[]): Serdes<T> {
  return {
    serialize: async (value) => (value !== undefined ? JSON.stringify(value) : undefined),
    deserialize: async (data) => {
      if (data === undefined) return undefined;
      const instance = Object.assign(new cls(), JSON.parse(data));
      for (const prop of dateProps) {
        const parts = prop.split('.');
        let node = instance as Record<string, unknown>;
        for (let i = 0; i < parts.length - 1; i++) {
          const next = node[parts[i] as string];
          if (!next || typeof next !== 'object') break;
          node = next as Record<string, unknown>;
        }
        const last = parts[parts.length - 1] as string;
        if (node[last]) node[last] = new Date(node[last] as string);
      }
      return instance;
    },
  };
}
