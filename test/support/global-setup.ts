/**
 * Vitest global setup: at most one DynamoDB Local per test run, started only if a test file asks
 * for it (`dynamoDbLocalEndpoint` in ./dynamodb-local.ts), stopped here at the end. When java is
 * missing, the tests that use it fail saying so; the others run as usual.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestProject } from 'vitest/node';
import { killGroup, readInstance } from './dynamodb-local';

export default function setup(project: TestProject): () => void {
  const stateDir = mkdtempSync(join(tmpdir(), 'dynamodb-local-run-'));
  project.provide('dynamoDbLocal', { stateDir, ownerPid: process.pid });
  let done = false;
  const teardown = () => {
    if (done) return;
    done = true;
    const instance = readInstance(stateDir);
    if (instance?.pgid !== undefined) killGroup(instance.pgid);
    if (instance?.log) rmSync(instance.log, { force: true });
    rmSync(stateDir, { recursive: true, force: true });
  };
  process.once('exit', teardown);
  return teardown;
}
