import type { ConsoleAccess } from '../console/access.js';
import { isLoopback } from '../server/server.js';

/**
 * Treats a loopback --http address as one other machines reach, so that a test can check
 * the rules of such an address on 127.0.0.2 without leaving loopback. For tests only.
 */
export const TEST_NOT_LOOPBACK_ENV = 'COBWEB_TEST_CONSOLE_NOT_LOOPBACK';

/**
 * Who may read a console on `host`: on loopback the machine's users read without the
 * token, as before; on any other address (0.0.0.0, a network address, a name) every request
 * needs it, as every packet on the server's port does off loopback.
 */
export function consoleAccessOf(
  host: string,
  o: { httpAllowHost?: readonly string[] | undefined; metricsOpen?: boolean | undefined },
): ConsoleAccess {
  const loopback = isLoopback(host) && process.env[TEST_NOT_LOOPBACK_ENV] !== '1';
  return {
    tokenEverywhere: !loopback,
    loopback,
    allowHosts: o.httpAllowHost ?? [],
    metricsOpen: o.metricsOpen === true,
  };
}

/** What is said at start about who may read: the one warning of --metrics-open, or nothing. */
export function accessWarning(access: ConsoleAccess): string | null {
  if (!access.tokenEverywhere || !access.metricsOpen) return null;
  return "--metrics-open: /metrics answers anyone who reaches this address without the token (the crawl's counts, no URL); the page, /status and /events still need it";
}
