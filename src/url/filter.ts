import { createRequire } from 'node:module';
import type { getDomain as GetDomain } from 'tldts';
import { hostnameOf } from './host.js';

/** How far a crawl may wander from its seeds. */
export type ScopeMode = 'host' | 'domain' | 'any';

/** Why a URL was rejected, named after the first check it failed. */
export type FilterReason = 'scope' | 'exclude' | 'include' | 'substring' | 'extension';

export interface UrlFilterOptions {
  scope: ScopeMode;
  /** Canonical seed URLs; they define the scope. */
  seeds: readonly string[];
  /** If non-empty, a URL must match at least one. */
  include?: readonly RegExp[];
  /** A URL matching any is rejected. */
  exclude?: readonly RegExp[];
  /** Lowercase, no dot (`.PDF` is tolerated); default DEFAULT_SKIP_EXTENSIONS. */
  skipExtensions?: readonly string[];
  /** A URL containing any of these is rejected (the original's test for `cgi-bin`, `/~`). */
  skipSubstrings?: readonly string[];
}

/**
 * File types a crawler of pages gains nothing from fetching: images, video, audio, archives,
 * executables and installers, disk images and fonts. Documents and the text formats a page is
 * made of (html, pdf, css, js, xml, txt) are deliberately absent.
 */
export const DEFAULT_SKIP_EXTENSIONS: readonly string[] = Object.freeze(
  [
    'jpg jpeg png gif bmp webp tif tiff ico svg heic avif', // images
    'mp4 m4v avi mov wmv flv mkv webm mpg mpeg 3gp', // video
    'mp3 wav ogg oga flac aac m4a wma opus mid midi', // audio
    'zip tar gz tgz bz2 xz 7z rar zst lz cab', // archives
    'exe msi dmg iso bin apk deb rpm jar dll so', // executables, installers, packages, disk images
    'woff woff2 ttf otf eot', // fonts
  ]
    .join(' ')
    .split(' '),
);

/** Bound of the per-filter hostname -> in-scope cache (domain mode). */
const MAX_REMEMBERED_HOSTS = 10_000;

/** ICANN section only: a private suffix like github.io must not split one site into many scopes. */
const DOMAIN_OPTIONS = { allowPrivateDomains: false, extractHostname: false, mixedInputs: false } as const;

/**
 * What "same scope" compares for a canonical hostname (lowercase, IPv6 in brackets, no port).
 * `host`: the hostname itself. `domain`: its registrable domain (www.example.co.uk ->
 * example.co.uk); an IP address, or a name with no registrable domain such as `localhost` or a
 * bare public suffix, is its own scope. `any`: one key for everything.
 */
export function scopeKey(hostname: string, mode: ScopeMode): string {
  if (mode === 'any') return '';
  if (mode === 'host' || isIpAddress(hostname)) return hostname;
  return registrableDomain(hostname) ?? hostname;
}

let getDomain: typeof GetDomain | undefined;

/**
 * tldts's getDomain, loaded on first use: its public suffix list takes a while to load,
 * and a crawl of addresses (or with --scope host or any) never needs it.
 */
function registrableDomain(hostname: string): string | null {
  getDomain ??= (createRequire(import.meta.url)('tldts') as { getDomain: typeof GetDomain }).getDomain;
  return getDomain(hostname, DOMAIN_OPTIONS);
}

/**
 * In a canonical hostname an IPv6 literal starts with `[`, and a name whose last label is all
 * digits is an IPv4 address: WHATWG parses such a host as IPv4 (serialized as dotted decimal,
 * without a trailing dot) or rejects it.
 */
function isIpAddress(hostname: string): boolean {
  if (hostname.charCodeAt(0) === 0x5b) return true;
  const lastLabel = hostname.lastIndexOf('.') + 1;
  if (lastLabel === hostname.length) return false;
  for (let i = lastLabel; i < hostname.length; i++) {
    const c = hostname.charCodeAt(i);
    if (c < 0x30 || c > 0x39) return false;
  }
  return true;
}

