import type { BrowserContext, Cookie as BrowserCookie } from 'playwright-core';
import type { Cookie } from 'tough-cookie';
import type { CrawlCookies } from '../fetch/cookie-jar.js';
import { toughCookie } from '../fetch/tough-cookie.js';

/**
 * The parts of the crawl's cookie jar a browser context shares, and `configured(url)`:
 * the Cookie header --header (or the host's config section) sends to `url`'s host.
 */
export type SharedJar = Pick<CrawlCookies, 'cookiesOfHost' | 'merge'> & {
  configured?: ((url: string) => string | null) | undefined;
};

/**
 * The crawl's cookies and a browser context's kept as one session: a host's context is
 * given the jar's cookies for each host a page reaches (set there by earlier fetches,
 * --cookies, or another page) before its first request to it, and what the browser
 * holds after the page (document.cookie, Set-Cookie on its scripts' and XHR responses)
 * goes back to the jar, so the crawl's next fetch sends it and the store keeps it.
 * A cookie the browser deleted stays in the jar until it expires there.
 */
export class PageCookies {
  private readonly given = new Set<string>();
  /** The configured cookies given (host, name, value): they stay out of the jar, as the fetcher keeps them. */
  private readonly fromConfig = new Set<string>();

  constructor(
    private readonly jar: SharedJar,
    private readonly context: BrowserContext,
  ) {}

  /** Gives the context the jar's cookies for `url`'s host, once per page and host. */
  async toBrowser(url: string): Promise<void> {
    const parsed = URL.parse(url);
    if (parsed === null || this.given.has(parsed.hostname)) return;
    this.given.add(parsed.hostname);
    const cookies = this.jar.cookiesOfHost(url).map(forBrowser);
    // A configured Cookie header is sent before the jar's cookies, so it goes in after them.
    for (const { name, value } of cookiePairs(this.jar.configured?.(url) ?? null)) {
      cookies.push({ name, value, domain: parsed.hostname, path: '/' });
      this.fromConfig.add(configKey(parsed.hostname, name, value));
    }
    if (cookies.length > 0) await this.context.addCookies(cookies);
  }

  /**
   * Hands the jar what the context holds (the jar takes only what it has not): every
   * path's, which a list of URLs would not give.
   */
  async toJar(): Promise<void> {
    const held = (await this.context.cookies()).filter(
      (c) => !this.fromConfig.has(configKey(c.domain, c.name, c.value)),
    );
    if (held.length > 0) this.jar.merge(held.map(fromBrowser));
  }
}

type NewCookie = Parameters<BrowserContext['addCookies']>[0][number];

/** A jar cookie as Chromium takes it: a domain without a leading dot is a host-only cookie there. */
export function forBrowser(c: Cookie): NewCookie {
  const expiry = c.expiryTime();
  const sameSite = sameSiteOf(c);
  return {
    name: c.key,
    value: c.value,
    domain: c.hostOnly === true ? (c.domain ?? '') : `.${c.domain ?? ''}`,
    path: c.path ?? '/',
    httpOnly: c.httpOnly,
    secure: c.secure,
    ...(expiry === undefined || !Number.isFinite(expiry) ? {} : { expires: expiry / 1000 }),
    ...(sameSite === undefined ? {} : { sameSite }),
  };
}

/** A browser's cookie as the jar keeps it. */
export function fromBrowser(b: BrowserCookie): Cookie {
  const hostOnly = !b.domain.startsWith('.');
  return new (toughCookie().Cookie)({
    key: b.name,
    value: b.value,
    domain: hostOnly ? b.domain : b.domain.slice(1),
    hostOnly,
    path: b.path,
    expires: b.expires > 0 ? new Date(b.expires * 1000) : 'Infinity',
    httpOnly: b.httpOnly,
    secure: b.secure,
    sameSite: b.sameSite.toLowerCase(),
  });
}

/** A Cookie header's name=value pairs. */
export function cookiePairs(header: string | null): { name: string; value: string }[] {
  if (header === null) return [];
  const out: { name: string; value: string }[] = [];
  for (const part of header.split(';')) {
    const at = part.indexOf('=');
    const name = (at === -1 ? '' : part.slice(0, at)).trim();
    if (name !== '') out.push({ name, value: part.slice(at + 1).trim() });
  }
  return out;
}

function configKey(host: string, name: string, value: string): string {
  return `${host}\t${name}\t${value}`;
}

/** Chromium drops SameSite=None without Secure: such a cookie goes as the default (Lax) does. */
function sameSiteOf(c: Cookie): NewCookie['sameSite'] {
  switch (c.sameSite?.toLowerCase()) {
    case 'strict':
      return 'Strict';
    case 'lax':
      return 'Lax';
    case 'none':
      return c.secure ? 'None' : undefined;
    default:
      return undefined;
  }
}
