// The shape of the scale web, decided from a seed: which hosts there are, how big each
// is, how each behaves (dead, slow, flaky, moved, its robots.txt). Nothing here does I/O;
// the server (serve.ts), the link planner (links.ts) and the reachable set (reach.ts)
// all read the same ScaleWeb, so what is served and what must be fetched cannot drift.
import { pageRandom, type Random, randomInt } from '../web/prng.js';

export interface ScaleWebOptions {
  /** Hosts in the web, named h0.scale.test ... (dead ones hN.dead.scale.test). */
  hosts: number;
  /** About how many pages in all (power-law host sizes add up to about this). */
  pages: number;
  /** PRNG seed; the same seed gives the same web. */
  seed?: number;
  /** How many of the biggest hosts' home pages are the crawl's seeds. */
  seedHosts?: number;
  /** The Crawl-delay (seconds) that robots.txt gives on the hosts that have one. */
  crawlDelaySeconds?: number;
  /** How long a slow host takes to answer, ms. */
  slowMs?: number;
  /** The Retry-After (seconds) of a flaky page's first answer (503 or 429). */
  retryAfterSeconds?: number;
  /**
   * The median page's size, bytes (20,000 by default, as documentation pages run); the
   * sizes spread log-normally around it. Smaller pages keep the same links: what a test
   * of politeness and duplicates counts, for less parsing and compressing.
   */
  medianPageBytes?: number;
}

export type ResolvedScaleOptions = Required<ScaleWebOptions>;

export function resolveScaleOptions(o: ScaleWebOptions): ResolvedScaleOptions {
  const r: ResolvedScaleOptions = {
    hosts: o.hosts,
    pages: o.pages,
    seed: o.seed ?? 1,
    seedHosts: o.seedHosts ?? 3,
    crawlDelaySeconds: o.crawlDelaySeconds ?? 0.05,
    slowMs: o.slowMs ?? 2000,
    retryAfterSeconds: o.retryAfterSeconds ?? 1,
    medianPageBytes: o.medianPageBytes ?? 20_000,
  };
  if (!Number.isInteger(r.hosts) || r.hosts < 20) throw new RangeError('scale web: at least 20 hosts');
  if (!Number.isInteger(r.pages) || r.pages < r.hosts) throw new RangeError('scale web: pages >= hosts');
  if (r.seedHosts < 1 || r.seedHosts > PLAIN_HOSTS) {
    throw new RangeError(`scale web: seedHosts in 1..${PLAIN_HOSTS}`);
  }
  return r;
}

/**
 * What a host's robots.txt says. Plain: 200, all allowed. CrawlDelay: 200 with a
 * Crawl-delay. Disallow: 200 with `Disallow: /p/D` (D a digit: pages D, D0-D9, D00-D99...).
 * Missing: 404, all allowed. ServerError: 500, RFC 9309's "unreachable": the crawler must
 * fetch none of the host's pages.
 */
export const Robots = { Plain: 0, CrawlDelay: 1, Disallow: 2, Missing: 3, ServerError: 4 } as const;
export type Robots = (typeof Robots)[keyof typeof Robots];

/** Behaviour flags of a host (bits). */
export const DEAD = 1;
export const SLOW = 2;
export const FLAKY = 4;
export const MOVED = 8;

/** The biggest hosts are plain (seeds and the bulk of the pages stay crawlable). */
const PLAIN_HOSTS = 10;
/** Most hosts are 1 to MAX_BODY pages; the head of the power law adds the rest. */
const MAX_BODY = 20;
const SLOW_MAX_PAGES = 5;

export const DOMAIN = 'scale.test';
export const DEAD_DOMAIN = `dead.${DOMAIN}`;

export class ScaleWeb {
  readonly o: ResolvedScaleOptions;
  /** Pages of host i. */
  readonly sizes: Int32Array;
  /** Page (i, p) has the flat id offsets[i] + p; offsets[hosts] is the number of pages. */
  readonly offsets: Int32Array;
  readonly flags: Uint8Array;
  readonly robots: Uint8Array;
  /** The digit a Disallow host disallows /p/D under. */
  readonly disallowDigit: Uint8Array;
  /** Share of a page's free links that leave the host, per host, in 1/256ths. */
  readonly crossShare: Uint8Array;
  /** ln(hosts + 1), for Zipf picks. */
  private readonly logHosts: number;

  constructor(options: ScaleWebOptions) {
    this.o = resolveScaleOptions(options);
    const n = this.o.hosts;
    this.sizes = new Int32Array(n);
    this.flags = new Uint8Array(n);
    this.robots = new Uint8Array(n);
    this.disallowDigit = new Uint8Array(n);
    this.crossShare = new Uint8Array(n);
    this.logHosts = Math.log(n + 1);
    let bodyTotal = 0;
    const draws: Random[] = [];
    for (let i = 0; i < n; i++) {
      const random = hostRandom(this.o.seed, i);
      draws.push(random);
      // 1..MAX_BODY, most of them small.
      const body = 1 + Math.floor(MAX_BODY * random() ** 2.5);
      this.sizes[i] = Math.min(body, MAX_BODY);
      bodyTotal += this.sizes[i] as number;
    }
    // The head: rank-size (Zipf, s = 1) over the host index, adding up to what the bodies leave.
    const harmonic = Math.log(n) + 0.5772;
    const headTotal = Math.max(0, this.o.pages - bodyTotal);
    for (let i = 0; i < n; i++) {
      (this.sizes[i] as number) += Math.floor(headTotal / (harmonic * (i + 1)));
    }
    this.offsets = new Int32Array(n + 1);
    for (let i = 0; i < n; i++) this.offsets[i + 1] = (this.offsets[i] as number) + (this.sizes[i] as number);
    for (let i = 0; i < n; i++) this.decideBehaviour(i, draws[i] as Random);
  }

