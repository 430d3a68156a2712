import type { Cookie, CookieJar } from 'tough-cookie';
import { toughCookie } from './tough-cookie.js';

/** A cookie as a store keeps it: opaque to the store, one row per (domain, path, name). */
export interface StoredCookie {
  key: string;
  /** The cookie as tough-cookie's JSON; null: the cookie is gone (expired, or deleted by its site). */
  value: string | null;
}

/**
 * The crawl's cookie jar: RFC 6265 rules (tough-cookie), so a cookie goes back only to
 * the host that set it (or, with a Domain attribute, that domain's hosts; never a public
 * suffix). Changes are handed out by `changes()` for the store to keep, so a resumed
 * crawl keeps its session. The jar (and tough-cookie) comes into being with the first
 * cookie: until then every request goes without one, at no cost.
 */
export class CrawlCookies {
  private held: CookieJar | null = null;
  /** What the store holds now, by key: the JSON last handed out. */
  private readonly kept = new Map<string, string>();
  private dirty = false;

  constructor(stored: readonly StoredCookie[] = []) {
    for (const row of stored) {
      if (row.value === null) continue;
      const cookie = toughCookie().Cookie.fromJSON(row.value);
      if (cookie === undefined) continue;
      this.jar.store.putCookie(cookie).catch(() => {});
      this.kept.set(row.key, row.value);
    }
  }

  private get jar(): CookieJar {
    this.held ??= new (toughCookie().CookieJar)(undefined, { looseMode: true });
    return this.held;
  }

  /** The Cookie header for a request to `url`, or null when the jar has none for it. */
  header(url: string): string | null {
    if (this.held === null) return null;
    const value = this.held.getCookieStringSync(url);
    return value === '' ? null : value;
  }

  /** A response's Set-Cookie headers; one the rules refuse (another domain, a bad one) is dropped. */
  take(url: string, setCookies: readonly string[]): void {
    if (setCookies.length === 0) return;
    for (const header of setCookies) {
      const set = this.jar.setCookieSync(header, url, { ignoreError: true });
      if (set !== undefined) this.dirty = true;
    }
  }

  /** Adds cookies as they are (from a cookies.txt); they count as changes. */
  add(cookies: readonly Cookie[]): void {
    if (cookies.length === 0) return;
    for (const cookie of cookies) this.jar.store.putCookie(cookie).catch(() => {});
    this.dirty = true;
  }

  /** What changed since the last call: new or changed cookies, and those gone. */
  changes(): StoredCookie[] {
    if (!this.dirty || this.held === null) return [];
    this.dirty = false;
    const now = new Map<string, string>();
    for (const c of this.held.serializeSync()?.cookies ?? []) {
      // lastAccessed changes at every request: not worth a write.
      const { lastAccessed: _, ...kept } = c as Record<string, unknown>;
      now.set(cookieKey(kept), JSON.stringify(kept));
    }
    const out: StoredCookie[] = [];
    for (const [key, value] of now) if (this.kept.get(key) !== value) out.push({ key, value });
    for (const key of this.kept.keys()) if (!now.has(key)) out.push({ key, value: null });
    this.kept.clear();
    for (const [key, value] of now) this.kept.set(key, value);
    return out;
  }

  get size(): number {
    return this.held?.serializeSync()?.cookies.length ?? 0;
  }
}

function cookieKey(c: Record<string, unknown>): string {
  return `${String(c.domain)};${String(c.path)};${String(c.key)}`;
}
