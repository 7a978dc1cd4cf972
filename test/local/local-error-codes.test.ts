import { describe, expect, it } from 'vitest';
import { PortInUseError } from '../../packages/local/src/dev-server/dev-server';
import { localRequestGuard } from '../../packages/local/src/dev-server/local-request-guard';
import {
  ConsolePortInUseError,
  DatabaseHardLinkedError,
  DatabaseInUseError,
  InjectedFaultError,
  InjectedLostResponseError,
  InjectedThrottlingError,
  LOCAL_ERROR_CODES,
  LOCAL_ERROR_STATUS,
  LOCAL_REQUEST_REFUSAL_CODES,
  LocalError,
  type LocalErrorCode,
  type LocalRequestRefusalCode,
  LocalRequestRefusedError,
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
  [new LocalRequestRefusedError('forbidden_host', 'not host'), 'LocalRequestRefusedError', 'forbidden_host'],
  [new LocalRequestRefusedError('cross_origin', 'another origin'), 'LocalRequestRefusedError', 'cross_origin'],
];

// Type-level proof, checked by `tsc -p tsconfig.json`: a refusal code added without a status fails.
type RefusalWithANewCode = LocalRequestRefusalCode | 'brand_new_refusal';
// @ts-expect-error the status map has no status for the new code
const outdated: Readonly<Record<RefusalWithANewCode, number>> = LOCAL_ERROR_STATUS;

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

  it("the request guard's refusals are LocalErrors whose codes each have an HTTP status", () => {
    const guard = localRequestGuard({ server: 'the dev server' });
    const foreignHost = guard({ headers: { host: 'attacker.example' } }, true);
    const crossOrigin = guard({ headers: { host: 'localhost:3000', origin: 'https://attacker.example' } }, true);
    const crossSite = guard({ headers: { host: 'localhost:3000', 'sec-fetch-site': 'cross-site' } }, true);
    expect(foreignHost).toBeInstanceOf(LocalRequestRefusedError);
    expect(foreignHost).toMatchObject({ status: 403, code: 'forbidden_host' });
    expect(foreignHost?.message).toMatch(/^the dev server answers only localhost and IP addresses, not host/);
    expect(crossOrigin).toBeInstanceOf(LocalError);
    expect(crossOrigin).toMatchObject({
      status: 403,
      code: 'cross_origin',
      message: 'the dev server refuses requests from https://attacker.example',
    });
    expect(crossSite).toMatchObject({
      status: 403,
      code: 'cross_origin',
      message: 'the dev server refuses cross-site requests',
    });
    expect(guard({ headers: { host: 'localhost:3000' } }, true)).toBeUndefined();
    for (const code of LOCAL_REQUEST_REFUSAL_CODES) {
      expect(LOCAL_ERROR_CODES).toContain(code);
      expect(LOCAL_ERROR_STATUS[code]).toBe(403);
    }
    expect(Object.keys(LOCAL_ERROR_STATUS).sort()).toEqual([...LOCAL_REQUEST_REFUSAL_CODES].sort());
    expect(outdated).toBe(LOCAL_ERROR_STATUS);
  });

  it('the testing entry exports the same base as the main entry', () => {
    expect(testingEntry.LocalError).toBe(LocalError);
    expect(new testingEntry.TestRunStoppedError('run_stuck', 'r1', 'stuck')).toBeInstanceOf(LocalError);
  });
});
