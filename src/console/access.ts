import { createHmac } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { isIP } from 'node:net';
import { tokenMatches } from './token.js';

/** Who may read the console, and by which names it may be asked: plain data from the assembly. */
export interface ConsoleAccess {
  /**
   * Every request needs the token, reads included: the console listens on an address other
   * machines can reach (not loopback). On loopback the reads are open to the machine's users.
   */
  tokenEverywhere: boolean;
  /** The console listens on loopback: `localhost` is one of its names. */
  loopback: boolean;
  /** Names a Host header may carry besides the listen address (--http-allow-host). */
  allowHosts: readonly string[];
  /** /metrics answers without the token even where every request needs it (--metrics-open). */
  metricsOpen: boolean;
}

/**
 * The line that says where the console listens and who needs the token: the token's file
 * for a crawl or a bunny, "of the server" for a server (its packet token).
 */
export function consoleLine(url: string, tokenOnEveryRequest: boolean, tokenFile: string | 'server'): string {
  const need = tokenOnEveryRequest ? 'every request needs the token' : 'its actions need the token';
  return `console on ${url} (${need} ${tokenFile === 'server' ? 'of the server' : `in ${tokenFile}`})`;
}

/** The header an action carries the token in: a custom header, so another site's page cannot send it. */
export const TOKEN_HEADER = 'x-cobweb-token';

/** The cookie the page's session is kept in, after a POST of the token (the port in its name: cookies ignore ports). */
export const sessionCookieName = (port: number) => `cobweb_session_${port}`;

/**
 * The session cookie's value: an HMAC of the token, not the token itself, so a cookie
 * jar read elsewhere does not give the server's packet port away; the same token gives
 * the same value, so a page keeps its session across a restart of the process.
 */
export function sessionValue(token: string): string {
  return createHmac('sha256', token).update('cobweb console session').digest('base64url');
}

/** The Set-Cookie header that keeps a page's session: not readable by scripts, never sent by another site. */
export function sessionCookie(token: string, port: number): string {
  return `${sessionCookieName(port)}=${sessionValue(token)}; HttpOnly; SameSite=Strict; Path=/`;
}

/** A Host header's name, without its port, brackets or a final dot, in lower case; null when absent. */
export function hostNameOf(header: string | undefined): string | null {
  if (header === undefined || header.trim() === '') return null;
  const h = header.trim().toLowerCase();
  const name = h.startsWith('[') ? h.slice(1, h.indexOf(']')) : h.replace(/:\d*$/, '');
  return name.replace(/\.$/, '');
}

/** The addresses that mean "every address of this machine". */
const WILDCARDS = new Set(['0.0.0.0', '::', '0:0:0:0:0:0:0:0', '']);

/**
 * Whether a request's Host names this console. A page of another site that rebinds its
 * own name to our address (DNS rebinding) sends its own name as Host, so only the listen
 * address, `localhost` on loopback, and names the user allowed are answered. On a
 * wildcard address (0.0.0.0, ::) any IP address is one of ours: an address is not a
 * name, and cannot be rebound.
 */
export function hostAllowed(header: string | undefined, listenHost: string, access: ConsoleAccess): boolean {
  const name = hostNameOf(header);
  if (name === null) return false;
  const listen = listenHost.toLowerCase();
  if (name === listen) return true;
  if (access.allowHosts.some((h) => h.toLowerCase().replace(/\.$/, '') === name)) return true;
  const wildcard = WILDCARDS.has(listen);
  if (name === 'localhost') return access.loopback || wildcard;
  if (listen === 'localhost' && (name === '127.0.0.1' || name === '::1')) return true;
  return wildcard && isIP(name) !== 0;
}

/**
 * Whether a POST's Origin, when it has one, is the console's own: the page it serves
 * sends `http://` and the very Host it asked. Requests without one (curl, scripts) pass:
 * a browser always sends it on a POST.
 */
export function originAllowed(origin: string | undefined, host: string | undefined): boolean {
  if (origin === undefined) return true;
  if (host === undefined) return false;
  try {
    const u = new URL(origin);
    return u.protocol === 'http:' && u.host === new URL(`http://${host}`).host;
  } catch {
    return false; // 'null' (a sandboxed frame, a file) and anything else that is no origin
  }
}

/** Whether a request carries the token: in the header, as a bearer token (Prometheus), or as the page's session cookie. */
export function carriesToken(req: IncomingMessage, token: string): boolean {
  const header = req.headers[TOKEN_HEADER];
  if (typeof header === 'string' && tokenMatches(token, header)) return true;
  const auth = req.headers.authorization;
  if (auth !== undefined && /^bearer /i.test(auth) && tokenMatches(token, auth.slice(7).trim())) return true;
  const session = sessionValue(token);
  for (const part of (req.headers.cookie ?? '').split(';')) {
    const eq = part.indexOf('=');
    if (eq === -1 || !part.slice(0, eq).trim().startsWith('cobweb_session_')) continue;
    if (tokenMatches(session, part.slice(eq + 1).trim())) return true;
  }
  return false;
}
