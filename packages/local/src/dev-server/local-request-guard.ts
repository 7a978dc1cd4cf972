/**
 * The one guard of every HTTP server this package runs on the developer's machine (the dev server,
 * `npm start`'s, `durable console`): each answers only requests meant for it, never a web page's.
 *
 * - **Host.** A page of another site whose name was made to resolve to 127.0.0.1 (DNS rebinding)
 *   reaches the server as its own origin and could read every answer; its requests carry that name
 *   in `Host`. Only names no one can rebind are answered: `localhost`, `*.localhost` (browsers
 *   resolve them to loopback themselves), IP addresses, and the names the developer allows.
 * - **Origin and `Sec-Fetch-Site`,** on the API: a page of another origin may send a request (a form,
 *   `fetch` in `no-cors` mode) even when it cannot read the answer; browsers name its origin and
 *   say it is cross-site. Such a request is refused before it does anything. Non-browser clients
 *   (the CLI, the typed client, AWS's SDKs, curl) send neither header and are answered.
 *
 * The dashboard's pages may still be opened from a link of any site (a navigation changes nothing),
 * and are never framed by another page (see `NOT_FRAMED`).
 */
import type { IncomingMessage } from 'node:http';
import { isIP } from 'node:net';
import { LOCAL_ERROR_STATUS, LocalError, type LocalRequestRefusalCode } from '../local-error';

/** Why a request was refused: `403` with a stable code naming what was refused. */
export interface LocalRequestRefusal {
  status: (typeof LOCAL_ERROR_STATUS)[LocalRequestRefusalCode];
  /** `forbidden_host`: a `Host` this server does not answer; `cross_origin`: a request from another origin. */
  code: LocalRequestRefusalCode;
  message: string;
}

/**
 * The guard's refusal as a {@link LocalError}: its code from the local union, its status from
 * `LOCAL_ERROR_STATUS`. Answered, never thrown: the servers write it as a JSON error.
 */
export class LocalRequestRefusedError<C extends LocalRequestRefusalCode = LocalRequestRefusalCode>
  extends LocalError<C>
  implements LocalRequestRefusal
{
  /** The HTTP status the refusal is answered with. */
  readonly status: (typeof LOCAL_ERROR_STATUS)[C];
  constructor(
    /** Stable code. */
    readonly code: C,
    message: string,
  ) {
    super(message);
    this.name = 'LocalRequestRefusedError';
    this.status = LOCAL_ERROR_STATUS[code];
  }
}

/** Options of {@link localRequestGuard}. */
export interface LocalRequestGuardOptions {
  /** Who answers, in messages: `the dev server`, `the console`. */
  server: string;
  /**
   * Host names answered besides `localhost`, `*.localhost` and IP addresses (for example
   * `host.docker.internal`, or a name of this machine); `.example.test` allows every name under it.
   */
  allowedHosts?: readonly string[];
  /** Where the refusal says how to allow a name (the option or flag); none: it cannot be allowed. */
  allowHint?: string;
}

/** A checker of requests: the refusal, or undefined to answer it. */
export type LocalRequestGuard = (
  req: Pick<IncomingMessage, 'headers'>,
  api: boolean,
) => LocalRequestRefusal | undefined;

/** A `Host` header: a name or IPv4 address, or a bracketed IPv6 address, with an optional port. */
const HOST = /^(?:([a-z0-9](?:[a-z0-9_.-]*[a-z0-9_])?\.?)|\[([0-9a-f:.]+)\])(?::(\d{1,5}))?$/;

/** The host name of a `Host` header value (lower case, no port, IPv6 without brackets), or undefined. */
export function hostNameOf(host: string | undefined): string | undefined {
  if (host === undefined) return undefined;
  const match = HOST.exec(host.trim().toLowerCase());
  if (!match) return undefined;
  if (match[2] !== undefined) return isIP(match[2]) === 6 ? match[2] : undefined;
  return (match[1] as string).replace(/\.$/, '');
}

/** Checks the developer's allowed names: lower-case host names, or `.suffix` for a domain's names. */
export function checkAllowedHosts(names: readonly string[], field = 'allowedHosts'): string[] {
  return names.map((name, i) => {
    const lower = typeof name === 'string' ? name.trim().toLowerCase() : '';
    const bare = lower.startsWith('.') ? lower.slice(1) : lower;
    if (hostNameOf(bare) !== bare || bare === '') {
      throw new TypeError(`${field}[${i}]: not a host name: ${JSON.stringify(name)}`);
    }
    return lower;
  });
}

function answered(name: string, allowed: readonly string[]): boolean {
  if (name === 'localhost' || name.endsWith('.localhost') || isIP(name) !== 0) return true;
  return allowed.some((entry) =>
    entry.startsWith('.') ? name.endsWith(entry) || name === entry.slice(1) : name === entry,
  );
}

/**
 * A guard for one server (see the module's description). `api` says whether the request is for
 * the API (the control API, the Lambda-shaped routes, a proxy to them), where other origins are
 * refused; pages and their files answer any origin, but never another `Host`.
 */
export function localRequestGuard(options: LocalRequestGuardOptions): LocalRequestGuard {
  const allowed = checkAllowedHosts(options.allowedHosts ?? []);
  const hint = options.allowHint ? ` (allow a name of yours with ${options.allowHint})` : '';
  return (req, api) => {
    const host = req.headers.host;
    const name = hostNameOf(host);
    if (name === undefined || !answered(name, allowed)) {
      return new LocalRequestRefusedError(
        'forbidden_host',
        `${options.server} answers only localhost and IP addresses${allowed.length > 0 ? ` and ${allowed.join(', ')}` : ''}, not host ${JSON.stringify(host ?? '')}${hint}`,
      );
    }
    if (!api) return undefined;
    const origin = req.headers.origin;
    if (origin !== undefined && !sameOrigin(origin, host as string)) {
      return new LocalRequestRefusedError('cross_origin', `${options.server} refuses requests from ${origin}`);
    }
    const site = req.headers['sec-fetch-site'];
    if (site !== undefined && site !== 'same-origin' && site !== 'none') {
      return new LocalRequestRefusedError('cross_origin', `${options.server} refuses ${site} requests`);
    }
    return undefined;
  };
}

/** Whether a browser's `Origin` is the page of this very host (and port). `null` never is. */
function sameOrigin(origin: string, host: string): boolean {
  let url: URL;
  try {
    url = new URL(origin);
  } catch {
    return false;
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return false;
  // Both through URL: a default port is left out of both (`http://localhost` is `localhost:80`).
  return url.host === new URL(`${url.protocol}//${host.trim().toLowerCase()}`).host;
}

/**
 * Headers of every page and file of the dashboard: no other site may frame it (a framed dashboard's
 * buttons are its own origin's: a page could make the developer click them).
 */
export const NOT_FRAMED: Readonly<Record<string, string>> = {
  'x-frame-options': 'DENY',
  'content-security-policy': "frame-ancestors 'none'",
};
