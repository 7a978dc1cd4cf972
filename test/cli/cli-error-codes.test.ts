import { describe, expect, it } from 'vitest';
import { parseCommandLine } from '../../packages/cli/src/args';
import {
  CLI_ERROR_CODES,
  CliError,
  type CliErrorCode,
  SigningSetupError,
  UsageError,
} from '../../packages/cli/src/index';

/** One instance of every error class of the CLI, with the name and code users see. */
const ERRORS: readonly [CliError, string, CliErrorCode][] = [
  [new UsageError('unknown command "frobnicate"'), 'UsageError', 'invalid_usage'],
  [new SigningSetupError('no AWS credentials found'), 'SigningSetupError', 'signing_unavailable'],
];

describe('CLI errors', () => {
  it('share one base, CliError, each keeping its name, message and a code from CLI_ERROR_CODES', () => {
    for (const [error, name, code] of ERRORS) {
      expect(error).toBeInstanceOf(CliError);
      expect(error).toBeInstanceOf(Error);
      expect(error.name).toBe(name);
      expect(error.code).toBe(code);
      expect(CLI_ERROR_CODES).toContain(error.code);
    }
    expect(ERRORS[0]?.[0].message).toBe('unknown command "frobnicate"');
  });

  it('every code of CLI_ERROR_CODES is carried by some CLI error', () => {
    const carried = new Set(ERRORS.map(([error]) => error.code));
    expect(CLI_ERROR_CODES.filter((code) => !carried.has(code))).toEqual([]);
  });

  it('a command line the CLI cannot run throws a CliError with code invalid_usage', () => {
    const thrown = (() => {
      try {
        parseCommandLine(['frobnicate']);
      } catch (error) {
        return error;
      }
    })();
    expect(thrown).toBeInstanceOf(UsageError);
    expect(thrown).toBeInstanceOf(CliError);
    expect((thrown as CliError).code).toBe('invalid_usage');
  });
});
