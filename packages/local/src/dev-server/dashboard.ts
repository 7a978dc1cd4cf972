import { existsSync, readFileSync } from 'node:fs';
import { readFile, realpath, stat } from 'node:fs/promises';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { dirname, extname, join, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { NOT_FRAMED } from './local-request-guard';

/** The name the package root is recognized by. */
const PACKAGE_NAME = '@durable-lambda/local';

/** Content types of the files a dashboard is made of; anything else is `application/octet-stream`. */
const CONTENT_TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json; charset=utf-8',
  '.map': 'application/json; charset=utf-8',
  '.txt': 'text/plain; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.jpg': 'image/jpeg',
  '.jpeg': 'image/jpeg',
  '.gif': 'image/gif',
  '.webp': 'image/webp',
  '.ico': 'image/x-icon',
  '.woff': 'font/woff',
  '.woff2': 'font/woff2',
};

/** The content type served for a file name. */
export function contentType(file: string): string {
  return CONTENT_TYPES[extname(file).toLowerCase()] ?? 'application/octet-stream';
}

/** This module's directory, in the ESM and CommonJS builds and in the sources. */
function moduleDir(): string | undefined {
  if (typeof __dirname === 'string') return __dirname;
  try {
    return dirname(fileURLToPath(import.meta.url));
  } catch {
    return undefined;
  }
}

/**
 * The dashboard folder: `dashboard/` next to the package.json of `@durable-lambda/local`, found
 * by walking up from this module (`src/dev-server/` in the sources, `dist/` once built). The
 * folder itself need not exist (yet). Undefined when the package root cannot be found.
 */
export function locateDashboard(from: string | undefined = moduleDir()): string | undefined {
  let dir = from;
  while (dir) {
    const manifest = join(dir, 'package.json');
    if (existsSync(manifest)) {
      try {
        if ((JSON.parse(readFileSync(manifest, 'utf8')) as { name?: unknown }).name === PACKAGE_NAME) {
          return join(dir, 'dashboard');
        }
      } catch {
        // An unreadable package.json: keep looking further up.
      }
    }
    const parent = dirname(dir);
    if (parent === dir) return undefined;
    dir = parent;
  }
  return undefined;
}

type Answer = { status: number; type: string; body: string | Buffer; headers?: Record<string, string> };

const text = (status: number, body: string, headers?: Record<string, string>): Answer => ({
  status,
  type: 'text/plain; charset=utf-8',
  body: `${body}\n`,
  ...(headers ? { headers } : {}),
});

const NOT_FOUND = text(404, 'not found');

/**
 * The relative file a `/dashboard/...` path names, or undefined when it is not a plain path
 * inside the folder: bad percent-encoding, NUL bytes, backslashes, empty, `.` or `..` segments,
 * and hidden files are refused.
 */
export function dashboardFile(rest: string): string | undefined {
  let decoded: string;
  try {
    decoded = decodeURIComponent(rest);
  } catch {
    return undefined;
  }
  if (decoded.length === 0 || decoded.includes('\0') || decoded.includes('\\')) return undefined;
  const segments = decoded.split('/');
  if (segments.some((s) => s === '' || s === '.' || s === '..' || s.startsWith('.'))) return undefined;
  return segments.join(sep);
}

/** Reads `file` under `root`, only if it is a regular file whose real path stays inside `root`. */
async function readInside(root: string, file: string): Promise<Buffer | undefined> {
  try {
    const realRoot = await realpath(root);
    const real = await realpath(join(root, file));
    if (!real.startsWith(realRoot + sep)) return undefined;
    if (!(await stat(real)).isFile()) return undefined;
    return await readFile(real);
  } catch {
    return undefined;
  }
}

/**
 * Answers a dashboard request: `/` (and `/index.html`) with `index.html`, `/dashboard/<file>`
 * with that file of the folder, `/dashboard` with a redirect to `/`. Undefined for any other path
 * (the caller answers 404). Without `index.html`, `/` answers `503` saying the dashboard is missing.
 */
export async function dashboardAnswer(dir: string | undefined, path: string): Promise<Answer | undefined> {
  if (path === '/' || path === '/index.html') {
    const index = dir ? await readInside(dir, 'index.html') : undefined;
    if (!index) {
      return text(
        503,
        `durable-lambda dev server: the dashboard is missing (no index.html in ${dir ?? 'the dashboard/ folder of @durable-lambda/local'}).\n` +
          'The control API works: GET /v1/functions, GET /v1/runs, POST /v1/runs.',
      );
    }
    return { status: 200, type: contentType('index.html'), body: withOperatorActions(index) };
  }
  if (path === '/dashboard' || path === '/dashboard/') {
    return { status: 302, type: 'text/plain; charset=utf-8', body: 'see /\n', headers: { location: '/' } };
  }
  if (!path.startsWith('/dashboard/')) return undefined;
  const file = dashboardFile(path.slice('/dashboard/'.length));
  if (!file || !dir) return NOT_FOUND;
  const body = await readInside(dir, file);
  return body ? { status: 200, type: contentType(file), body } : NOT_FOUND;
}

/** The operator-actions panel's module (cancel tree, retry from, skip; see its file). */
const OPERATOR_ACTIONS_SCRIPT = '<script type="module" src="dashboard/operator-actions.js"></script>';

/**
 * The page with the operator-actions module loaded (a module of its own, so the dashboard's
 * other files need not know of it); a page that loads it already is left as it is.
 */
function withOperatorActions(index: Buffer): Buffer {
  const page = index.toString('utf8');
  if (page.includes('operator-actions.js') || !page.includes('</head>')) return index;
  return Buffer.from(page.replace('</head>', `    ${OPERATOR_ACTIONS_SCRIPT}\n  </head>`), 'utf8');
}

/** Writes a dashboard answer (or a 404), for GET and HEAD; other methods get `405`. */
export async function serveDashboard(
  dir: string | undefined,
  path: string,
  req: IncomingMessage,
  res: ServerResponse,
): Promise<void> {
  const method = req.method ?? 'GET';
  let answer = (await dashboardAnswer(dir, path)) ?? NOT_FOUND;
  if (answer.status === 200 && method !== 'GET' && method !== 'HEAD') {
    answer = text(405, 'method not allowed', { allow: 'GET, HEAD' });
  }
  const body = typeof answer.body === 'string' ? Buffer.from(answer.body, 'utf8') : answer.body;
  res.writeHead(answer.status, {
    'content-type': answer.type,
    'content-length': String(body.length),
    'cache-control': 'no-cache',
    'x-content-type-options': 'nosniff',
    ...NOT_FRAMED,
    ...answer.headers,
  });
  res.end(method === 'HEAD' ? undefined : body);
}
