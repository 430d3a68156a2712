// Sitemap parsing (sitemaps.org protocol): XML urlset and sitemapindex, gzipped files, text
// sitemaps and RSS/Atom feeds. Whatever the file holds, this returns what could be read and
// a list of what was wrong; it never throws.

import { decodeSitemapText } from './sitemap-decode.js';
import { gunzipBounded, isGzip } from './sitemap-gunzip.js';
import { parseTextSitemap } from './sitemap-text.js';
import { parseSitemapXml } from './sitemap-xml.js';

export interface SitemapLimits {
  /** URLs kept per file, urls and sitemaps together; the protocol's own limit is 50,000. */
  maxUrls: number;
  /** Uncompressed bytes read per file; parsing stops past it. The protocol's limit is 50 MiB. */
  maxBytes: number;
}

export interface ParsedSitemap {
  /** 'urlset' also stands for an RSS or Atom feed, whose entries are pages too. */
  kind: 'urlset' | 'sitemapindex' | 'text' | 'unknown';
  /** Page URLs (urlset <url><loc>, or lines of a text sitemap), trimmed, entity-decoded, in order, as written (not canonicalized). */
  urls: string[];
  /** Child sitemap URLs (sitemapindex <sitemap><loc>). */
  sitemaps: string[];
  /** What was wrong, short, for the crawl's record: 'not XML', 'truncated at 50000 URLs', 'bad gzip', 'unclosed <urlset>' ... Empty when clean. */
  problems: string[];
}

export const DEFAULT_SITEMAP_LIMITS: SitemapLimits = Object.freeze({
  maxUrls: 50_000,
  maxBytes: 50 * 1024 * 1024,
});

/** The uncompressed bytes within the limit; `problem` says what was lost getting them, if anything. */
function contentBytes(body: Uint8Array, maxBytes: number): { bytes: Uint8Array; problem: string | null } {
  if (isGzip(body)) return gunzipBounded(body, maxBytes);
  if (body.length > maxBytes) {
    return { bytes: body.subarray(0, maxBytes), problem: `truncated at ${maxBytes} bytes` };
  }
  return { bytes: body, problem: null };
}

function firstNonWhitespace(text: string): string | undefined {
  const match = /\S/.exec(text);
  return match === null ? undefined : match[0];
}

export function parseSitemap(
  body: Uint8Array,
  opts: { url: string; contentType: string | null; limits?: Partial<SitemapLimits> },
): ParsedSitemap {
  const maxUrls = opts.limits?.maxUrls ?? DEFAULT_SITEMAP_LIMITS.maxUrls;
  const maxBytes = opts.limits?.maxBytes ?? DEFAULT_SITEMAP_LIMITS.maxBytes;
  const problems: string[] = [];
  const unknown = (): ParsedSitemap => ({ kind: 'unknown', urls: [], sitemaps: [], problems });

  const content = contentBytes(body, maxBytes);
  if (content.problem !== null) problems.push(content.problem);
  // The end of the bytes may be the middle of a URL.
  const cut = content.problem !== null;
  const decoded = decodeSitemapText(content.bytes, opts.contentType);
  if (decoded.problem !== null) problems.push(decoded.problem);
  const text = decoded.text;

  const first = firstNonWhitespace(text);
  if (first === undefined) {
    // A gzip problem already explains why nothing is left.
    if (problems.length === 0) problems.push('empty');
    return unknown();
  }
  if (first !== '<') {
    const lines = parseTextSitemap(text, maxUrls, cut);
    if (lines !== null) {
      if (lines.truncated) problems.push(`truncated at ${maxUrls} URLs`);
      return { kind: 'text', urls: lines.urls, sitemaps: [], problems };
    }
  }
  // Text before the markup (a PHP warning printed ahead of the XML, say) still leaves a sitemap to read.
  const xml = parseSitemapXml(text, maxUrls);
  if (first !== '<' && xml.kind === 'unknown') {
    problems.push('not XML');
    return unknown();
  }
  problems.push(...xml.problems);
  return { kind: xml.kind, urls: xml.urls, sitemaps: xml.sitemaps, problems };
}
