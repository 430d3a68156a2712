/**
 * The module API: what a cobweb module is and what it is given. A module is an ES
 * module whose default export is a `CobwebModule`. Modules run on the modules' thread,
 * one call per page (`onPage`) and one per new site (`onSite`); see docs/modules.md.
 *
 * Everything a module receives is plain data (it crossed a thread boundary), and all
 * it can do to the crawl goes through `ctx`: nothing else of the crawler is reachable.
 */
import type { Document } from 'domhandler';
import type { PageFacts } from '../parse/page-facts.js';

export type { Document } from 'domhandler';
export type { MetaTag, PageFacts, PageForm } from '../parse/page-facts.js';

/** What a module's name may be: it names its data file, `<name>.jsonl`. */
export const MODULE_NAME = /^[A-Za-z0-9_-]{1,64}$/;

/** A fetched page, as modules see it. */
export interface ModulePage {
  /** The URL fetched (canonical). */
  url: string;
  status: number;
  /** Response headers, lowercase names. */
  headers: Record<string, string>;
  contentType: string | null;
  /**
   * What the crawl's own parse of the page found (title, language, canonical link, meta
   * tags, forms), for HTML pages (2xx, text/html or XHTML); null otherwise. Reading it
   * costs nothing: the page is parsed once, for the crawl and every module.
   */
  facts: PageFacts | null;
  /**
   * The decoded HTML text, for HTML pages (2xx, text/html or XHTML); null otherwise.
   * Decoded on first read, once per page for every module.
   */
  html: string | null;
  /**
   * The page as a DOM (a domhandler Document, as htmlparser2 builds it), for HTML pages;
   * null otherwise. Built on the first call, once per page, and shared by every module:
   * a module that never calls it costs no parse.
   */
  dom(): Document | null;
  /** Distinct canonical http(s) URLs the page links to, followed or not. */
  links: string[];
  /** Hops from a seed (a seed is 0). */
  depth: number;
  /** The page this URL was found on; null for seeds. */
  referrer: string | null;
}

/** A site (scheme://host:port) the crawl reached for the first time. */
export interface ModuleSite {
  origin: string;
  /** The IP address the first response came from, when known. */
  address: string | null;
  /** Headers of the site's first response, lowercase names. */
  headers: Record<string, string>;
  /** What the site's robots.txt said; null with --ignore-robots. */
  robots: {
    /** 'parsed', 'allow-all' (4xx, none) or 'unavailable' (5xx, no answer). */
    state: string;
    status: number | null;
    crawlDelayMs: number | null;
    sitemaps: string[];
  } | null;
}

export interface ModuleContext {
  /** Appends one JSON line to `<data>/data/<module name>.jsonl`. */
  emit(record: Record<string, unknown>): void;
  /** URLs for the crawl to consider: canonicalized, filtered and deduplicated like links. */
  enqueue(urls: readonly string[]): void;
  /** A line in the crawl's log, prefixed with the module's name. */
  log(message: string): void;
}

/** What onPage may return: fields to add to the page's pages.jsonl line. */
export type PageFields = Record<string, unknown>;

export interface CobwebModule {
  /** Unique among the loaded modules; names its data file. Letters, digits, '-', '_'. */
  name: string;
  onPage?(page: ModulePage, ctx: ModuleContext): PageFields | undefined | Promise<PageFields | undefined>;
  /** What it returns is stored as the site's module info (shown by `show`, written by `log`). */
  onSite?(site: ModuleSite, ctx: ModuleContext): unknown;
  /** Run once when the module is loaded; throwing refuses the module. */
  selfTest?(): void | Promise<void>;
}

/** Per-module counters, as the crawl summary prints them. */
export interface ModuleStats {
  name: string;
  calls: number;
  errors: number;
  timeouts: number;
  /** Pages that went without the module's results: its thread was stuck on another page, or it was switched off. */
  skipped: number;
  /** Mean duration of a call in ms (timeouts count as the timeout). */
  meanMs: number;
  /** Switched off for the rest of the crawl: it kept holding the modules' thread (--module-timeout). */
  off?: boolean;
}
