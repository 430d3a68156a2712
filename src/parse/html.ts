// Link and metadata extraction from HTML, on htmlparser2's streaming tokenizer: no DOM is
// built, and only the handful of elements a crawler cares about are looked at.

import { decodeBody } from './charset.js';
import { cssUrls } from './css-urls.js';
import { hasToken, namesPage, parseRefreshUrl, trimUrl } from './link-rels.js';
import { FactsCollector, FIELDS, type PageFacts } from './page-facts.js';
import { REQUISITE_TAGS, requisitesOf } from './requisite-tags.js';
import { type Attributes, type TagHandler, TagReader } from './tag-reader.js';

export type { MetaTag, PageFacts, PageForm } from './page-facts.js';

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
  /** What modules read of the page instead of parsing it again. */
  facts: PageFacts;
  /**
   * Asked for (`requisites: true`): what the page needs to be shown (stylesheets, scripts,
   * images and srcset candidates, icons, media and posters, url() and @import of its
   * <style> elements), raw, in document order, duplicates kept. Else empty.
   */
  requisites: string[];
}

// An unclosed <title> swallows the rest of the document (it does in browsers too); keep
// at most this much of it so one hostile page cannot make us store megabytes of title.
const MAX_TITLE_CHARS = 4096;

/** The tags the collector is shown: those it reads, and a form's fields. */
const TAGS = new Set([
  'a',
  'area',
  'link',
  'frame',
  'iframe',
  'meta',
  'base',
  'form',
  'html',
  'title',
  ...FIELDS,
]);

/** With requisites asked for, the tags that may name one too. */
const TAGS_AND_REQUISITES = new Set([...TAGS, ...REQUISITE_TAGS]);

// A <style> element's text is kept up to this much for its url()s (css-urls.ts caps more).
const MAX_STYLE_CHARS = 512 * 1024;

/** Collects everything `parseHtml` reports while the reader streams tags at it. */
class Collector implements TagHandler {
  base: string;
  private baseSeen = false;
  title: string | null = null;
  private titleSeen = false;
  private inTitle = false;
  private titleText = '';
  readonly links: HtmlLink[] = [];
  readonly metaRobots = { noindex: false, nofollow: false };
  canonical: string | null = null;
  hasForm = false;
  readonly facts = new FactsCollector();
  private inStyle = false;
  private styleText = '';

  constructor(
    private readonly pageUrl: string,
    /** null when requisites were not asked for. */
    readonly requisites: string[] | null,
  ) {
    this.base = pageUrl;
  }

  get readingText(): boolean {
    return this.inTitle || this.inStyle;
  }

  wantsAttributes(name: string): boolean {
    if (this.requisites !== null && name !== 'style' && REQUISITE_TAGS.includes(name)) return true;
    return name !== 'title' && (!FIELDS.has(name) || this.facts.wantsField(name));
  }

  onopentag(name: string, attribs: Attributes, foreign: boolean): void {
    if (this.requisites !== null) {
      if (name === 'style') this.inStyle = true;
      else this.requisites.push(...requisitesOf(name, attribs));
    }
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
        this.facts.onForm(attribs);
        break;
      case 'html':
        this.facts.onHtml(attribs);
        break;
      case 'title':
        // A <title> inside <svg> or <math> names a graphic, not the page.
        if (!this.titleSeen && !foreign) {
          this.titleSeen = true;
          this.inTitle = true;
        }
        break;
      default:
        if (this.facts.wantsField(name)) this.facts.onField(attribs);
    }
  }

  ontext(text: string): void {
    if (this.inTitle && this.titleText.length < MAX_TITLE_CHARS) this.titleText += text;
    if (this.inStyle && this.styleText.length < MAX_STYLE_CHARS) this.styleText += text;
  }

  onclosetag(name: string): void {
    if (name === 'style') {
      if (this.inStyle) this.finishStyle();
    } else if (name === 'title') {
      if (this.inTitle) this.finishTitle();
    } else if (name === 'form') {
      this.facts.onFormEnd();
    }
  }

  /** Called after the parser stops, normally or not, so a cut-off <title> still counts. */
  finish(): void {
    if (this.inTitle) this.finishTitle();
    if (this.inStyle) this.finishStyle();
  }

  private finishStyle(): void {
    this.inStyle = false;
    this.requisites?.push(...cssUrls(this.styleText));
    this.styleText = '';
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
    this.facts.onMeta(attribs);
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

export function parseHtml(
  body: Uint8Array,
  opts: { url: string; contentType: string | null; requisites?: boolean },
): ParsedHtml {
  const { text, charset } = decodeBody(body, opts.contentType);
  const requisites = opts.requisites === true;
  const collector = new Collector(opts.url, requisites ? [] : null);
  try {
    // The requisites' tags are named only when asked for: an <img> costs a crawl that
    // does not want it nothing but the tokenizer's look at it.
    new TagReader(collector, requisites ? TAGS_AND_REQUISITES : TAGS).read(text);
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
    facts: collector.facts.facts(collector.title, collector.canonical, collector.base),
    requisites: collector.requisites ?? [],
  };
}
