import type { ConsoleSource, SourceSnapshot } from './types.js';

/**
 * How much longer than the hosts' last read the console waits before reading them again:
 * the read may take at most a twentieth of the store's time, whoever asks and however
 * often.
 */
const SHARE = 20;

/**
 * The source's snapshots, with the hosts (a read of every host row of the crawl) read
 * again only once SHARE times the last read's time has passed; the snapshots between
 * carry the last hosts read. Every console tick while someone watches, and every scrape
 * of /metrics, asks for the hosts: on a crawl of 10^5 hosts in PostgreSQL each read
 * took half a second of the database, and four bunnies scraped every 2 s kept a core of
 * it busy with nothing else. A small crawl, whose read takes a few ms, gets fresh hosts
 * at every tick as before. Concurrent asks share one read.
 */
export function pacedHosts(
  source: ConsoleSource,
  now: () => number = () => performance.now(),
): ConsoleSource['snapshot'] {
  let last: { hosts: SourceSnapshot['hosts']; nextAt: number } | null = null;
  let reading: Promise<SourceSnapshot> | null = null;
  const readHosts = async (): Promise<SourceSnapshot> => {
    const started = now();
    const snapshot = await source.snapshot(true);
    const ended = now();
    last = { hosts: snapshot.hosts, nextAt: ended + (ended - started) * (SHARE - 1) };
    return snapshot;
  };
  return async (detail) => {
    if (!detail) return source.snapshot(false);
    if (reading !== null) return reading;
    if (last !== null && now() < last.nextAt) {
      const { hosts } = last;
      return { ...(await source.snapshot(false)), hosts };
    }
    reading = readHosts().finally(() => {
      reading = null;
    });
    return reading;
  };
}
