import { existsSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { formatSiteLine, parseSiteLine, type SiteLogLine } from '../protocol/index.js';

/**
 * The server's book of sites, one entry per web server (an address and
 * a port) with every host name seen on it, how many of its URLs were visited, and the
 * directories visited. `show` and `log` print it; `read` marks sites as visited. It is
 * kept in memory and saved to a file in the data folder (in the log format) when the
 * server stops, so a restarted server starts from it.
 */
export class SiteBook {
  private readonly sites = new Map<string, SiteLogLine>();
  /** Origins (scheme://host[:port]) to the key of their site. */
  private readonly byOrigin = new Map<string, string>();

  constructor(private readonly file: string) {
    if (existsSync(file)) this.restore(readFileSync(file, 'utf8'));
  }

  /** A URL of the site was visited. */
  visited(url: string, address: string | null): void {
    const u = URL.parse(url);
    if (u === null) return;
    const site = this.siteOf(u, address);
    site.count++;
    const dir = u.pathname.slice(0, u.pathname.lastIndexOf('/') + 1) || '/';
    if (!site.directories.includes(dir)) site.directories.push(dir);
  }

  /** What a module's site hook found for the site at `origin`. */
  addInfo(origin: string, address: string | null, info: Record<string, unknown>): void {
    const u = URL.parse(origin);
    if (u === null) return;
    Object.assign(this.siteOf(u, address).info, info);
  }

  /** MODINFO names a site by address and port. */
  addInfoAt(address: string, port: number, module: string, info: unknown): boolean {
    const site = this.sites.get(`${address}:${port}`);
    if (site === undefined) return false;
    site.info[module] = info;
    return true;
  }

  /**
   * READDATA: each site in the log counts as visited, with its directory list set to
   * "/". Returns the sites read, with the origins of every host name they list.
   */
  read(text: string): { address: string | null; origins: string[]; info: Record<string, unknown> }[] {
    const out: { address: string | null; origins: string[]; info: Record<string, unknown> }[] = [];
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
      const merged = known ?? { ...site, directories: ['/'] };
      if (known !== undefined) Object.assign(known.info, site.info);
      this.sites.set(key, merged);
      const origins = [site.origin, ...site.hosts.map((h) => originWith(site.origin, h))];
      for (const origin of origins) this.byOrigin.set(origin, key);
      out.push({ address: site.address, origins: [...new Set(origins)], info: site.info });
    }
    return out;
  }

  /** The book as the server saved it: counts and directories as they were. */
  private restore(text: string): void {
    for (const line of text.split('\n')) {
      if (line.trim() === '') continue;
      const site = parseSiteLine(line);
      const key = keyOf(site.address, site.port, site.origin);
      this.sites.set(key, site);
      for (const host of site.hosts) this.byOrigin.set(originWith(site.origin, host), key);
    }
  }

  all(): SiteLogLine[] {
    return [...this.sites.values()];
  }

  /** Every site, one log line each. */
  text(): string {
    return this.all().map(formatSiteLine).join('');
  }

  save(): void {
    const temp = `${this.file}.tmp`;
    writeFileSync(temp, this.text());
    renameSync(temp, this.file);
  }

  private siteOf(u: URL, address: string | null): SiteLogLine {
    const origin = u.origin;
    const port = Number(u.port || (u.protocol === 'https:' ? 443 : 80));
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

function originWith(origin: string, host: string): string {
  const u = URL.parse(origin);
  if (u === null) return origin;
  u.hostname = host;
  return u.origin;
}
