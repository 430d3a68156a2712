import { PacedRead } from '../paced-read.js';
import type { ConsoleSource, SourceSnapshot } from './types.js';

/**
 * The source's snapshots, with the hosts (a read of every host row of the crawl) read
 * again only once twenty times the last read's time has passed (PacedRead); the
 * snapshots between carry the last hosts read. Every console tick while someone
 * watches, and every scrape of /metrics, asks for the hosts: on a crawl of 10^5 hosts in
 * PostgreSQL each read took half a second of the database, and four bunnies scraped
 * every 2 s kept a core of it busy with nothing else. A small crawl, whose read takes a
 * few ms, gets fresh hosts at every tick as before.
 */
export function pacedHosts(
  source: ConsoleSource,
  now: () => number = () => performance.now(),
): ConsoleSource['snapshot'] {
  const withHosts = new PacedRead(() => source.snapshot(true), 20, now);
  return async (detail): Promise<SourceSnapshot> => {
    if (!detail) return source.snapshot(false);
    if (withHosts.due) return withHosts.get();
    const [fresh, last] = await Promise.all([source.snapshot(false), withHosts.get()]);
    return { ...fresh, hosts: last.hosts };
  };
}
