import Database from 'better-sqlite3';
import { formatSiteLine, parseSiteLine, type SiteLogLine } from '../protocol/index.js';
import { folderPrefixOf } from '../url/folder.js';

/** A URL visited, as the book counts it. */
export interface SiteVisit {
  url: string;
  address: string | null;
}

/**
 * How many origins, and folders of URLs (a site's host name and directory), the book
 * remembers having written: a visit in one of them costs a count and nothing else, not
 * even a parse of its URL. Past it the memory starts over (the table answers), so a crawl
 * of 10^5 hosts keeps a few MB here, not every site.
 */
const RECENT = 16_384;

/**
 * Visit counts are added up in memory and written this often: a count written with each
 * completion rewrote a page of the table per site in the batch (some 4 µs of the server's
 * thread a URL, 4% of its CPU at 10^4 hosts). A server killed with kill -9 loses at most
 * this much of the counts; host names and directories are written as they come.
 */
const COUNTS_EVERY_MS = 1000;

const SCHEMA = `
CREATE TABLE IF NOT EXISTS sites (
  key TEXT PRIMARY KEY, origin TEXT NOT NULL, address TEXT, port INTEGER NOT NULL,
  count INTEGER NOT NULL DEFAULT 0, info TEXT NOT NULL DEFAULT '{}');
CREATE TABLE IF NOT EXISTS site_hosts (key TEXT NOT NULL, host TEXT NOT NULL, UNIQUE (key, host));
CREATE TABLE IF NOT EXISTS site_dirs (key TEXT NOT NULL, dir TEXT NOT NULL, UNIQUE (key, dir));
CREATE TABLE IF NOT EXISTS origins (origin TEXT PRIMARY KEY, key TEXT NOT NULL) WITHOUT ROWID;
`;

/**
 * The server's book of sites, one entry per web server (an address and a port) with
 * every host name seen on it, how many of its URLs were visited, and the directories
 * visited. `show` and `log` print it; `read` marks sites as visited.
 *
 * It lives in its own SQLite file (`sites.db`), not in memory: a crawl of 10^5 hosts has
 * 10^5 sites, and a server that kept them all grew by some 150 MB over a 10^6-page crawl.
 * Each change is one transaction (WAL, as the store), so a server killed with kill -9
 * starts again with every name, directory and module info, and every count but those of
 * its last COUNTS_EVERY_MS; only the origins and folders met lately are remembered in
 * memory, to spare a visit in a known folder its parse and its lookups. Host
 * names and directories are rows, so a web server with thousands of host names (a CDN's
 * address) costs an index probe per visit, not a scan of its names.
 */
export class SiteBook {
  private readonly db: Database.Database;
  private readonly st: ReturnType<typeof statements>;
  /** Origins to the key of their site, for origins whose site row and host name are written. */
  private readonly recentOrigins = new Map<string, string>();
  /** A URL's text up to its last '/' (folderPrefixOf) to what is written of its folder. */
  private readonly recentFolders = new Map<string, WrittenFolder>();
  /** Visits whose folder the book has not written lately, in one transaction. */
  private readonly writeVisits: (visits: readonly SiteVisit[]) => void;
  /** Visits counted but not yet written, by site key. */
  private readonly pendingCounts = new Map<string, number>();
  private countsTimer: NodeJS.Timeout | null = null;

  constructor(file: string) {
    this.db = new Database(file);
    this.db.pragma('journal_mode = WAL');
    this.db.pragma('synchronous = NORMAL');
    this.db.exec(SCHEMA);
    this.st = statements(this.db);
    this.writeVisits = this.db.transaction((visits: readonly SiteVisit[]) => {
      for (const v of visits) {
        const key = this.visit(v);
        if (key !== null) this.count(key);
      }
    });
  }

  /** Runs `changes` as one transaction: all of them are kept, or none. */
  inOneStep(changes: () => void): void {
    this.db.transaction(changes)();
  }

  /**
   * The key the site of `origin` is claimed by, so its site hooks run once per site (an
   * address and a port, with all its host names), not once per host name: the site's
   * key when the book knows the origin, else its address and port, else (never
   * resolved) the origin itself.
   */
  claimKey(origin: string, address: string | null): string {
    const known = this.recentOrigins.get(origin) ?? (this.st.keyOf.get(origin) as string | undefined);
    if (known !== undefined) return known;
    const u = URL.parse(origin);
    return u === null ? origin : keyOf(address, portOf(u), u.origin);
  }

