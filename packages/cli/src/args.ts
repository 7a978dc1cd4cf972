import { parseArgs } from 'node:util';
import { readTextSource } from './io';
import { UsageError } from './usage';

const OPTIONS = {
  url: { type: 'string' },
  json: { type: 'boolean' },
  help: { type: 'boolean', short: 'h' },
  input: { type: 'string' },
  'run-key': { type: 'string' },
  function: { type: 'string' },
  status: { type: 'string' },
  limit: { type: 'string' },
  cursor: { type: 'string' },
  'created-after': { type: 'string' },
  'created-before': { type: 'string' },
  result: { type: 'string' },
  message: { type: 'string' },
  code: { type: 'string' },
  port: { type: 'string' },
  host: { type: 'string' },
  db: { type: 'string' },
  watch: { type: 'boolean' },
  latest: { type: 'boolean' },
  faults: { type: 'string' },
  'allowed-hosts': { type: 'string' },
  search: { type: 'string' },
  'concurrency-key': { type: 'string' },
  operation: { type: 'string' },
  handler: { type: 'string' },
  table: { type: 'string' },
  last: { type: 'string' },
  sign: { type: 'boolean' },
  region: { type: 'string' },
  runs: { type: 'string' },
  since: { type: 'string' },
  memory: { type: 'string' },
  'runs-per-month': { type: 'string' },
  tag: { type: 'string', multiple: true },
  'error-code': { type: 'string' },
  'idempotency-key': { type: 'string' },
} as const;

/** An option's name. */
export type OptionName = keyof typeof OPTIONS;

/** Options every command takes. */
const COMMON: readonly OptionName[] = ['url', 'json', 'help', 'sign', 'region'];

/** The options of each command, besides the common ones. */
export const COMMAND_OPTIONS: Readonly<Record<string, readonly OptionName[]>> = {
  start: ['input', 'run-key', 'latest', 'tag'],
  list: [
    'function',
    'status',
    'limit',
    'cursor',
    'created-after',
    'created-before',
    'search',
    'concurrency-key',
    'tag',
    'error-code',
  ],
  show: [],
  functions: [],
  history: [],
  logs: [],
  callback: ['result', 'message', 'code'],
  cancel: [],
  'cancel-tree': [],
  retry: ['operation'],
  skip: ['result'],
  wake: ['operation'],
  signal: ['idempotency-key'],
  signals: [],
  dev: ['port', 'host', 'db', 'watch', 'faults', 'allowed-hosts'],
  export: ['table', 'db'],
  replay: ['handler', 'table', 'db', 'function', 'last'],
  console: ['port'],
  cost: ['runs', 'since', 'memory', 'runs-per-month'],
  help: [],
};

/** A parsed command line. */
export interface CommandLine {
  command: string | undefined;
  /** Positional arguments after the command. */
  args: string[];
  options: Partial<Record<OptionName, string | boolean | string[]>>;
}

/** Parses argv (without `node` and the script); options may come anywhere. */
export function parseCommandLine(argv: readonly string[]): CommandLine {
  let parsed: { values: Record<string, string | boolean | string[] | undefined>; positionals: string[] };
  try {
    parsed = parseArgs({ args: [...argv], options: OPTIONS, allowPositionals: true, strict: true });
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
  const [command, ...args] = parsed.positionals;
  const options = parsed.values as CommandLine['options'];
  if (command !== undefined) {
    const allowed = COMMAND_OPTIONS[command];
    if (!allowed) throw new UsageError(`unknown command ${JSON.stringify(command)}`);
    for (const name of Object.keys(options) as OptionName[]) {
      if (!COMMON.includes(name) && !allowed.includes(name)) {
        throw new UsageError(`option --${name} does not apply to "${command}"`);
      }
    }
  }
  return { command, args, options };
}

/** A string option's value. */
export function stringOption(line: CommandLine, name: OptionName): string | undefined {
  const value = line.options[name];
  return typeof value === 'string' ? value : undefined;
}

/**
 * The `--tag key=value` options (repeatable) as tags: split at the first `=` (no key holds one).
 * A malformed one is a usage error naming the option.
 */
export function tagOptions(line: CommandLine): Record<string, string> | undefined {
  const given = line.options.tag;
  const values = typeof given === 'string' ? [given] : Array.isArray(given) ? given : [];
  if (values.length === 0) return undefined;
  const tags: Record<string, string> = {};
  for (const value of values) {
    const at = value.indexOf('=');
    if (at <= 0) throw new UsageError(`--tag: must be key=value (got ${JSON.stringify(value)})`);
    tags[value.slice(0, at)] = value.slice(at + 1);
  }
  return tags;
}

/** Exactly `count` positional arguments, named for the error message. */
export function positionals(line: CommandLine, names: readonly string[]): string[] {
  if (line.args.length !== names.length) {
    const wanted = names.map((n) => `<${n}>`).join(' ');
    throw new UsageError(
      `"${line.command}" takes ${wanted}${line.args.length > names.length ? ` (extra: ${line.args.slice(names.length).join(' ')})` : ''}`,
    );
  }
  return line.args;
}

/**
 * A JSON option's parsed value (undefined when absent). The value is inline JSON, `@path` for a
 * file's content or `-` for standard input: an input of hundreds of kilobytes does not fit an
 * argument list (`Argument list too long`). JSON never starts with `@` and is never `-` alone.
 */
export async function jsonOption(
  line: CommandLine,
  name: OptionName,
  readText: (source: string) => Promise<string> = readTextSource,
): Promise<{ value: unknown } | undefined> {
  const given = stringOption(line, name);
  if (given === undefined) return undefined;
  const source = given === '-' ? '-' : given.startsWith('@') ? given.slice(1) : undefined;
  if (source === '') throw new UsageError(`--${name}: @ must be followed by a file path`);
  let text = given;
  if (source !== undefined) {
    try {
      text = await readText(source);
    } catch (error) {
      const what = source === '-' ? 'standard input' : source;
      throw new UsageError(`--${name}: cannot read ${what} (${(error as Error).message})`);
    }
  }
  try {
    return { value: JSON.parse(text) };
  } catch (error) {
    const from = source === undefined ? '' : source === '-' ? ' (from standard input)' : ` (from ${source})`;
    throw new UsageError(`--${name}: not valid JSON${from} (${(error as Error).message})`);
  }
}
