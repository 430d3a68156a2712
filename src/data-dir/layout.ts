import { join, resolve } from 'node:path';
import { CRAWL_NAME, CRAWL_NAME_RULE, DEFAULT_CRAWL } from '../protocol/types.js';

/** Where everything of one crawl lives under --data. */
export interface DataLayout {
  root: string;
  store: string;
  /** The workbench store's folder (a server's --frontier workbench): snapshot and journal. */
  workbench: string;
  pages: string;
  /** refused.jsonl: the URLs refused without a request (the crawl's rules, robots.txt). */
  refused: string;
  warc: string;
  /** Where modules' emitted records go, one file per module. */
  moduleData: string;
  lock: string;
  /** cobweb.json: says the folder is cobweb's, and with which settings it was crawled. */
  marker: string;
  /** A server's book of sites (sites.db, SQLite), kept across restarts. */
  sites: string;
  /** sites.jsonl: the book of sites as servers before sites.db journaled it, taken in once. */
  oldSites: string;
  /** What a server's QUIT writes: the sites and their module info. */
  log: string;
  /** A server's token (mode 0600). */
  token: string;
  /** passes.jsonl: one line per crawl pass (--passes). */
  passes: string;
  /** report.html: what `cobweb report` writes. */
  report: string;
}

export function layoutOf(dir: string): DataLayout {
  const root = resolve(dir);
  return {
    root,
    store: join(root, 'frontier.db'),
    workbench: join(root, 'workbench'),
    pages: join(root, 'pages.jsonl'),
    refused: join(root, 'refused.jsonl'),
    warc: join(root, 'warc'),
    moduleData: join(root, 'data'),
    lock: join(root, 'cobweb.lock'),
    marker: join(root, 'cobweb.json'),
    sites: join(root, 'sites.db'),
    oldSites: join(root, 'sites.jsonl'),
    log: join(root, 'cobweb.log'),
    token: join(root, 'token'),
    passes: join(root, 'passes.jsonl'),
    report: join(root, 'report.html'),
  };
}

/**
 * The folder of crawl `name` in the data folder `dir`: the default crawl's is `dir`
 * itself, crawl NAME's is `dir/crawls/NAME`, a data folder of the same layout (--crawl
 * on a folder store, and on a server for every store).
 */
export function crawlLayoutOf(dir: string, name: string): DataLayout {
  if (!CRAWL_NAME.test(name)) throw new Error(`"${name}" is not a crawl name: use ${CRAWL_NAME_RULE}`);
  return layoutOf(name === DEFAULT_CRAWL ? dir : join(dir, CRAWLS_FOLDER, name));
}

/** Where the named crawls' folders are, in a data folder. */
export const CRAWLS_FOLDER = 'crawls';