  /**
   * URLs of the book's sites were visited: their host names and directories noted in one
   * transaction, their counts within COUNTS_EVERY_MS.
   */
  visited(visits: readonly SiteVisit[]): void {
    if (visits.length === 0) return;
    const unwritten: SiteVisit[] = [];
    for (const v of visits) {
      const folder = this.recentFolders.get(folderPrefixOf(v.url) ?? '');
      if (folder !== undefined && (folder.addressKnown || v.address === null)) this.count(folder.key);
      else unwritten.push(v);
    }
    if (unwritten.length > 0) this.writeVisits(unwritten);
    this.countsTimer ??= setTimeout(() => this.writeCounts(), COUNTS_EVERY_MS).unref();
  }

  /** Writes the counts added up since the last time. */
  writeCounts(): void {
    if (this.countsTimer !== null) clearTimeout(this.countsTimer);
    this.countsTimer = null;
    if (this.pendingCounts.size === 0 || !this.db.open) return;
    this.db.transaction(() => {
      for (const [key, n] of this.pendingCounts) this.st.addCount.run(n, key);
    })();
    this.pendingCounts.clear();
  }

  /** What a module's site hook found for the site at `origin`. */
  addInfo(origin: string, address: string | null, info: Record<string, unknown>): void {
    const u = URL.parse(origin);
    if (u === null) return;
    this.db.transaction(() => this.mergeInfo(this.siteOf(u, address), info))();
  }

  /** MODINFO names a site by address and port. */
  addInfoAt(address: string, port: number, module: string, info: unknown): boolean {
    const key = `${address}:${port}`;
    if (this.st.site.get(key) === undefined) return false;
    this.mergeInfo(key, { [module]: info });
    return true;
  }

  /**
   * READDATA: each site in the log counts as visited, with its directory list set to
   * "/". Returns the sites read: the key each is claimed by, its address and its info.
   */
  read(text: string): { key: string; address: string | null; info: Record<string, unknown> }[] {
    const out: { key: string; address: string | null; info: Record<string, unknown> }[] = [];
    this.db.transaction(() => {
      for (const line of text.split('\n')) {
        if (line.trim() === '') continue;
        const site = siteLineOf(line);
        if (site === null) continue; // a line that is not a site
        const key = keyOf(site.address, site.port, site.origin);
        const known = this.st.site.get(key) as SiteRow | undefined;
        if (known !== undefined) {
          this.mergeInfo(key, site.info);
          this.nameOrigins(key, this.hostsOf(key), known.origin);
        } else {
          this.put(key, { ...site, directories: ['/'] });
        }
        out.push({ key, address: site.address, info: site.info });
      }
    })();
    return out;
  }

  /** Every site, in the order the book met them. */
  all(): SiteLogLine[] {
    this.writeCounts();
    const rows = this.st.sites.all() as SiteRow[];
    return rows.map((r) => ({
      origin: r.origin,
      address: r.address,
      port: r.port,
      hosts: this.hostsOf(r.key),
      count: r.count,
      directories: this.st.dirs.all(r.key) as string[],
      info: JSON.parse(r.info) as Record<string, unknown>,
    }));
  }

  /** Every site, one log line each. */
  text(): string {
    return this.all().map(formatSiteLine).join('');
  }

  close(): void {
    this.writeCounts();
    if (this.db.open) this.db.close();
  }

  /** Sets a site whole (a line of a log, or of the old journal), with the origins of all its host names. */
  put(key: string, site: SiteLogLine): void {
    this.writeCounts();
    this.st.dropHosts.run(key);
    this.st.dropDirs.run(key);
    this.st.putSite.run(key, site.origin, site.address, site.port, site.count, JSON.stringify(site.info));
    for (const host of site.hosts) this.st.addHost.run(key, host);
    for (const dir of site.directories) this.st.addDir.run(key, dir);
    this.nameOrigins(key, site.hosts, site.origin);
  }

  private count(key: string): void {
    this.pendingCounts.set(key, (this.pendingCounts.get(key) ?? 0) + 1);
  }

  /**
   * One visit whose folder is not remembered as written: its site, host name and
   * directory written, and the folder remembered. Its site's key, or null for a URL that
   * does not parse.
   */
  private visit({ url, address }: SiteVisit): string | null {
    const u = URL.parse(url);
    if (u === null) return null;
    const key = this.siteOf(u, address);
    const dir = u.pathname.slice(0, u.pathname.lastIndexOf('/') + 1) || '/';
    this.st.addDir.run(key, dir);
    const prefix = folderPrefixOf(url);
    if (prefix !== null) {
      if (this.recentFolders.size >= RECENT) this.recentFolders.clear();
      this.recentFolders.set(prefix, { key, addressKnown: address !== null });
    }
    return key;
  }

