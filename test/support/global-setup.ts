/**
 * Vitest global setup: at most one DynamoDB Local per test run, started only if a test file asks
 * for it (`dynamoDbLocalEndpoint` in ./dynamodb-local.ts), stopped here at the end. When java is
 * missing, the tests that use it fail saying so; the others run as usual.
 *
 * It also tells the test files where the tools are, in environment variables the workers inherit
 * (`npm test` has found or installed them already; a bare `npx vitest run` finds them here):
 * `CHROMIUM_PATH` (a Chromium or Chrome for the browser tests, unset when there is none) and
 * `DYNAMODB_LOCAL_DIR` (the folder holding DynamoDBLocal.jar, installed here on first use), and
 * `DURABLE_TEST_SCRATCH` (a temporary directory for what tests write, removed at the end).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestProject } from 'vitest/node';
import { ensureDynamoDbLocal, findBrowser } from '../../scripts/test-tools.mjs';
import { killGroup, readInstance } from './dynamodb-local';

function locateTools(): void {
  const browser = findBrowser();
  if ('path' in browser) process.env.CHROMIUM_PATH = browser.path;
  if (!process.env.DYNAMODB_LOCAL_DIR) {
    const local = ensureDynamoDbLocal((line) => process.stdout.write(`global-setup: ${line}\n`));
    // Without it, the DynamoDB tests fail naming the problem; the others need nothing from it.
    if ('dir' in local) process.env.DYNAMODB_LOCAL_DIR = local.dir;
    else process.stderr.write(`global-setup: ${local.problem}\n`);
  }
}

export default function setup(project: TestProject): () => void {
  locateTools();
  const stateDir = mkdtempSync(join(tmpdir(), 'dynamodb-local-run-'));
  // Where test files put what they write (synthesized CDK apps among them), removed at the end, so
  // no run leaves anything in the system's temporary directory.
  const scratch = mkdtempSync(join(tmpdir(), 'durable-tests-'));
  process.env.DURABLE_TEST_SCRATCH = scratch;
  project.provide('dynamoDbLocal', { stateDir, ownerPid: process.pid });
  let done = false;
  const teardown = () => {
    if (done) return;
    done = true;
    const instance = readInstance(stateDir);
    if (instance?.pgid !== undefined) killGroup(instance.pgid);
    if (instance?.log) rmSync(instance.log, { force: true });
    rmSync(stateDir, { recursive: true, force: true });
    rmSync(scratch, { recursive: true, force: true });
  };
  process.once('exit', teardown);
  return teardown;
}
