// XML sitemaps (and RSS/Atom feeds, which the protocol accepts as sitemaps) on htmlparser2's
// streaming parser in XML mode: no DOM, one pass, and damage is recorded instead of thrown.

import { type Handler, Parser } from 'htmlparser2';

export type XmlSitemapKind = 'urlset' | 'sitemapindex' | 'unknown';

export interface XmlSitemap {
  kind: XmlSitemapKind;
  urls: string[];
  sitemaps: string[];
  problems: string[];
}

/** Where the URLs of one kind of document are: the chain of elements from the root down to one URL. */
interface UrlPath {
  kind: 'urlset' | 'sitemapindex';
  /** Local names (prefix removed), root first. */
  names: readonly string[];
  into: 'urls' | 'sitemaps';
  /** The URL is the element's text, or its href attribute (Atom's <link href="...">). */
  from: 'text' | 'href';
}

const PATHS: ReadonlyMap<string, UrlPath> = new Map<string, UrlPath>([
  ['urlset', { kind: 'urlset', names: ['urlset', 'url', 'loc'], into: 'urls', from: 'text' }],
  [
    'sitemapindex',
    { kind: 'sitemapindex', names: ['sitemapindex', 'sitemap', 'loc'], into: 'sitemaps', from: 'text' },
  ],
  // A feed lists pages, so it reads as a urlset.
  ['rss', { kind: 'urlset', names: ['rss', 'channel', 'item', 'link'], into: 'urls', from: 'text' }],
  ['feed', { kind: 'urlset', names: ['feed', 'entry', 'link'], into: 'urls', from: 'href' }],
]);

// A garbage file could otherwise produce one problem per tag.
const MAX_PROBLEMS = 10;
// Names in problems come from the file; keep the record short whatever it holds.
const MAX_NAME_CHARS = 40;
// Written in slices so that parsing can stop early (URL limit, not a sitemap) without tokenizing the rest.
const WRITE_CHUNK_CHARS = 1 << 20;
const NOT_WHITESPACE = /\S/;
// htmlparser2 takes any '<' followed by a non-space as a tag; a real root has an XML name.
const XML_NAME = /^[A-Za-z_][\w.-]*(?::[A-Za-z_][\w.-]*)?$/;

type Attributes = Record<string, string>;

interface OpenElement {
  name: string;
  /** Namespaces declared on this element (xmlns, xmlns:p; '' is the default); null for the usual none. */
  namespaces: Map<string, string> | null;
  /** Where its start tag ended in the input: a close reported at the same place is a self-closing tag. */
  openedAt: number;
}

function localName(qualifiedName: string): string {
  const colon = qualifiedName.indexOf(':');
  return colon === -1 ? qualifiedName : qualifiedName.slice(colon + 1);
}

function clip(name: string): string {
  return name.length > MAX_NAME_CHARS ? `${name.slice(0, MAX_NAME_CHARS)}...` : name;
}

function declaredNamespaces(attribs: Attributes): Map<string, string> | null {
  let namespaces: Map<string, string> | null = null;
  for (const [key, value] of Object.entries(attribs)) {
    if (key === 'xmlns') {
      namespaces ??= new Map();
      namespaces.set('', value);
    } else if (key.startsWith('xmlns:')) {
      namespaces ??= new Map();
      namespaces.set(key.slice(6), value);
    }
  }
  return namespaces;
}

/** An Atom entry's link to the page itself; other rels point at feeds, media, edit endpoints. */
function isAlternateLink(attribs: Attributes): boolean {
  const rel = attribs.rel;
  return rel === undefined || rel.trim() === 'alternate';
}

class SitemapCollector implements Partial<Handler> {
  kind: XmlSitemapKind = 'unknown';
  readonly urls: string[] = [];
  readonly sitemaps: string[] = [];
  /** A Set: the same damage repeated is one problem. Insertion order is kept. */
  readonly problems = new Set<string>();
  rootSeen = false;
  declarationSeen = false;
  /** The URL limit was reached or the root is not a sitemap's: nothing more is wanted. */
  stopped = false;
  /** Set before parser.end(): closes it reports as implied are elements the input never closed. */
  endingInput = false;

  private parser: Parser | null = null;
  private readonly open: OpenElement[] = [];
  private path: UrlPath | null = null;
  private rootName = '';
  /**
   * The sitemap's namespace is whatever its root is in, so `<sm:loc>` counts under
   * `<sm:urlset>` while `<image:loc>` never does, without a list of known namespaces.
   */
  private rootNamespace = '';
  /** How many open elements, from the root down, follow `path`. */
  private depthOnPath = 0;
  private urlText = '';
  /** The root element has been closed: what comes after is reported once, as such. */
  private rootClosed = false;

  constructor(private readonly maxUrls: number) {}

  onparserinit(parser: Parser): void {
    this.parser = parser;
  }

  onprocessinginstruction(name: string): void {
    if (name === '?xml') this.declarationSeen = true;
  }