  /** The key of the site `u` is on, its row, its address and `u`'s host name written. */
  private siteOf(u: URL, address: string | null): string {
    const origin = u.origin;
    let key = this.recentOrigins.get(origin);
    if (key === undefined) {
      key = (this.st.keyOf.get(origin) as string | undefined) ?? keyOf(address, portOf(u), origin);
      this.st.addOrigin.run(origin, key);
      this.st.addSite.run(key, origin, address, portOf(u));
      this.st.addHost.run(key, u.hostname);
      if (this.recentOrigins.size >= RECENT) this.recentOrigins.clear();
      this.recentOrigins.set(origin, key);
    }
    if (address !== null) this.st.learnAddress.run(address, key);
    return key;
  }

  private mergeInfo(key: string, info: Record<string, unknown>): void {
    const row = this.st.site.get(key) as SiteRow | undefined;
    if (row === undefined) return;
    this.st.setInfo.run(JSON.stringify({ ...(JSON.parse(row.info) as object), ...info }), key);
  }

  private hostsOf(key: string): string[] {
    return this.st.hosts.all(key) as string[];
  }

  private nameOrigins(key: string, hosts: readonly string[], origin: string): void {
    for (const o of [origin, ...hosts.map((h) => originWith(origin, h))]) this.st.setOrigin.run(o, key);
    // An origin may now be another site's: what was remembered of origins is asked again.
    this.recentOrigins.clear();
    this.recentFolders.clear();
  }
}

/** A folder of URLs whose site row, host name and directory are written. */
interface WrittenFolder {
  key: string;
  /** An address was given with a visit, so the site's row has one (learnAddress). */
  addressKnown: boolean;
}

interface SiteRow {
  key: string;
  origin: string;
  address: string | null;
  port: number;
  count: number;
  info: string;
}

function statements(db: Database.Database) {
  return {
    keyOf: db.prepare('SELECT key FROM origins WHERE origin = ?').pluck(),
    addOrigin: db.prepare('INSERT OR IGNORE INTO origins (origin, key) VALUES (?, ?)'),
    setOrigin: db.prepare('INSERT OR REPLACE INTO origins (origin, key) VALUES (?, ?)'),
    site: db.prepare('SELECT * FROM sites WHERE key = ?'),
    sites: db.prepare('SELECT * FROM sites ORDER BY rowid'),
    addSite: db.prepare('INSERT OR IGNORE INTO sites (key, origin, address, port) VALUES (?, ?, ?, ?)'),
    // An upsert, not INSERT OR REPLACE: the site keeps its rowid, so its place in all().
    putSite: db.prepare(
      `INSERT INTO sites (key, origin, address, port, count, info) VALUES (?, ?, ?, ?, ?, ?)
       ON CONFLICT (key) DO UPDATE SET origin = excluded.origin, address = excluded.address,
         port = excluded.port, count = excluded.count, info = excluded.info`,
    ),
    learnAddress: db.prepare('UPDATE sites SET address = ? WHERE key = ? AND address IS NULL'),
    addCount: db.prepare('UPDATE sites SET count = count + ? WHERE key = ?'),
    setInfo: db.prepare('UPDATE sites SET info = ? WHERE key = ?'),
    hosts: db.prepare('SELECT host FROM site_hosts WHERE key = ? ORDER BY rowid').pluck(),
    addHost: db.prepare('INSERT OR IGNORE INTO site_hosts (key, host) VALUES (?, ?)'),
    dropHosts: db.prepare('DELETE FROM site_hosts WHERE key = ?'),
    dirs: db.prepare('SELECT dir FROM site_dirs WHERE key = ? ORDER BY rowid').pluck(),
    addDir: db.prepare('INSERT OR IGNORE INTO site_dirs (key, dir) VALUES (?, ?)'),
    dropDirs: db.prepare('DELETE FROM site_dirs WHERE key = ?'),
  };
}

/** A site line of a log, or null for any other line. */
export function siteLineOf(line: string): SiteLogLine | null {
  try {
    return parseSiteLine(line);
  } catch {
    return null;
  }
}

/** A site is its address and port; one never resolved is known by its origin alone. */
export function keyOf(address: string | null, port: number, origin: string): string {
  return address === null ? origin : `${address}:${port}`;
}

function portOf(u: URL): number {
  return Number(u.port || (u.protocol === 'https:' ? 443 : 80));
}

function originWith(origin: string, host: string): string {
  const u = URL.parse(origin);
  if (u === null) return origin;
  u.hostname = host;
  return u.origin;
}
