/**
 * A run's search tags (`ctx.tag`, or given at start) on the dashboard: each a chip linking to the
 * runs list filtered by it, and the list's tag filter text (`key=value key=value`) read into the
 * API's `tag` parameters (`key:value`, every one must match).
 */
import { h } from './dom.js';

/** The runs list filtered by one tag. */
export const tagHref = (key, value) => `#/?${new URLSearchParams({ tags: `${key}=${value}` }).toString()}`;

/** The run's tags as chips, by key; null when it has none. */
export function tagChips(tags, testid) {
  const keys = Object.keys(tags ?? {}).sort();
  if (keys.length === 0) return null;
  return h(
    'span',
    { class: 'tags', dataset: { testid } },
    keys.map((key) =>
      h(
        'a',
        { class: 'tag', href: tagHref(key, tags[key]), title: `Runs tagged ${key}=${tags[key]}` },
        `${key}=${tags[key]}`,
      ),
    ),
  );
}

/**
 * The tag filter's text as the API's `tag` values: `key=value` pairs separated by spaces (a value
 * holds no space here; the API and CLI take any). Pairs without `=` are left out.
 */
export function tagParams(text) {
  return (text ?? '')
    .split(/\s+/)
    .filter((pair) => pair.indexOf('=') > 0)
    .map((pair) => `${pair.slice(0, pair.indexOf('='))}:${pair.slice(pair.indexOf('=') + 1)}`);
}
