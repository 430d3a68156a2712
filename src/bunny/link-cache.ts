import { type CanonicalizeResult, canonicalize } from '../url/canonicalize.js';
import { pathEndOf } from '../url/folder.js';
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
 * spelled the same way: their verdict depends only on the page's origin (`/docs/install`,
 * or an absolute URL) or on its folder (`install.html`, `../api/`, as generated
 * documentation spells its contents), so each is worked out once per origin or folder
 * instead of once per page. An href whose meaning depends on the rest of the page's URL
 * (`?page=2`, `#top`, ``) is worked out every time. Bounded: two generations of at most
 * `size` hrefs each.
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
    // Absolute hrefs share one table whatever the page; root-relative ones, one per
    // origin; folder-relative ones, one per folder (the base up to its path's last '/').
    const absolute = this.tables(ABSOLUTE);
    const rooted = this.tables(origin);
    let relative: Tables | undefined;
    return (href) => {
      const kind = kindOf(href);
      if (kind === 'other') return this.judge(href, base);
      let tables: Tables;
      if (kind === 'absolute') tables = absolute;
      else if (kind === 'rooted') tables = rooted;
      else {
        relative ??= this.tables(folderPrefix(base, origin.length));
        tables = relative;
      }
      const [young, old] = tables;
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
  private tables(key: string): Tables {
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

type Tables = [Map<string, LinkVerdict>, Map<string, LinkVerdict> | undefined];

// Keys of the tables: '' for absolute hrefs, an origin (no '/' after its '//') for
// root-relative ones, an origin and a path ending in '/' for folder-relative ones.
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
 * which name another host), the page's folder for a path relative to it (see
 * isFolderRelative), more of the page's URL for any other.
 */
function kindOf(href: string): 'absolute' | 'rooted' | 'relative' | 'other' {
  const first = href.charCodeAt(0);
  if (first === 0x2f) {
    const second = href.charCodeAt(1);
    return second === 0x2f || second === 0x5c ? 'other' : 'rooted';
  }
  if ((first === 0x68 || first === 0x48) && /^https?:\/\//i.test(href)) return 'absolute';
  return isFolderRelative(href) ? 'relative' : 'other';
}

/**
 * A relative path (`x.html`, `../api/`, `a/b?q#f`): the URL parser resolves it against
 * the base's scheme, authority and path without its last segment, and nothing else of
 * the base. It starts with a letter, a digit or one of `.-_~%` (so no leading space,
 * tab, slash, backslash, `?` or `#`), and has no `:` before its first `/`, `?` or `#`,
 * which would make its start a scheme (`http:?q` is relative to the whole base path).
 */
function isFolderRelative(href: string): boolean {
  const first = href.charCodeAt(0);
  const leads =
    (first >= 0x61 && first <= 0x7a) ||
    (first >= 0x41 && first <= 0x5a) ||
    (first >= 0x30 && first <= 0x39) ||
    first === 0x2e ||
    first === 0x2d ||
    first === 0x5f ||
    first === 0x7e ||
    first === 0x25;
  if (!leads) return false;
  for (let i = 1; i < href.length; i++) {
    const c = href.charCodeAt(i);
    if (c === 0x3a) return false;
    // A tab or newline inside is dropped by the parser: it could hide a scheme's ':'.
    if (c === 0x2f || c === 0x3f || c === 0x23) return true;
    if (c === 0x09 || c === 0x0a || c === 0x0d || c === 0x5c) return false;
  }
  return true;
}

/**
 * The page's folder: its base up to the last '/' of the path (`http://h/a/b.html` ->
 * `http://h/a/`), the query and fragment left out. `pathStart`: where the path starts
 * (the origin's length).
 */
function folderPrefix(base: string, pathStart: number): string {
  return base.slice(0, base.lastIndexOf('/', pathEndOf(base, pathStart) - 1) + 1);
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
