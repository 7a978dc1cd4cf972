/**
 * Entries that name their function (`name=path#export`): AWS-style files all export `handler`, and
 * two of them could not be served together (`two durable handlers are named "handler"`).
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { loadEntryModules, parseEntrySpec } from '../../../packages/local/src/dev-server/entries';
import { root } from './process';

mkdirSync(join(root, '.artifacts'), { recursive: true });
const dir = mkdtempSync(join(root, '.artifacts', 'dev-entries-named-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** A module exporting durable handlers (our SDK), each returning its own label. */
function moduleFile(name: string, exports: Record<string, string>, samples?: unknown): string {
  const file = join(dir, `${name}.mjs`);
  const lines = [`import { withDurableExecution } from '@durable-lambda/sdk';`];
  for (const [exported, label] of Object.entries(exports)) {
    lines.push(`export const ${exported} = withDurableExecution(async () => ${JSON.stringify(label)});`);
  }
  if (samples !== undefined) lines.push(`export const samples = ${JSON.stringify(samples)};`);
  writeFileSync(file, `${lines.join('\n')}\n`);
  return relative(process.cwd(), file);
}

describe('dev server entries: name=path#export', () => {
  it('parses the forms: path, path#export, name=path, name=path#export', () => {
    expect(parseEntrySpec('src/a.ts')).toEqual({ file: 'src/a.ts' });
    expect(parseEntrySpec('src/a.ts#handler')).toEqual({ file: 'src/a.ts', exportName: 'handler' });
    expect(parseEntrySpec('orders=src/a.ts')).toEqual({ file: 'src/a.ts', name: 'orders' });
    expect(parseEntrySpec('orders=src/a.ts#handler')).toEqual({
      file: 'src/a.ts',
      name: 'orders',
      exportName: 'handler',
    });
    // An `=` inside a path is part of the path.
    expect(parseEntrySpec('./x=y/a.ts')).toEqual({ file: './x=y/a.ts' });
    expect(() => parseEntrySpec('bad name=src/a.ts')).toThrow(/function name "bad name"/);
    expect(() => parseEntrySpec('orders=src/a.ts#1x')).toThrow(/"1x" after # is not an export name/);
    expect(() => parseEntrySpec('orders=#handler')).toThrow(/a module path is required/);
  });

  it('serves two AWS-style files that both export `handler`, each under the name given', async () => {
    const a = moduleFile('approvals', { handler: 'approvals' }, [{ name: 'one doc', input: { doc: 'd-1' } }]);
    const b = moduleFile('shipping', { handler: 'shipping' });
    await expect(loadEntryModules([a, b])).rejects.toThrow(/two durable handlers are named "handler".*name each/);

    const loaded = await loadEntryModules([`approve=${a}#handler`, `ship=${b}`]);
    expect([...loaded.handlers.keys()]).toEqual(['approve', 'ship']);
    const approve = loaded.handlers.get('approve');
    expect(approve).toBeDefined();
    // The module's samples follow its handler to the name it is served under.
    expect(loaded.samples.get('approve')).toEqual([{ name: 'one doc', input: { doc: 'd-1' } }]);
  });

  it('picks one export with #export, and says what a module has when the choice is wrong or ambiguous', async () => {
    const both = moduleFile('both', { first: 'first', second: 'second' });
    const picked = await loadEntryModules([`${both}#second`]);
    expect([...picked.handlers.keys()]).toEqual(['second']);
    await expect(loadEntryModules([`${both}#third`])).rejects.toThrow(
      /has no durable handler exported as third \(it has first, second\)/,
    );
    await expect(loadEntryModules([`mine=${both}`])).rejects.toThrow(
      /exports 2 durable handlers \(first, second\); name one: mine=.*#<export>/,
    );
  });
});
