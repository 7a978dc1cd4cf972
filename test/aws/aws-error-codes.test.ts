import { describe, expect, it } from 'vitest';
import { Refused } from '../../packages/aws/src/dynamodb/run-commit';
import { AlreadyRevised } from '../../packages/aws/src/dynamodb/run-writes';
import {
  AWS_ERROR_CODES,
  AwsError,
  type AwsErrorCode,
  AwsSdkLoadError,
  ChunkMissingError,
  ConfigurationError,
  NoAwsCredentialsError,
  PayloadSealError,
} from '../../packages/aws/src/index';

/** One instance of every error class of the production backend, with the name and code users see. */
const ERRORS: readonly [AwsError, string, AwsErrorCode][] = [
  [
    new ConfigurationError('missing_configuration', ['DURABLE_TABLE'], 'missing'),
    'ConfigurationError',
    'missing_configuration',
  ],
  [
    new ConfigurationError('invalid_configuration', ['AWS_REGION'], 'invalid'),
    'ConfigurationError',
    'invalid_configuration',
  ],
  [new NoAwsCredentialsError('no profile'), 'NoAwsCredentialsError', 'no_aws_credentials'],
  [
    new AwsSdkLoadError('@aws-sdk/client-lambda', { cause: new Error('gone') }),
    'AwsSdkLoadError',
    'aws_sdk_unavailable',
  ],
  [new ChunkMissingError('RUN#r1', { h: 'abc', n: 2, b: 10 }), 'ChunkMissingError', 'chunk_missing'],
  [new PayloadSealError('run r1: refused'), 'PayloadSealError', 'payload_unreadable'],
  // The DynamoDB store's own signals, caught inside it: named as before (plain `Error`).
  [new Refused('absent', false), 'Error', 'commit_refused'],
  [new AlreadyRevised(), 'Error', 'already_revised'],
];

describe('production backend errors', () => {
  it('share one base, AwsError, each keeping its name and a code from AWS_ERROR_CODES', () => {
    for (const [error, name, code] of ERRORS) {
      expect(error).toBeInstanceOf(AwsError);
      expect(error.name).toBe(name);
      expect(error.code).toBe(code);
      expect(AWS_ERROR_CODES).toContain(error.code);
    }
    expect(new Refused('absent', true).message).toBe('the run item refused the commit');
  });

  it('every code of AWS_ERROR_CODES is carried by some error of the backend', () => {
    const carried = new Set(ERRORS.map(([error]) => error.code));
    expect(AWS_ERROR_CODES.filter((code) => !carried.has(code))).toEqual([]);
  });
});
