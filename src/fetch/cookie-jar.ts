import type { Cookie, CookieJar, MemoryCookieStore } from 'tough-cookie';
import { toughCookie } from './tough-cookie.js';

/** A cookie as a store keeps it: opaque to the store, one row per (domain, path, name). */
export interface StoredCookie {
  key: string;
  /** The cookie as tough-cookie's JSON; null: the cookie is gone (expired, or deleted by its site). */
  value: string | null;
}

/**
 * Cookies the jar holds at most (RFC 6265 6.1 asks for at least 3,000; browsers keep
 * about that many). Past it, the cookies of the domain used longest ago go, as a browser
 * evicts them: a crawl of 100,000 hosts that each set one would otherwise hold them all,
 * some 160 MB.
 */
export const DEFAULT_MAX_COOKIES = 20_000;

/**
 * The crawl's cookie jar: RFC 6265 rules (tough-cookie), so a cookie goes back only to
 * the host that set it (or, with a Domain attribute, that domain's hosts; never a public
 * suffix). Changes are handed out by `changes()` for the store to keep, so a resumed
 * crawl keeps its session. The jar (and tough-cookie) comes into being with the first
 * cookie: until then every request goes without one, at no cost.
 */
export class CrawlCookies {
  private held: CookieJar | null = null;
  /** What the store holds now, by the cookies' domain, then key: the JSON last handed out. */
  private readonly kept = new Map<string, Map<string, string>>();
  /**
   * The domains whose cookies changed since the last changes(): only they are looked at
   * then. Comparing the whole jar at every batch, as it once did, cost a crawl of 20,000
   * hosts that each set a cookie 51 s of CPU, growing with the square of the hosts.
   */
  private readonly touched = new Set<string>();
  /** Cookies in the jar by domain, in order of last use: the first were used longest ago. */
  private readonly inUse = new Map<string, number>();
  private total = 0;

  constructor(
    stored: readonly StoredCookie[] = [],
    private readonly maxCookies = DEFAULT_MAX_COOKIES,
  ) {
    for (const row of stored) {
      if (row.value === null) continue;
      const cookie = toughCookie().Cookie.fromJSON(row.value);
      if (cookie === undefined) continue;
      this.jar.store.putCookie(cookie).catch(() => {});
      this.keptOf(cookie.domain ?? '').set(row.key, row.value);
    }
    for (const domain of this.kept.keys()) this.recount(domain);
    this.evict(new Set());
  }

  private keptOf(domain: string): Map<string, string> {
    let byKey = this.kept.get(domain);
    if (byKey === undefined) {
      byKey = new Map();
      this.kept.set(domain, byKey);
    }
    return byKey;
  }

  /** The jar's own store, in memory: its index by domain, path and name. */
  private get index(): MemoryCookieStore['idx'] {
    return (this.jar.store as MemoryCookieStore).idx;
  }

  private get jar(): CookieJar {
    this.held ??= new (toughCookie().CookieJar)(undefined, { looseMode: true });
    return this.held;
  }

  /** The Cookie header for a request to `url`, or null when the jar has none for it. */
  header(url: string): string | null {
    if (this.held === null) return null;
    const value = this.held.getCookieStringSync(url);
    if (value === '') return null;
    this.used(url);
    return value;
  }

  /** A response's Set-Cookie headers; one the rules refuse (another domain, a bad one) is dropped. */
  take(url: string, setCookies: readonly string[]): void {
    if (setCookies.length === 0) return;
    const changed = new Set<string>();
    for (const header of setCookies) {
      const set = this.jar.setCookieSync(header, url, { ignoreError: true });
      if (set !== undefined) changed.add(set.domain ?? '');
    }
    this.changed(changed);
  }

  /** Adds cookies as they are (from a cookies.txt); they count as changes. */
  add(cookies: readonly Cookie[]): void {
    if (cookies.length === 0) return;
    const changed = new Set<string>();
    for (const cookie of cookies) {
      this.jar.store.putCookie(cookie).catch(() => {});
      changed.add(cookie.domain ?? '');
    }
    this.changed(changed);
  }

  /**
   * Every cookie the jar holds for `url`'s host, on any path, secure or not: what a
   * browser context for the host is given, to send by its own rules.
   */
  cookiesOfHost(url: string): Cookie[] {
    if (this.held === null) return [];
    const host = URL.parse(url)?.hostname ?? '';
    const index = this.index;
    const now = Date.now();
    const out: Cookie[] = [];
    for (let at = 0; at !== -1; at = host.indexOf('.', at + 1)) {
      const domain = at === 0 ? host : host.slice(at + 1);
      for (const byName of Object.values(index[domain] ?? {})) {
        for (const cookie of Object.values(byName)) {
          if (cookie.hostOnly === true && domain !== host) continue;
          if (cookie.TTL(now) <= 0) continue;
          out.push(cookie);
        }
      }
    }
    return out;
  }

