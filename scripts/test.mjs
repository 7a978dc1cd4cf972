#!/usr/bin/env node
// `npm test`: the tools check, then lint, type-check and build side by side (their output is shown
// when one fails), then every test (vitest), and the wall time of each part at the end.
//
//   npm test                       # everything
//   npm test -- test/aws           # the same checks, then only these test files (vitest filters)
//
// The tools check (scripts/check-tools.mjs) finds or installs Java, a Chromium, the DynamoDB Local jar
// and the bench's dependencies, or stops at once naming what is missing; vitest gets CHROMIUM_PATH and
// DYNAMODB_LOCAL_DIR from it.
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { checkTools } from './check-tools.mjs';
import { ROOT } from './test-tools.mjs';

const started = performance.now();
const timings = [];
const bin = (name) => join(ROOT, 'node_modules', '.bin', name);

const elapsed = (ms) => {
  const s = Math.round(ms / 1000);
  return s >= 60 ? `${Math.floor(s / 60)} min ${s % 60} s` : `${s} s`;
};

/** Runs a command; with `buffer`, its output is kept and returned instead of shown as it comes. */
function run(name, command, args, { buffer = false, env = {} } = {}) {
  const begin = performance.now();
  return new Promise((done) => {
    const child = spawn(command, args, {
      cwd: ROOT,
      env: { ...process.env, ...env },
      stdio: buffer ? ['ignore', 'pipe', 'pipe'] : 'inherit',
    });
    let output = '';
    child.stdout?.on('data', (chunk) => {
      output += chunk;
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

// Side by side: each is mostly one thread, and the machine has two cores.
console.log('\nlint, typecheck and build ...');
const checks = await Promise.all([
  run('lint', bin('biome'), ['check', '.'], { buffer: true }),
  run('typecheck', bin('tsc'), ['-p', 'tsconfig.json', '--noEmit'], { buffer: true }),
  run('build', process.execPath, [join(ROOT, 'scripts', 'build.mjs')], { buffer: true }),
]);
for (const check of checks) {
  console.log(`  ${check.ok ? 'ok    ' : 'FAILED'} ${check.name} (${elapsed(check.ms)})`);
  if (!check.ok) process.stdout.write(`\n--- ${check.name} ---\n${check.output}\n`);
}
if (checks.some((check) => !check.ok)) finish(false);

const vitest = await run('vitest', bin('vitest'), ['run', ...process.argv.slice(2)], { env: tools.env });
finish(vitest.ok);
