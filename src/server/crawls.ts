import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { type DataLayout, layoutOf } from '../bunny/data-dir.js';
import type { LinkRules } from '../bunny/links.js';
import type { LocalFrontier } from '../frontier/types.js';
import type { ModuleHost } from '../modules/module-host.js';
import { PagesLog } from '../output/pages-log.js';
import { CRAWL_NAME, DEFAULT_CRAWL, type JsonObject } from '../protocol/index.js';
import { type BackoffStep, ProbabilityBackoff } from './backoff.js';
import { CrawlService } from './crawl-service.js';
import { SiteBook } from './site-book.js';

/** What opening one crawl gives: its store, and the rules and settings its bunnies get. */
export interface CrawlParts {
  store: LocalFrontier;
  /** What ENQUEUE checks a URL against (scope around the crawl's seeds, filters, traps). */
  rules: LinkRules;
  /** What WELCOME tells the crawl's bunnies to use. */
  settings: JsonObject;
  /** Closes what opening it took (the store, the folder's lock). */
  close(): Promise<void>;
}

/** Opens (or starts) the crawl `name` in its folder; `isNew`: the folder holds no crawl yet. */
export type CrawlOpener = (name: string, layout: DataLayout, isNew: boolean) => Promise<CrawlParts>;

/** One crawl the server holds: its folder, and the service its sessions call. */
export interface HeldCrawl {
  name: string;
  layout: DataLayout;
  service: CrawlService;
}

/** What every crawl of one server shares. */
export interface SharedParts {
  /** The server's data folder: the default crawl's folder, and the others' parent. */
  root: string;
  modules: ModuleHost;
  skipSubstrings: readonly string[];
  backoff: readonly BackoffStep[];
  leaseMs: number;
  log: (line: string) => void;
}

/**
 * The crawls one server holds (`--crawl NAME`), each with its own folder, store, seen
 * set, pages.jsonl and book of sites. The default crawl lives in the data folder itself
 * (the layout of a server with one crawl); crawl NAME in `crawls/NAME/` under it, a data
 * folder of the same layout. A crawl is opened when it is first named: by the server at
 * start, by a bunny's HELLO (which may start a new one), or by a control command's
 * CRAWL (which only finds one that exists).
 */
export class ServerCrawls {
  private readonly open = new Map<string, Promise<{ held: HeldCrawl; parts: CrawlParts; pages: PagesLog }>>();

  constructor(
    private readonly shared: SharedParts,
    private readonly opener: CrawlOpener,
  ) {}

  /** The folder of crawl `name`. */
  static layoutOf(root: string, name: string): DataLayout {
    if (!CRAWL_NAME.test(name))
      throw new Error(`"${name}" is not a crawl name: use letters, digits, - and _`);
    return layoutOf(name === DEFAULT_CRAWL ? root : join(root, 'crawls', name));
  }

  /** The crawls open now. */
  async all(): Promise<HeldCrawl[]> {
    return (await Promise.all(this.open.values())).map((c) => c.held);
  }

  /** Whether crawl `name` is open, or has a folder of its own on disk. */
  exists(name: string): boolean {
    return this.open.has(name) || existsSync(ServerCrawls.layoutOf(this.shared.root, name).marker);
  }

  /** Crawl `name`, opened if it is not yet, started if it does not exist and `create` is set; else null. */
  async get(name: string, create: boolean): Promise<HeldCrawl | null> {
    const opening = this.open.get(name);
    if (opening !== undefined) return (await opening).held;
    if (!create && !this.exists(name)) return null;
    const layout = ServerCrawls.layoutOf(this.shared.root, name);
    const started = this.start(name, layout, !existsSync(layout.marker));
    this.open.set(name, started);
    try {
      return (await started).held;
    } catch (err) {
      this.open.delete(name);
      throw err;
    }
  }

  /** Saves every crawl's book of sites (the server is stopping). */
  async saveSites(): Promise<void> {
    for (const c of await this.all()) c.service.sites.save();
  }

  /** Closes every crawl: their pages.jsonl, stores and locks. */
  async close(): Promise<void> {
    const opened = await Promise.allSettled(this.open.values());
    this.open.clear();
    for (const c of opened) {
      if (c.status !== 'fulfilled') continue;
      c.value.pages.close();
      await c.value.parts.close();
    }
  }

  private async start(name: string, layout: DataLayout, isNew: boolean) {
    const parts = await this.opener(name, layout, isNew);
    const pages = new PagesLog(layout.pages);
    const { shared } = this;
    const service = new CrawlService({
      store: parts.store,
      pages,
      moduleData: layout.moduleData,
      sites: new SiteBook(layout.sites),
      modules: shared.modules,
      rules: parts.rules,
      skipSubstrings: shared.skipSubstrings,
      backoff: new ProbabilityBackoff(shared.backoff),
      settings: parts.settings,
      leaseMs: shared.leaseMs,
      log: shared.log,
    });
    if (name !== DEFAULT_CRAWL) shared.log(`crawl ${name} ${isNew ? 'started' : 'opened'} in ${layout.root}`);
    return { held: { name, layout, service }, parts, pages };
  }
}
