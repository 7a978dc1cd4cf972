import { describe, expect, it } from 'vitest';
import { PortInUseError } from '../../packages/local/src/dev-server/dev-server';
import {
  ConsolePortInUseError,
  DatabaseHardLinkedError,
  DatabaseInUseError,
  InjectedFaultError,
  InjectedLostResponseError,
  InjectedThrottlingError,
  LOCAL_ERROR_CODES,
  LocalError,
  type LocalErrorCode,
  SqliteUnavailableError,
  TestRunStoppedError,
} from '../../packages/local/src/index';
import { RecordedRunError } from '../../packages/local/src/testing/recorded-run';
import * as testingEntry from '../../packages/local/src/testing-entry';

/** One instance of every error class of the local runtime, with the name and code users see. */
const ERRORS: readonly [LocalError, string, LocalErrorCode][] = [
  [new PortInUseError(9000, '127.0.0.1'), 'PortInUseError', 'port_in_use'],
  [new ConsolePortInUseError(9001), 'ConsolePortInUseError', 'port_in_use'],
  [new DatabaseInUseError('/tmp/a.db'), 'DatabaseInUseError', 'database_in_use'],
  [new DatabaseHardLinkedError('/tmp/a.db', 2), 'DatabaseHardLinkedError', 'database_hard_linked'],
  [new SqliteUnavailableError('does not load'), 'SqliteUnavailableError', 'sqlite_unavailable'],
  [new RecordedRunError('invalid_recorded_run', 'runId', 'missing'), 'RecordedRunError', 'invalid_recorded_run'],
  [
    new RecordedRunError('unsupported_recorded_run_version', 'version', 'newer'),
    'RecordedRunError',
    'unsupported_recorded_run_version',
  ],
  [new TestRunStoppedError('run_stranded', 'r1', 'stranded'), 'TestRunStoppedError', 'run_stranded'],
  [new TestRunStoppedError('run_runaway', 'r1', 'runaway'), 'TestRunStoppedError', 'run_runaway'],
  [new TestRunStoppedError('run_stuck', 'r1', 'stuck'), 'TestRunStoppedError', 'run_stuck'],
  [new InjectedThrottlingError('Invoke'), 'ThrottlingException', 'throttled'],
  [new InjectedLostResponseError('putRun'), 'TimeoutError', 'lost_response'],
];

describe('local runtime errors', () => {
  it('share one base, LocalError, each keeping its name and a code from LOCAL_ERROR_CODES', () => {
    for (const [error, name, code] of ERRORS) {
      expect(error).toBeInstanceOf(LocalError);
      expect(error.name).toBe(name);
      expect(error.code).toBe(code);
      expect(LOCAL_ERROR_CODES).toContain(error.code);
    }
    expect(new InjectedThrottlingError('Invoke')).toBeInstanceOf(InjectedFaultError);
  });

  it('every code of LOCAL_ERROR_CODES is carried by some local error', () => {
    const carried = new Set(ERRORS.map(([error]) => error.code));
    expect(LOCAL_ERROR_CODES.filter((code) => !carried.has(code))).toEqual([]);
  });

  it('the testing entry exports the same base as the main entry', () => {
    expect(testingEntry.LocalError).toBe(LocalError);
    expect(new testingEntry.TestRunStoppedError('run_stuck', 'r1', 'stuck')).toBeInstanceOf(LocalError);
  });
});
