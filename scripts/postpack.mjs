#!/usr/bin/env node
// `postpack` of every publishable package: removes the LICENSE that scripts/prepack.mjs copied in
// from the repository root (only that copy: a package's own, different LICENSE stays).
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT } from './test-tools.mjs';

const copy = join(process.cwd(), 'LICENSE');
if (existsSync(copy) && readFileSync(copy, 'utf8') === readFileSync(join(ROOT, 'LICENSE'), 'utf8')) {
  rmSync(copy);
}