/**
 * Builds the link filter: returns null when a canonical URL is accepted, otherwise the reason
 * of the first failed check, in the order scope, exclude, include, substring, extension.
 *
 * With `host` or `domain` scope and no seeds, nothing is in scope.
 */
export function createUrlFilter(opts: UrlFilterOptions): (canonicalUrl: string) => FilterReason | null {
  const mode = opts.scope;
  const seedScopes = new Set(opts.seeds.map((seed) => scopeKey(hostnameOf(seed), mode)));
  const include = (opts.include ?? []).map(withoutState);
  const exclude = (opts.exclude ?? []).map(withoutState);
  const substrings = (opts.skipSubstrings ?? []).filter((s) => s !== '');
  // Forgiving about `.PDF` from a command line; the lookup side is lowercase, without the dot.
  const skipExtensions = new Set(
    (opts.skipExtensions ?? DEFAULT_SKIP_EXTENSIONS).map((ext) =>
      (ext.startsWith('.') ? ext.slice(1) : ext).toLowerCase(),
    ),
  );
  let longestSkipExtension = 0;
  for (const ext of skipExtensions) longestSkipExtension = Math.max(longestSkipExtension, ext.length);

  // A crawl meets the same few hosts over and over, and a suffix-list lookup costs several
  // times a map hit, so domain verdicts are remembered per hostname. Cleared when full to stay
  // bounded; host mode needs no cache, its key is the hostname itself.
  const domainVerdicts = new Map<string, boolean>();
  const inScope = (canonicalUrl: string): boolean => {
    const hostname = hostnameOf(canonicalUrl);
    if (mode === 'host') return seedScopes.has(hostname);
    let verdict = domainVerdicts.get(hostname);
    if (verdict === undefined) {
      if (domainVerdicts.size >= MAX_REMEMBERED_HOSTS) domainVerdicts.clear();
      verdict = seedScopes.has(scopeKey(hostname, mode));
      domainVerdicts.set(hostname, verdict);
    }
    return verdict;
  };

  return (canonicalUrl) => {
    if (mode !== 'any' && !inScope(canonicalUrl)) return 'scope';
    for (const pattern of exclude) if (pattern.test(canonicalUrl)) return 'exclude';
    if (include.length > 0 && !include.some((pattern) => pattern.test(canonicalUrl))) return 'include';
    for (const s of substrings) if (canonicalUrl.includes(s)) return 'substring';
    const ext = extensionOf(canonicalUrl, longestSkipExtension);
    if (ext !== '' && skipExtensions.has(ext)) return 'extension';
    return null;
  };
}

/**
 * A copy of the pattern without the `g` and `y` flags: with them, RegExp.test() resumes from
 * lastIndex, so the same URL would match on one call and not on the next.
 */
function withoutState(pattern: RegExp): RegExp {
  if (!pattern.global && !pattern.sticky) return pattern;
  return new RegExp(pattern.source, pattern.flags.replace(/[gy]/g, ''));
}

/**
 * The lowercase extension of the last path segment (after its last `.`), query ignored; '' when
 * there is none or when it is longer than `maxLength`, which spares lowercasing long names that
 * could not be in the skip set anyway.
 */
function extensionOf(canonicalUrl: string, maxLength: number): string {
  const query = canonicalUrl.indexOf('?');
  const pathEnd = query === -1 ? canonicalUrl.length : query;
  // The path always starts with `/`, so this is the start of the last segment, past the host.
  const lastSlash = canonicalUrl.lastIndexOf('/', pathEnd - 1);
  const dot = canonicalUrl.lastIndexOf('.', pathEnd - 1);
  const length = pathEnd - dot - 1;
  if (dot < lastSlash || length === 0 || length > maxLength) return '';
  return canonicalUrl.slice(dot + 1, pathEnd).toLowerCase();
}
