#!/usr/bin/env node
// `npm test`: the tools check, then everything else side by side, and the wall time of each part at
// the end.
//
//   npm test                       # everything
//   npm test -- test/aws           # the same checks, then only the test files whose path contains one
//                                  # of these (vitest's filter rule)
//
// The tests read the TypeScript sources (vitest aliases @durable-lambda/* to packages/*/src), except
// those under test/packaging/, which read what the build leaves in packages/*/dist. So the source
// tests start at once, next to lint and the type-check + build (one TypeScript program for both, see
// scripts/build.mjs --typecheck), and the packaging tests start as soon as the build is done, next to
// what is still running. The output of everything
// but the source tests is kept and shown when it is done (in full when it failed).
//
// The tools check (scripts/check-tools.mjs) finds or installs Java, a Chromium, the DynamoDB Local jar
// and the bench's dependencies, or stops at once naming what is missing; vitest gets CHROMIUM_PATH and
// DYNAMODB_LOCAL_DIR from it.
import { spawn } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { join, relative, sep } from 'node:path';
import { checkTools } from './check-tools.mjs';
import { ROOT } from './test-tools.mjs';

const started = performance.now();
const timings = [];
const bin = (name) => join(ROOT, 'node_modules', '.bin', name);
/** The folder of the tests that read the built packages (and must wait for the build). */
const PACKAGING = 'test/packaging/';
/** Where test files live, as vitest.config.mts includes them. */
const TEST_ROOTS = ['test', 'examples'];

const elapsed = (ms) => {
  const s = Math.round(ms / 1000);
  return s >= 60 ? `${Math.floor(s / 60)} min ${s % 60} s` : `${s} s`;
};

/** Runs a command; with `buffer`, its output is kept and returned instead of shown as it comes. */
function run(name, command, args, { buffer = false, env = {}, onLine } = {}) {
  const begin = performance.now();
  return new Promise((done) => {
    const child = spawn(command, args, {
      cwd: ROOT,
      env: { ...process.env, ...env },
      stdio: buffer ? ['ignore', 'pipe', 'pipe'] : 'inherit',
    });
    let output = '';
    let pending = '';
    child.stdout?.on('data', (chunk) => {
      output += chunk;
      if (!onLine) return;
      const lines = (pending + chunk).split('\n');
      pending = lines.pop() ?? '';
      for (const line of lines) onLine(line);
    });
    child.stderr?.on('data', (chunk) => {
      output += chunk;
    });
    child.on('error', (error) => {
      output += `${error.message}\n`;
    });
    child.on('close', (code) => {
      const ms = performance.now() - begin;
      timings.push(`${name} ${elapsed(ms)}`);
      done({ name, ok: code === 0, output, ms });
    });
  });
}

/** Every `*.test.ts` under the test roots, as repository-relative paths with forward slashes. */
function testFiles() {
  const found = [];
  const walk = (dir) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      if (entry.name === 'node_modules' || entry.name.startsWith('.')) continue;
      const path = join(dir, entry.name);
      if (entry.isDirectory()) walk(path);
      else if (entry.name.endsWith('.test.ts')) found.push(relative(ROOT, path).split(sep).join('/'));
    }
  };
  for (const dir of TEST_ROOTS) walk(join(ROOT, dir));
  return found.sort();
}

function finish(ok) {
  const total = elapsed(performance.now() - started);
  console.log(`\nnpm test ${ok ? 'passed' : 'FAILED'} in ${total} (wall time): ${timings.join(', ')}`);
  process.exit(ok ? 0 : 1);
}

const toolsStarted = performance.now();
const tools = checkTools(undefined, (line) => console.log(`check-tools: ${line}`));
timings.push(`tools ${elapsed(performance.now() - toolsStarted)}`);
for (const line of tools.found) console.log(`  ${line}`);
if (tools.missing.length > 0) {
  for (const line of tools.missing) console.error(`MISSING ${line}`);
  finish(false);
}

const filters = process.argv.slice(2);
const selected = testFiles().filter((file) => filters.length === 0 || filters.some((f) => file.includes(f)));
if (filters.length > 0 && selected.length === 0) {
  console.error(`No test file matches ${filters.map((f) => JSON.stringify(f)).join(' or ')}.`);
  finish(false);
}
const sourceTests = selected.filter((file) => !file.startsWith(PACKAGING));
const packagingTests = selected.filter((file) => file.startsWith(PACKAGING));

/** Prints a buffered part's result line, and its whole output when it failed. */
function report(part) {
  console.log(`  ${part.ok ? 'ok    ' : 'FAILED'} ${part.name} (${elapsed(part.ms)})`);
  if (!part.ok) process.stdout.write(`\n--- ${part.name} ---\n${part.output}\n`);
}

console.log(
  `\nlint, typecheck, build and ${sourceTests.length} test files on the sources, side by side` +
    (packagingTests.length > 0 ? `; ${packagingTests.length} packaging test files once the build is done` : ''),
);
// The type-check and the build are one process, one TypeScript program (scripts/build.mjs
// --typecheck): the build's declarations come from the program the type-check needs anyway. It says
// `build: done` as soon as dist is written, which starts the packaging tests while it checks the rest.
const lint = run('lint', bin('biome'), ['check', '.'], { buffer: true });
let buildDone;
const buildStarted = performance.now();
const build = new Promise((done) => {
  buildDone = done;
});
const typecheck = run('typecheck + build', process.execPath, [join(ROOT, 'scripts', 'build.mjs'), '--typecheck'], {
  buffer: true,
  onLine: (line) => {
    const said = /^build: (done|FAILED)/.exec(line);
    if (said) buildDone({ name: 'build', ok: said[1] === 'done', ms: performance.now() - buildStarted });
  },
}).then((result) => {
  // Ended without saying (it crashed, or a type error before the build): the build failed too.
  buildDone({ name: 'build', ok: false, ms: result.ms });
  return result;
});
const checks = [lint, typecheck].map((part) =>
  part.then((result) => {
    report(result);
    return result;
  }),
);
build.then((built) => {
  timings.push(`build ${elapsed(built.ms)}`);
  console.log(`  ${built.ok ? 'ok    ' : 'FAILED'} build (${elapsed(built.ms)})`);
});
const packaging = build.then((built) => {
  if (!built.ok || packagingTests.length === 0) return undefined;
  return run('vitest (packaging)', bin('vitest'), ['run', ...packagingTests], { buffer: true, env: tools.env });
});
const sources =
  sourceTests.length > 0 ? run('vitest', bin('vitest'), ['run', ...sourceTests], { env: tools.env }) : undefined;

const parts = [...(await Promise.all(checks)), await build, await sources, await packaging].filter(Boolean);
const packagingResult = await packaging;
if (packagingResult) {
  // Its own summary (which files, how long), after the source tests' one.
  console.log(`\n--- vitest (packaging) ---`);
  process.stdout.write(packagingResult.ok ? packagingResult.output.split('\n').slice(-14).join('\n') : '');
  report(packagingResult);
}
finish(parts.every((part) => part.ok));
