/**
 * A tiny seeded PRNG (mulberry32): the same seed gives the same sequence, on every platform.
 * Returns numbers in [0, 1).
 */
export function mulberry32(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/**
 * A number in [0, 1) drawn for `key` under `seed`, independent of any other draw. Fault
 * decisions are keyed by where they happen (run, invocation, operation), not by the order of
 * the draws, so a replay of a seed makes the same decisions even if unrelated async work
 * interleaves differently (e.g. DynamoDB latency changing how updates are batched).
 */
export function keyedRandom(seed: number, key: string): number {
  // FNV-1a over the key, mixed with the seed, then one mulberry32 step to spread the bits.
  let h = 0x811c9dc5 ^ (seed >>> 0);
  for (let i = 0; i < key.length; i++) {
    h ^= key.charCodeAt(i);
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return mulberry32(h ^ Math.imul(seed >>> 0, 0x9e3779b1))();
}
