import { formatSiteLine, parseSiteLine, type SiteLogLine } from '../protocol/index.js';
import { LineJournal } from './line-journal.js';

/** A URL visited, as the book journals it. */
export interface SiteVisit {
  url: string;
  address: string | null;
}

/** Appended lines past this (and past a few per site) make the book rewrite its file. */
const REWRITE_AFTER = 100_000;

/**
 * The server's book of sites, one entry per web server (an address and
 * a port) with every host name seen on it, how many of its URLs were visited, and the
 * directories visited. `show` and `log` print it; `read` marks sites as visited.
 *
 * It is kept in memory and journaled as it changes, so a server killed with kill -9
 * starts again from it: its file (`sites.jsonl`) holds site lines in the log format (a
 * later line for a site replaces an earlier one) and lines of visits
 * (`{"visits":[[url, address], ...]}`), replayed in order at start. It is rewritten as
 * site lines only (then it is a log that `read` takes) at start, when it has grown
 * long, and when the server stops.
 */
export class SiteBook {
  private readonly sites = new Map<string, SiteLogLine>();
  /** Origins (scheme://host[:port]) to the key of their site. */
  private readonly byOrigin = new Map<string, string>();
  private readonly journal: LineJournal;

  constructor(file: string) {
    this.journal = new LineJournal(file);
    for (const line of this.journal.lines()) this.replay(line);
    this.save();
  }

  /**
   * The key the site of `origin` is claimed by, so its site hooks run once per site (an
   * address and a port, with all its host names), not once per host name: the site's
   * key when the book knows the origin, else its address and port, else (never
   * resolved) the origin itself.
   */
  claimKey(origin: string, address: string | null): string {
    const known = this.byOrigin.get(origin);
    if (known !== undefined) return known;
    const u = URL.parse(origin);
    return u === null ? origin : keyOf(address, portOf(u), u.origin);
  }

  /** URLs of the book's sites were visited: counted, their directories noted, journaled in one write. */
  visited(visits: readonly SiteVisit[]): void {
    const kept = visits.filter((v) => this.visit(v));
    if (kept.length === 0) return;
    this.write([`${JSON.stringify({ visits: kept.map((v) => [v.url, v.address]) })}\n`]);
  }

  /** What a module's site hook found for the site at `origin`. */
  addInfo(origin: string, address: string | null, info: Record<string, unknown>): void {
    const u = URL.parse(origin);
    if (u === null) return;
    const site = this.siteOf(u, address);
    Object.assign(site.info, info);
    this.write([formatSiteLine(site)]);
  }

  /** MODINFO names a site by address and port. */
  addInfoAt(address: string, port: number, module: string, info: unknown): boolean {
    const site = this.sites.get(`${address}:${port}`);
    if (site === undefined) return false;
    site.info[module] = info;
    this.write([formatSiteLine(site)]);
    return true;
  }

  /**
   * READDATA: each site in the log counts as visited, with its directory list set to
   * "/". Returns the sites read: the key each is claimed by, its address and its info.
   */
  read(text: string): { key: string; address: string | null; info: Record<string, unknown> }[] {
    const out: { key: string; address: string | null; info: Record<string, unknown> }[] = [];
    const changed: SiteLogLine[] = [];
    for (const line of text.split('\n')) {
      if (line.trim() === '') continue;
      let site: SiteLogLine;
      try {
        site = parseSiteLine(line);
      } catch {
        continue; // a line that is not a site
      }
      const key = keyOf(site.address, site.port, site.origin);
      const known = this.sites.get(key);
      if (known !== undefined) Object.assign(known.info, site.info);
      const merged = known ?? { ...site, directories: ['/'] };
      this.put(key, merged);
      changed.push(merged);
      out.push({ key, address: site.address, info: site.info });
    }
    this.write(changed.map(formatSiteLine));
    return out;
  }

  all(): SiteLogLine[] {
    return [...this.sites.values()];
  }

  /** Every site, one log line each. */
  text(): string {
    return this.all().map(formatSiteLine).join('');
  }

  /** Rewrites the book's file as one line per site. */
  save(): void {
    this.journal.rewrite(this.all().map(formatSiteLine));
  }

  private write(lines: readonly string[]): void {
    this.journal.append(lines);
    if (this.journal.appended > REWRITE_AFTER + 4 * this.sites.size) this.save();
  }

  /** One line of the book's file, applied as it was when written. */
  private replay(line: string): void {
    let parsed: unknown;
    try {
      parsed = JSON.parse(line);
    } catch {
      return; // not a line the book wrote whole
    }
    const visits = (parsed as { visits?: unknown }).visits;
    if (Array.isArray(visits)) {
      for (const v of visits) {
        if (Array.isArray(v) && typeof v[0] === 'string') {
          this.visit({ url: v[0], address: typeof v[1] === 'string' ? v[1] : null });
        }
      }
      return;
    }
    try {
      const site = parseSiteLine(line);
      this.put(keyOf(site.address, site.port, site.origin), site);
    } catch {
      // neither a site nor visits: skipped
    }
  }

  private visit({ url, address }: SiteVisit): boolean {
    const u = URL.parse(url);
    if (u === null) return false;
    const site = this.siteOf(u, address);
    site.count++;
    const dir = u.pathname.slice(0, u.pathname.lastIndexOf('/') + 1) || '/';
    if (!site.directories.includes(dir)) site.directories.push(dir);
    return true;
  }

  /** Sets a site whole, with the origins of all its host names. */
  private put(key: string, site: SiteLogLine): void {
    this.sites.set(key, site);
    for (const origin of [site.origin, ...site.hosts.map((h) => originWith(site.origin, h))]) {
      this.byOrigin.set(origin, key);
    }
  }

  private siteOf(u: URL, address: string | null): SiteLogLine {
    const origin = u.origin;
    const port = portOf(u);
    let key = this.byOrigin.get(origin);
    if (key === undefined) {
      key = keyOf(address, port, origin);
      this.byOrigin.set(origin, key);
    }
    let site = this.sites.get(key);
    if (site === undefined) {
      site = { origin, address, port, hosts: [], count: 0, directories: [], info: {} };
      this.sites.set(key, site);
    }
    if (site.address === null && address !== null) site.address = address;
    if (!site.hosts.includes(u.hostname)) site.hosts.push(u.hostname);
    return site;
  }
}

/** A site is its address and port; one never resolved is known by its origin alone. */
function keyOf(address: string | null, port: number, origin: string): string {
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