  /**
   * Cookies a browser holds now: those the jar has not, or has otherwise (another value
   * or expiry), go in and count as changes. Their domains were checked by the browser.
   */
  merge(cookies: readonly Cookie[]): void {
    const index = this.index;
    const fresh: Cookie[] = [];
    for (const cookie of cookies) {
      const held = index[cookie.domain ?? '']?.[cookie.path ?? '/']?.[cookie.key];
      if (held !== undefined && held.value === cookie.value && sameSecond(held, cookie)) continue;
      fresh.push(cookie);
    }
    this.add(fresh);
  }

  /** Domains whose cookies were just set: counted again, last in the order of use, and the jar held to its size. */
  private changed(domains: ReadonlySet<string>): void {
    for (const domain of domains) {
      this.touched.add(domain);
      this.recount(domain);
    }
    this.evict(domains);
  }

  private recount(domain: string): void {
    let n = 0;
    for (const byName of Object.values(this.index[domain] ?? {})) n += Object.keys(byName).length;
    this.total += n - (this.inUse.get(domain) ?? 0);
    this.inUse.delete(domain);
    if (n > 0) this.inUse.set(domain, n);
  }

  /** A request to `url` sent cookies: its host's domain and parents with cookies move last in the order of use. */
  private used(url: string): void {
    const host = URL.parse(url)?.hostname ?? '';
    for (let at = 0; at !== -1; at = host.indexOf('.', at + 1)) {
      const domain = at === 0 ? host : host.slice(at + 1);
      const n = this.inUse.get(domain);
      if (n === undefined) continue;
      this.inUse.delete(domain);
      this.inUse.set(domain, n);
    }
  }

  /**
   * Drops the cookies of the domains used longest ago (not those in `spared`, just
   * set) while the jar holds more than maxCookies; the store hears it at changes().
   * Counts are made when a domain's cookies are set: one that expired since is still
   * counted until then, so the jar may drop a little early, never hold more.
   */
  private evict(spared: ReadonlySet<string>): void {
    if (this.total <= this.maxCookies) return;
    const index = this.index;
    for (const [domain, n] of this.inUse) {
      if (this.total <= this.maxCookies) return;
      if (spared.has(domain)) continue;
      // What the memory store's removeCookies(domain) does, without its promise.
      Reflect.deleteProperty(index, domain);
      this.inUse.delete(domain);
      this.total -= n;
      this.touched.add(domain);
    }
  }

  /**
   * What changed since the last call: new or changed cookies, and those gone, of the
   * domains that took cookies meanwhile. (A cookie found expired when a request reads
   * the jar leaves the jar then, and the store at its domain's next change: kept in
   * the store meanwhile, it is expired when read back, and dropped again.)
   */
  changes(): StoredCookie[] {
    if (this.touched.size === 0 || this.held === null) return [];
    const index = this.index;
    const out: StoredCookie[] = [];
    for (const domain of this.touched) {
      const now = new Map<string, string>();
      for (const byName of Object.values(index[domain] ?? {})) {
        for (const cookie of Object.values(byName)) {
          // As the jar's serializeSync gives it; lastAccessed changes at every request: not worth a write.
          const { lastAccessed: _, creationIndex: __, ...kept } = cookie.toJSON() as Record<string, unknown>;
          now.set(cookieKey(kept), JSON.stringify(kept));
        }
      }
      const before = this.kept.get(domain);
      for (const [key, value] of now) if (before?.get(key) !== value) out.push({ key, value });
      for (const key of before?.keys() ?? []) if (!now.has(key)) out.push({ key, value: null });
      if (now.size === 0) this.kept.delete(domain);
      else this.kept.set(domain, now);
    }
    this.touched.clear();
    return out;
  }

  /** Cookies in the jar. */
  get size(): number {
    if (this.held === null) return 0;
    let n = 0;
    for (const byPath of Object.values(this.index)) {
      for (const byName of Object.values(byPath)) n += Object.keys(byName).length;
    }
    return n;
  }
}

/** Same expiry, to the second (a browser keeps seconds); a session cookie's is none. */
function sameSecond(a: Cookie, b: Cookie): boolean {
  const seconds = (c: Cookie) => {
    const at = c.expiryTime();
    return at === undefined || !Number.isFinite(at) ? null : Math.round(at / 1000);
  };
  return seconds(a) === seconds(b);
}

function cookieKey(c: Record<string, unknown>): string {
  return `${String(c.domain)};${String(c.path)};${String(c.key)}`;
}
