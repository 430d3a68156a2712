// What a tag's attributes say about links: rel tokens, meta refresh URLs, href trimming.

/** Trims what the URL parser would strip anyway (C0 controls and space), allocating only if needed. */
export function trimUrl(value: string): string {
  let start = 0;
  let end = value.length;
  while (start < end && value.charCodeAt(start) <= 0x20) start++;
  while (end > start && value.charCodeAt(end - 1) <= 0x20) end--;
  return start === 0 && end === value.length ? value : value.slice(start, end);
}

function isAsciiWhitespace(code: number): boolean {
  return code === 0x20 || code === 0x09 || code === 0x0a || code === 0x0c || code === 0x0d;
}

/**
 * Whether a whitespace-separated token list (rel="...") contains `token`, ASCII
 * case-insensitively. `token` must be lowercase. Scans in place instead of splitting.
 */
export function hasToken(list: string, token: string): boolean {
  const lower = list.toLowerCase();
  let from = 0;
  for (;;) {
    const at = lower.indexOf(token, from);
    if (at === -1) return false;
    const end = at + token.length;
    const before = at === 0 || isAsciiWhitespace(lower.charCodeAt(at - 1));
    const after = end === lower.length || isAsciiWhitespace(lower.charCodeAt(end));
    if (before && after) return true;
    from = at + 1;
  }
}

/**
 * `<link rel>` values that name another page (HTML's hyperlink link types, and the older
 * navigation ones). Every other `<link>` names a resource of this page (a stylesheet,
 * an icon, a preload) or is no link at all (`rev="made"` with an email address), so it
 * is not followed.
 */
const PAGE_RELS = new Set([
  'alternate',
  'canonical',
  'next',
  'prev',
  'previous',
  'first',
  'last',
  'start',
  'up',
  'index',
  'contents',
  'home',
  'chapter',
  'section',
  'subsection',
  'appendix',
  'glossary',
  'help',
  'license',
  'author',
  'privacy-policy',
  'terms-of-service',
]);

/** Tokens that make a `<link>` a resource of the page even beside a page rel ("alternate stylesheet"). */
const RESOURCE_RELS = new Set([
  'stylesheet',
  'icon',
  'apple-touch-icon',
  'manifest',
  'preload',
  'prefetch',
  'modulepreload',
  'preconnect',
  'dns-prefetch',
  'prerender',
  'pingback',
]);

/** Whether a `<link rel>` value names a page to crawl. */
export function namesPage(rel: string | undefined): boolean {
  if (rel === undefined) return false;
  let page = false;
  for (const token of rel.toLowerCase().split(/[\t\n\f\r ]+/)) {
    if (RESOURCE_RELS.has(token)) return false;
    if (PAGE_RELS.has(token)) page = true;
  }
  return page;
}

function isAsciiDigit(code: number): boolean {
  return code >= 0x30 && code <= 0x39;
}

function skipWhitespace(input: string, from: number): number {
  let pos = from;
  while (pos < input.length && isAsciiWhitespace(input.charCodeAt(pos))) pos++;
  return pos;
}

/** Whether input[pos] is the ASCII letter `lower` in either case. */
function isLetterAt(input: string, pos: number, lower: string): boolean {
  return (input.charCodeAt(pos) | 0x20) === lower.charCodeAt(0);
}

/**
 * The URL of a `<meta http-equiv="refresh" content="...">`, following the HTML spec's
 * "shared declarative refresh steps": `5; url=/next`, `0;URL='/x'`, `0;/x`, `3, /x`.
 * Returns null when the content is malformed or only holds a delay.
 */
export function parseRefreshUrl(content: string): string | null {
  let pos = skipWhitespace(content, 0);
  const digitsStart = pos;
  while (pos < content.length && isAsciiDigit(content.charCodeAt(pos))) pos++;
  if (pos === digitsStart && content.charCodeAt(pos) !== 0x2e) return null;
  // Fractional parts of the delay are allowed and ignored.
  while (pos < content.length && (isAsciiDigit(content.charCodeAt(pos)) || content.charCodeAt(pos) === 0x2e))
    pos++;
  if (pos >= content.length) return null;
  const separator = content.charCodeAt(pos);
  if (separator !== 0x3b && separator !== 0x2c && !isAsciiWhitespace(separator)) return null;
  pos = skipWhitespace(content, pos);
  const punctuation = content.charCodeAt(pos);
  if (punctuation === 0x3b || punctuation === 0x2c) pos++;
  pos = skipWhitespace(content, pos);
  if (pos >= content.length) return null;

  // An optional `url =` prefix; if it is incomplete, what was read is part of the URL.
  let urlStart = pos;
  if (
    isLetterAt(content, pos, 'u') &&
    isLetterAt(content, pos + 1, 'r') &&
    isLetterAt(content, pos + 2, 'l')
  ) {
    const eq = skipWhitespace(content, pos + 3);
    if (content.charCodeAt(eq) === 0x3d) urlStart = skipWhitespace(content, eq + 1);
  }
  const quote = content.charAt(urlStart);
  let url: string;
  if (quote === '"' || quote === "'") {
    const close = content.indexOf(quote, urlStart + 1);
    url = close === -1 ? content.slice(urlStart + 1) : content.slice(urlStart + 1, close);
  } else {
    url = content.slice(urlStart);
  }
  url = trimUrl(url);
  return url.length > 0 ? url : null;
}
