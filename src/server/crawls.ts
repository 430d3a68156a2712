import { existsSync } from 'node:fs';
import type { LinkRules } from '../bunny/links.js';
import { Feed } from '../console/feed.js';
import { crawlLayoutOf, type DataLayout } from '../data-dir/layout.js';
import type { ModuleDataFiles } from '../data-dir/module-data.js';
import { type StoreCall, timedStore } from '../frontier/timed.js';
import type { LocalFrontier } from '../frontier/types.js';
import type { ModuleHost } from '../modules/module-host.js';
import type { EventLog } from '../output/crawl-log.js';
import { type PageRecord, PagesLog } from '../output/pages-log.js';
import { DEFAULT_CRAWL, type JsonObject } from '../protocol/index.js';
import { type BackoffStep, ProbabilityBackoff } from './backoff.js';
import { CrawlService } from './crawl-service.js';
import { SiteBook } from './site-book.js';
import { takeInOldJournal } from './site-book-journal.js';

/** What opening one crawl gives: its store, and the rules and settings its bunnies get. */
export interface CrawlParts {
  store: LocalFrontier;
  /** What ENQUEUE checks a URL against (scope around the crawl's seeds, filters with --skip-substring, traps). */
  rules: LinkRules;
  /** What WELCOME tells the crawl's bunnies to use. */
  settings: JsonObject;
  /** The module data files of its folder that are cobweb's (openDataDir's). */
  moduleData: ModuleDataFiles;
  /** Closes what opening it took (the store, the folder's lock). */
  close(): Promise<void>;
}

/**
 * Opens (or starts) the crawl `name`: its folder is `layout` (pages.jsonl, sites, module
 * records), its store the folder's own or its row in a shared database; `isNew`: the
 * folder holds no crawl yet.
 */
export type CrawlOpener = (name: string, layout: DataLayout, isNew: boolean) => Promise<CrawlParts>;

/** One crawl the server holds: its folder, the service its sessions call, and its pages.jsonl lines as they are written. */
export interface HeldCrawl {
  name: string;
  layout: DataLayout;
  service: CrawlService;
  lines: Feed<readonly PageRecord[]>;
}

/** What every crawl of one server shares. */
export interface SharedParts {
  /** The server's data folder: the default crawl's folder, and the others' parent. */
  root: string;
  /** The server's own crawl (its --crawl): the one a connection works on when it names none. */
  own: string;
  modules: ModuleHost;
  backoff: readonly BackoffStep[];
  leaseMs: number;
  log: EventLog;
  /** Time every store call into this feed (the console's --http). */
  storeCalls?: Feed<StoreCall> | undefined;
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

  /** The server's own crawl (its --crawl): the one a connection works on when it names none. */
  get own(): string {
    return this.shared.own;
  }

  /** The crawls open now. */
  async all(): Promise<HeldCrawl[]> {
    return (await Promise.all(this.open.values())).map((c) => c.held);
  }

  /** Whether crawl `name` is open, or has a folder of its own on disk. */
  exists(name: string): boolean {
    return this.open.has(name) || existsSync(crawlLayoutOf(this.shared.root, name).marker);
  }

  /** Crawl `name`, opened if it is not yet, started if it does not exist and `create` is set; else null. */
  async get(name: string, create: boolean): Promise<HeldCrawl | null> {
    const opening = this.open.get(name);
    if (opening !== undefined) return (await opening).held;
    if (!create && !this.exists(name)) return null;
    const layout = crawlLayoutOf(this.shared.root, name);
    const started = this.start(name, layout, !existsSync(layout.marker));
    this.open.set(name, started);
    try {
      return (await started).held;
    } catch (err) {
      this.open.delete(name);
      throw err;
    }
  }

  /** Closes every crawl: their pages.jsonl, stores and locks. */
  async close(): Promise<void> {
    const opened = await Promise.allSettled(this.open.values());
    this.open.clear();
    for (const c of opened) {
      if (c.status !== 'fulfilled') continue;
      c.value.held.service.stop();
      c.value.held.service.sites.close();
      c.value.pages.close();
      await c.value.parts.close();
    }
  }

  private async start(name: string, layout: DataLayout, isNew: boolean) {
    const parts = await this.opener(name, layout, isNew);
    const pages = new PagesLog(layout.pages, layout.refused);
    const lines = new Feed<readonly PageRecord[]>();
    const { shared } = this;
    const calls = shared.storeCalls;
    const service = new CrawlService({
      name,
      store: calls === undefined ? parts.store : timedStore(parts.store, (call) => calls.emit(call)),
      pages: {
        append(records) {
          pages.append(records);
          lines.emit(records);
        },
      },
      moduleData: parts.moduleData,
      sites: bookOfSites(layout),
      modules: shared.modules,
      rules: parts.rules,
      backoff: new ProbabilityBackoff(shared.backoff),
      settings: parts.settings,
      leaseMs: shared.leaseMs,
      log: shared.log,
    });
    if (name !== DEFAULT_CRAWL) shared.log(`crawl ${name} ${isNew ? 'started' : 'opened'} in ${layout.root}`);
    return { held: { name, layout, service, lines }, parts, pages };
  }
}

/** The crawl's book of sites, with what a server before sites.db journaled taken in. */
function bookOfSites(layout: DataLayout): SiteBook {
  const book = new SiteBook(layout.sites);
  takeInOldJournal(layout.oldSites, book);
  return book;
}