  onopentag(name: string, attribs: Attributes): void {
    const openedAt = this.parser?.endIndex ?? -1;
    const element: OpenElement = { name, namespaces: declaredNamespaces(attribs), openedAt };
    const depth = this.open.length;
    this.open.push(element);
    if (depth === 0) {
      this.onRoot(name);
      return;
    }
    const path = this.path;
    if (path === null || this.depthOnPath !== depth || depth >= path.names.length) return;
    if (localName(name) !== path.names[depth] || this.namespaceOf(name) !== this.rootNamespace) return;
    this.depthOnPath = depth + 1;
    if (this.depthOnPath < path.names.length) return;
    if (path.from === 'text') this.urlText = '';
    else if (isAlternateLink(attribs)) this.add(attribs.href ?? '', path, name);
  }

  ontext(data: string): void {
    const depth = this.open.length;
    const path = this.path;
    if (path !== null && path.from === 'text' && depth === path.names.length && this.depthOnPath === depth) {
      this.urlText += data;
    } else if (depth <= 1 && NOT_WHITESPACE.test(data)) {
      this.problem(depth === 0 ? 'text outside the root element' : `stray text in <${clip(this.rootName)}>`);
    }
  }

  onclosetag(name: string, isImplied: boolean): void {
    const element = this.open.pop();
    if (element === undefined) return;
    // htmlparser2 reports the close of a self-closing tag (<loc/>) as implied too.
    const selfClosing = isImplied && !this.endingInput && element.openedAt === this.parser?.endIndex;
    const unclosed = isImplied && !selfClosing;
    const depth = this.open.length;
    // At the end of the input every open element is unclosed; the outermost one says it all.
    if (unclosed && !this.rootClosed && (!this.endingInput || depth === 0)) {
      this.problem(`unclosed <${clip(name)}>`);
    }
    if (depth === 0) this.rootClosed = true;

    const path = this.path;
    if (path === null || this.depthOnPath !== depth + 1) return;
    this.depthOnPath = depth;
    if (depth + 1 === path.names.length && path.from === 'text') {
      // An unclosed URL element was cut off, possibly in the middle of the URL: not kept.
      if (!unclosed) this.add(this.urlText, path, name);
      this.urlText = '';
    }
  }

  problem(text: string): void {
    if (this.problems.size < MAX_PROBLEMS) this.problems.add(text);
  }

  private onRoot(name: string): void {
    if (this.rootSeen) {
      this.problem('content after the root element');
      return;
    }
    if (!XML_NAME.test(name)) {
      this.stop();
      return;
    }
    this.rootSeen = true;
    this.rootName = name;
    const path = PATHS.get(localName(name));
    if (path === undefined) {
      this.problem(`not a sitemap: root <${clip(name)}>`);
      this.stop();
      return;
    }
    this.path = path;
    this.kind = path.kind;
    this.rootNamespace = this.namespaceOf(name);
    this.depthOnPath = 1;
  }

  /** The namespace URI of an element name in the current scope; an undeclared prefix is its own namespace. */
  private namespaceOf(qualifiedName: string): string {
    const colon = qualifiedName.indexOf(':');
    const prefix = colon === -1 ? '' : qualifiedName.slice(0, colon);
    for (let i = this.open.length - 1; i >= 0; i--) {
      const uri = this.open[i]?.namespaces?.get(prefix);
      if (uri !== undefined) return uri;
    }
    return prefix === '' ? '' : `undeclared:${prefix}`;
  }

  private add(raw: string, path: UrlPath, elementName: string): void {
    const url = raw.trim();
    if (url.length === 0) {
      this.problem(`empty <${clip(elementName)}>`);
      return;
    }
    if (this.urls.length + this.sitemaps.length >= this.maxUrls) {
      // Past the cap on purpose: however noisy the file, the record must say URLs were left out.
      this.problems.add(`truncated at ${this.maxUrls} URLs`);
      this.stop();
      return;
    }
    (path.into === 'urls' ? this.urls : this.sitemaps).push(url);
  }

  private stop(): void {
    this.stopped = true;
    this.parser?.pause();
  }
}

export function parseSitemapXml(text: string, maxUrls: number): XmlSitemap {
  const collector = new SitemapCollector(maxUrls);
  const parser = new Parser(collector, { xmlMode: true });
  try {
    for (let at = 0; at < text.length && !collector.stopped; at += WRITE_CHUNK_CHARS) {
      parser.write(text.slice(at, at + WRITE_CHUNK_CHARS));
    }
    if (!collector.stopped) {
      collector.endingInput = true;
      parser.end();
    }
  } catch {
    // A parser bug must not cost us the sitemap: keep whatever was gathered before it.
    collector.problem('XML parser failed');
  }
  if (!collector.rootSeen) collector.problem(collector.declarationSeen ? 'no root element' : 'not XML');
  return {
    kind: collector.kind,
    urls: collector.urls,
    sitemaps: collector.sitemaps,
    problems: [...collector.problems],
  };
}
