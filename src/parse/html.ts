// Link and metadata extraction from HTML, on htmlparser2's streaming tokenizer: no DOM is
// built, and only the handful of elements a crawler cares about are looked at.

import { type Handler, Parser } from 'htmlparser2';
import { decodeBody } from './charset.js';

export type LinkSource = 'a' | 'area' | 'link' | 'frame' | 'iframe' | 'meta-refresh';

export interface HtmlLink {
  /** The raw attribute value, entity-decoded and trimmed; NOT resolved, NOT canonicalized. */
  href: string;
  source: LinkSource;
  /** The rel attribute contains the token "nofollow". */
  nofollow: boolean;
}

export interface ParsedHtml {
  charset: string;
  /** The decoded document (for modules, which get the page as text). */
  text: string;
  /** Absolute URL that hrefs resolve against: the page URL, or the first <base href> resolved against it. */
  base: string;
  /** First <title> outside <svg>/<math>, whitespace collapsed and trimmed; null if none or empty. */
  title: string | null;
  /** Document order, duplicates kept; `<link>` only when its rel names a page (alternate, next, ...). */
  links: HtmlLink[];
  metaRobots: { noindex: boolean; nofollow: boolean };
  /** Raw href of the first <link rel="canonical">. */
  canonical: string | null;
  hasForm: boolean;
}

type Attributes = Record<string, string>;

// An unclosed <title> swallows the rest of the document (it does in browsers too); keep
// at most this much of it so one hostile page cannot make us store megabytes of title.
const MAX_TITLE_CHARS = 4096;

/** Trims what the URL parser would strip anyway (C0 controls and space), allocating only if needed. */
function trimUrl(value: string): string {
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
function hasToken(list: string, token: string): boolean {
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
function namesPage(rel: string | undefined): boolean {
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
function parseRefreshUrl(content: string): string | null {
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

/** Collects everything `parseHtml` reports while the parser streams events at it. */
class Collector implements Partial<Handler> {
  base: string;
  private baseSeen = false;
  title: string | null = null;
  private titleSeen = false;
  private inTitle = false;
  private titleText = '';
  /** Depth of <svg>/<math>: a <title> in there names a graphic, not the page. */
  private foreignDepth = 0;
  readonly links: HtmlLink[] = [];
  readonly metaRobots = { noindex: false, nofollow: false };
  canonical: string | null = null;
  hasForm = false;

  constructor(private readonly pageUrl: string) {
    this.base = pageUrl;
  }

  onopentag(name: string, attribs: Attributes): void {
    switch (name) {
      case 'a':
      case 'area':
        this.addLink(attribs.href, name, attribs.rel);
        break;
      case 'link':
        this.onLink(attribs);
        break;
      case 'frame':
      case 'iframe':
        this.addLink(attribs.src, name, undefined);
        break;
      case 'meta':
        this.onMeta(attribs);
        break;
      case 'base':
        this.onBase(attribs.href);
        break;
      case 'form':
        this.hasForm = true;
        break;
      case 'title':
        if (!this.titleSeen && this.foreignDepth === 0) {
          this.titleSeen = true;
          this.inTitle = true;
        }
        break;
      case 'svg':
      case 'math':
        this.foreignDepth++;
        break;
    }
  }

  ontext(text: string): void {
    if (this.inTitle && this.titleText.length < MAX_TITLE_CHARS) this.titleText += text;
  }

  onclosetag(name: string): void {
    if (name === 'title') {
      if (this.inTitle) this.finishTitle();
    } else if ((name === 'svg' || name === 'math') && this.foreignDepth > 0) {
      this.foreignDepth--;
    }
  }

  /** Called after the parser stops, normally or not, so a cut-off <title> still counts. */
  finish(): void {
    if (this.inTitle) this.finishTitle();
  }

  private finishTitle(): void {
    this.inTitle = false;
    const raw =
      this.titleText.length > MAX_TITLE_CHARS ? this.titleText.slice(0, MAX_TITLE_CHARS) : this.titleText;
    const collapsed = raw.replace(/[\t\n\f\r ]+/g, ' ').trim();
    this.title = collapsed.length > 0 ? collapsed : null;
    this.titleText = '';
  }

  private addLink(raw: string | undefined, source: LinkSource, rel: string | undefined): void {
    if (raw === undefined) return;
    const href = trimUrl(raw);
    if (href.length === 0) return;
    this.links.push({ href, source, nofollow: rel !== undefined && hasToken(rel, 'nofollow') });
  }

  private onLink(attribs: Attributes): void {
    const rel = attribs.rel;
    if (namesPage(rel)) this.addLink(attribs.href, 'link', rel);
    if (
      this.canonical === null &&
      rel !== undefined &&
      attribs.href !== undefined &&
      hasToken(rel, 'canonical')
    ) {
      const href = trimUrl(attribs.href);
      if (href.length > 0) this.canonical = href;
    }
  }

  private onMeta(attribs: Attributes): void {
    const content = attribs.content;
    if (content === undefined) return;
    const httpEquiv = attribs['http-equiv'];
    if (httpEquiv !== undefined && httpEquiv.trim().toLowerCase() === 'refresh') {
      const url = parseRefreshUrl(content);
      if (url !== null) this.addLink(url, 'meta-refresh', undefined);
      return;
    }
    const name = attribs.name;
    if (name !== undefined && name.trim().toLowerCase() === 'robots') this.onRobots(content);
  }

  /** Directives are comma-separated; several robots metas add up. */
  private onRobots(content: string): void {
    for (const part of content.toLowerCase().split(',')) {
      const directive = part.trim();
      if (directive === 'noindex') this.metaRobots.noindex = true;
      else if (directive === 'nofollow') this.metaRobots.nofollow = true;
      else if (directive === 'none') {
        this.metaRobots.noindex = true;
        this.metaRobots.nofollow = true;
      }
    }
  }

  /** Only the first <base href> counts, even if it is invalid (HTML spec: the fallback is the page URL). */
  private onBase(href: string | undefined): void {
    if (href === undefined || this.baseSeen) return;
    this.baseSeen = true;
    try {
      this.base = new URL(trimUrl(href), this.pageUrl).href;
    } catch {
      // Invalid base (or page URL): hrefs resolve against the page URL.
    }
  }
}

export function parseHtml(body: Uint8Array, opts: { url: string; contentType: string | null }): ParsedHtml {
  const { text, charset } = decodeBody(body, opts.contentType);
  const collector = new Collector(opts.url);
  try {
    const parser = new Parser(collector, { decodeEntities: true });
    parser.write(text);
    parser.end();
  } catch {
    // A parser bug must not cost us the page: keep whatever was gathered before it.
  }
  collector.finish();
  return {
    charset,
    text,
    base: collector.base,
    title: collector.title,
    links: collector.links,
    metaRobots: collector.metaRobots,
    canonical: collector.canonical,
    hasForm: collector.hasForm,
  };
}
