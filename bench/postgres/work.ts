// The work both stores do in the benchmark: what URLs a fill queues and what links a completion brings.

/** Hosts the filled URLs are spread over: enough that 16 clients leasing 64 each never run short. */
export function hostsFor(queued: number): number {
  return Math.max(1000, Math.round(queued / 1000));
}

/** The i-th URL of the fill (all depth 0). */
export function filledUrl(i: number, hosts: number): string {
  return `http://h${i % hosts}.bench/f${i}`;
}

/**
 * Links a completed page brings, all on its own host (as most of a page's links are): this
 * many new, and as many met before (URLs of the fill, which no client has in its cache).
 */
export const NEW_OUTLINKS = 5;
export const KNOWN_OUTLINKS = 5;

/** The host number of a URL of the benchmark's web. */
export function hostOf(url: string): number {
  return Number(/^http:\/\/h(\d+)\.bench\//.exec(url)?.[1] ?? 0);
}

/** A URL of the fill on host `host`: the fill puts URL i on host i mod hosts. */
export function filledUrlOnHost(host: number, hosts: number, filled: number, pick: number): string {
  const perHost = Math.max(1, Math.floor(filled / hosts));
  return filledUrl(host + hosts * Math.min(perHost - 1, Math.floor(pick * perHost)), hosts);
}

/** The settings both stores run with: no gap, four in flight per host, nothing refused. */
export const BENCH_FRONTIER = {
  perHost: 4,
  delayMs: 0,
  delayFactor: 0,
  maxDelayMs: 30_000,
  backoffMs: 1000,
  maxBackoffMs: 60_000,
  retireAfter: 5,
  key: 'host' as const,
  maxPagesPerHost: Number.POSITIVE_INFINITY,
  leaseMs: 60_000,
  maxPages: Number.POSITIVE_INFINITY,
};