  private decideBehaviour(i: number, random: Random): void {
    const robotsDraw = random();
    const behaviourDraw = random();
    this.disallowDigit[i] = 1 + randomInt(random, 9);
    this.crossShare[i] = 13 + randomInt(random, 39); // 5% to 20%
    if (i < PLAIN_HOSTS) return;
    this.robots[i] =
      robotsDraw < 0.1
        ? Robots.CrawlDelay
        : robotsDraw < 0.25
          ? Robots.Disallow
          : robotsDraw < 0.45
            ? Robots.Missing
            : robotsDraw < 0.47
              ? Robots.ServerError
              : Robots.Plain;
    if (behaviourDraw < 0.01) this.flags[i] = DEAD;
    else if (behaviourDraw < 0.02 && (this.sizes[i] as number) <= SLOW_MAX_PAGES) this.flags[i] = SLOW;
    else if (behaviourDraw < 0.05) this.flags[i] = FLAKY;
    else if (behaviourDraw < 0.06) this.flags[i] = MOVED;
  }

  get totalPages(): number {
    return this.offsets[this.o.hosts] as number;
  }

  size(host: number): number {
    return this.sizes[host] as number;
  }

  has(host: number, flag: number): boolean {
    return ((this.flags[host] as number) & flag) !== 0;
  }

  hostName(host: number): string {
    return this.has(host, DEAD) ? `h${host}.${DEAD_DOMAIN}` : `h${host}.${DOMAIN}`;
  }

  /** The host a Host header names (any case, port or not), or -1. */
  hostOf(header: string | undefined): number {
    if (header === undefined) return -1;
    const m = /^h(\d{1,7})\.scale\.test(?::\d+)?$/i.exec(header);
    const host = m?.[1] === undefined ? -1 : Number(m[1]);
    return host >= 0 && host < this.o.hosts ? host : -1;
  }

  /** The page a request path names on a host, or -1 (no leading zeros: one spelling per page). */
  pageOf(host: number, path: string): number {
    if (path === '/') return 0;
    const m = /^\/p\/([1-9]\d{0,6})\.html$/.exec(path);
    const page = m?.[1] === undefined ? -1 : Number(m[1]);
    return page < this.size(host) ? page : -1;
  }

  /** Whether the host's robots.txt lets a crawler fetch page p. */
  allowed(host: number, page: number): boolean {
    const kind = this.robots[host] as Robots;
    if (kind === Robots.ServerError) return false;
    if (kind !== Robots.Disallow || page === 0) return true;
    return !String(page).startsWith(String(this.disallowDigit[host]));
  }

  robotsTxt(host: number): { status: number; body: string } {
    const kind = this.robots[host] as Robots;
    if (kind === Robots.Missing) return { status: 404, body: 'not found\n' };
    if (kind === Robots.ServerError) return { status: 500, body: 'internal error\n' };
    const rules =
      kind === Robots.CrawlDelay
        ? `Crawl-delay: ${this.o.crawlDelaySeconds}\nDisallow:\n`
        : kind === Robots.Disallow
          ? `Disallow: /p/${this.disallowDigit[host]}\n`
          : 'Allow: /\n';
    return { status: 200, body: `# h${host}\nUser-agent: *\n${rules}` };
  }

  /** The gap a crawler must leave between two requests to the host, its own --delay aside. */
  crawlDelayMs(host: number): number {
    return this.robots[host] === Robots.CrawlDelay ? Math.round(this.o.crawlDelaySeconds * 1000) : 0;
  }

  /** Where a moved host sends its pages: a host that serves pages, chosen from the seed. */
  movedTo(host: number, page: number): { host: number; page: number } {
    let target = 0;
    for (let attempt = 0; attempt < 50; attempt++) {
      const candidate = (host * 7919 + 104_729 * (attempt + 1)) % this.o.hosts;
      if (this.flags[candidate] === 0 && this.robots[candidate] !== Robots.ServerError) {
        target = candidate;
        break;
      }
    }
    return { host: target, page: page % this.size(target) };
  }

  /** A flaky host's page answers 503 or 429 the first time it is asked for (one in four pages). */
  flakyPage(host: number, page: number): boolean {
    return this.has(host, FLAKY) && Math.imul(page + 1, 0x9e3779b1) >>> 29 < 2;
  }

  /** A host by a Zipf law over the host index (rank): P(i) ~ 1 / (i + 1). */
  zipfHost(random: Random): number {
    const host = Math.floor(Math.exp(random() * this.logHosts)) - 1;
    return Math.min(this.o.hosts - 1, Math.max(0, host));
  }

  seedUrls(origin: (host: number) => string): string[] {
    return Array.from({ length: this.o.seedHosts }, (_, i) => `${origin(i)}/`);
  }
}

/** A host's own stream: page indexes are never below -1, so -2 is no page's. */
function hostRandom(seed: number, host: number): Random {
  return pageRandom(seed, host, -2);
}

export function pagePath(page: number): string {
  return page === 0 ? '/' : `/p/${page}.html`;
}
