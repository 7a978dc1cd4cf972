/**
 * The commands the READMEs tell a reader to type still exist as written: every `durable ...` line
 * in a shell block and every inline `durable ...` command parses with the CLI's own parser (its
 * command and options known, options where they apply), and every `npm run <script>`,
 * `npm start` and `npm test` names a script of the repository. Doc drift of this kind was found
 * by hand before (issue 25); placeholders such as `<runId>` stand for one argument.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { parseCommandLine } from '../../packages/cli/src/args';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const DOCS = [
  'README.md',
  'CONTRIBUTING.md',
  ...readdirSync(join(root, 'packages')).map((pkg) => `packages/${pkg}/README.md`),
].filter((file) => {
  try {
    readFileSync(join(root, file));
    return true;
  } catch {
    return false;
  }
});

interface Found {
  file: string;
  line: number;
  text: string;
}

/** Shell commands of a document: the lines of sh/bash/shell/console blocks, continuations joined. */
function shellLines(file: string): Found[] {
  const lines = readFileSync(join(root, file), 'utf8').split('\n');
  const found: Found[] = [];
  let inShell = false;
  let inBlock = false;
  let pending: Found | undefined;
  lines.forEach((raw, i) => {
    const fence = /^\s*```(\w*)/.exec(raw);
    if (fence) {
      inBlock = !inBlock;
      inShell = inBlock && ['sh', 'bash', 'shell', 'console', ''].includes(fence[1] ?? '');
      return;
    }
    if (!inShell) return;
    const text = raw.replace(/^\s*\$\s+/, '');
    if (pending) {
      pending.text += ` ${text.trim()}`;
    } else {
      pending = { file, line: i + 1, text: text.trim() };
    }
    if (pending.text.endsWith('\\')) {
      pending.text = pending.text.slice(0, -1).trim();
      return;
    }
    found.push(pending);
    pending = undefined;
  });
  return found;
}

/** Inline code spans that are whole `durable ...` commands (not usage lines with [options]). */
function inlineCommands(file: string): Found[] {
  const lines = readFileSync(join(root, file), 'utf8').split('\n');
  const found: Found[] = [];
  lines.forEach((raw, i) => {
    for (const match of raw.matchAll(/`((?:npx )?durable [^`]+)`/g)) {
      found.push({ file, line: i + 1, text: match[1] as string });
    }
  });
  return found;
}

/** Splits a shell command into words: quotes kept together, a comment dropped. */
function words(command: string): string[] {
  const out: string[] = [];
  let word = '';
  let quote: string | undefined;
  let started = false;
  for (const ch of command) {
    if (quote) {
      if (ch === quote) quote = undefined;
      else word += ch;
      continue;
    }
    if (ch === "'" || ch === '"') {
      quote = ch;
      started = true;
    } else if (ch === '#' && !started) {
      break;
    } else if (/\s/.test(ch)) {
      if (started) out.push(word);
      word = '';
      started = false;
    } else {
      word += ch;
      started = true;
    }
  }
  if (started) out.push(word);
  return out;
}

/** The `durable` arguments of a command line (after `npx durable` or `durable`), if it is one. */
function durableArgs(text: string): string[] | undefined {
  // One command of a pipeline or a list: the part that runs durable.
  const part = text.split(/\s(?:\||&&|;)\s/).find((p) => /(^|\s)(npx )?durable\s/.test(`${p} `));
  if (!part) return undefined;
  const all = words(part);
  const at = all.findIndex(
    (w, i) => w === 'durable' && (i === 0 || all[i - 1] === 'npx' || /=/.test(all[i - 1] ?? '')),
  );
  if (at < 0) return undefined;
  return all.slice(at + 1);
}

/** Usage syntax rather than a command: optional parts, alternatives, an ellipsis. */
const isSyntax = (args: readonly string[]) => args.some((a) => /[[\]|]|\.\.\.|…/.test(a));

const commands = DOCS.flatMap((file) => [...shellLines(file), ...inlineCommands(file)])
  .map((found) => ({ ...found, args: durableArgs(found.text) }))
  .filter((found): found is Found & { args: string[] } => found.args !== undefined && !isSyntax(found.args));

const scripts = new Set(Object.keys(JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')).scripts));

describe('the commands the READMEs give', () => {
  it('finds the durable commands of the docs (the premise)', () => {
    expect(commands.length).toBeGreaterThan(20);
  });

  it('every durable command parses: a known command, its options known and where they apply', () => {
    const refused: string[] = [];
    for (const { file, line, text, args } of commands) {
      // A placeholder is one argument whatever its spelling; an option's value is never checked here.
      const concrete = args.map((a) => a.replace(/<[^>]+>/g, 'x'));
      try {
        parseCommandLine(concrete);
      } catch (error) {
        refused.push(`${file}:${line}: ${text}\n    ${(error as Error).message}`);
      }
    }
    expect(refused).toEqual([]);
  });

  it('every npm run, npm start and npm test names a script of the repository', () => {
    const missing: string[] = [];
    for (const file of DOCS) {
      readFileSync(join(root, file), 'utf8')
        .split('\n')
        .forEach((raw, i) => {
          for (const match of raw.matchAll(/npm (?:run (\w[\w:-]*)|(start|test)\b)/g)) {
            const name = match[1] ?? match[2];
            // `npm --prefix bench run …` names the bench's scripts, not the root's.
            if (raw.slice(0, match.index).endsWith('--prefix bench ')) continue;
            if (name && !scripts.has(name)) missing.push(`${file}:${i + 1}: npm run ${name}`);
          }
        });
    }
    expect(missing).toEqual([]);
  });
});
