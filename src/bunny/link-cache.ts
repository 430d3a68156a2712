import { type CanonicalizeResult, canonicalize } from '../url/canonicalize.js';
import { trapOf } from '../url/traps.js';
import type { KnownUrl } from './known-urls.js';
import type { LinkRules } from './links.js';

/** What canonicalize -> filter made of one href, depth and redirect limits aside. */
export interface LinkVerdict {
  canonical: CanonicalizeResult;
  /** Why the filter or the trap rules refuse the canonical URL (as a page link); null: they take it. */
  refusal: string | null;
  /** The page analyzer's record of the URL (known-urls.ts), kept here for the href's next page. */
  known?: KnownUrl;
}

/**
 * canonicalize -> filter for the hrefs of pages, remembering the verdicts of recent
 * hrefs. Most links of a page are its site's navigation, repeated on every page and
 * spelled the same way (`/docs/install`, or absolute): their verdict depends only on the
 * page's origin, so each is worked out once per origin instead of once per page.
 * An href whose meaning depends on the rest of the page's URL (`../x`, `?page=2`) is
 * worked out every time. Bounded: two generations of at most `size` hrefs each.
 */
export class LinkCache {
  private young = new Map<string, Map<string, LinkVerdict>>();
  private old = new Map<string, Map<string, LinkVerdict>>();
  private youngSize = 0;

  constructor(
    private readonly rules: LinkRules,
    private readonly size = 16_384,
  ) {}

  /** The verdicts of one page's hrefs: what they resolve against is fixed for the page. */
  forPage(base: string): (href: string) => LinkVerdict {
    const origin = originPrefix(base);
    if (origin === null) return (href) => this.judge(href, base);
    // Absolute hrefs share one table whatever the page; root-relative ones, one per origin.
    const absolute = this.tables(ABSOLUTE);
    const rooted = this.tables(origin);
    return (href) => {
      const kind = kindOf(href);
      if (kind === 'other') return this.judge(href, base);
      const [young, old] = kind === 'absolute' ? absolute : rooted;
      let found = young.get(href);
      if (found === undefined) {
        found = old?.get(href) ?? detached(this.judge(href, base));
        young.set(flat(href), found);
        if (++this.youngSize >= this.size) this.age();
      }
      return found;
    };
  }

  /** The young table of a key (made if missing) and its old one, if any. */
  private tables(key: string): [Map<string, LinkVerdict>, Map<string, LinkVerdict> | undefined] {
    let young = this.young.get(key);
    if (young === undefined) {
      young = new Map();
      this.young.set(key, young);
    }
    return [young, this.old.get(key)];
  }

  /** The young generation becomes the old one; the old one is forgotten. */
  private age(): void {
    this.old = this.young;
    this.young = new Map();
    this.youngSize = 0;
  }

  private judge(href: string, base: string): LinkVerdict {
    const canonical = canonicalize(href, base);
    if (!canonical.ok) return { canonical, refusal: null };
    const filtered = this.rules.filter(canonical.url);
    return { canonical, refusal: filtered ?? trapOf(canonical.url, this.rules.traps) };
  }
}

const ABSOLUTE = '';

/**
 * A copy of a string that shares no memory with the one it came from. An href is a slice
 * of its page's text, and V8 keeps the whole text alive for as long as the slice lives:
 * a cache of slices would keep hundreds of pages.
 */
function flat(s: string): string {
  // Slicing a concatenation first copies it into one new string; the slice points into that.
  return ` ${s}`.slice(1);
}

/** A verdict to keep: its strings copied off the page they came from. */
function detached(v: LinkVerdict): LinkVerdict {
  return v.canonical.ok ? v : { ...v, canonical: { ...v.canonical, input: flat(v.canonical.input) } };
}

/**
 * What an href's verdict depends on: nothing but itself for an absolute http(s) URL,
 * the page's origin for a root-relative one (`/x`, but not `//host/x` nor `/\host`,
 * which name another host), more of the page's URL for any other.
 */
function kindOf(href: string): 'absolute' | 'rooted' | 'other' {
  const first = href.charCodeAt(0);
  if (first === 0x2f) {
    const second = href.charCodeAt(1);
    return second === 0x2f || second === 0x5c ? 'other' : 'rooted';
  }
  if ((first === 0x68 || first === 0x48) && /^https?:\/\//i.test(href)) return 'absolute';
  return 'other';
}

/**
 * `http(s)://authority` of an absolute base URL, or null for any other base. Userinfo
 * stays in it: it is part of what an href was resolved against.
 */
function originPrefix(base: string): string | null {
  const schemeEnd = base.startsWith('https://') ? 8 : base.startsWith('http://') ? 7 : -1;
  if (schemeEnd === -1) return null;
  const pathStart = base.indexOf('/', schemeEnd);
  return pathStart === -1 ? null : base.slice(0, pathStart);
}
