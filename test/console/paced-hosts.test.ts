import { describe, expect, it } from 'vitest';
import { pacedHosts } from '../../src/console/paced-hosts.js';
import type { ConsoleSource, SourceSnapshot } from '../../src/console/types.js';
import type { FrontierStats, HostOverview } from '../../src/frontier/types.js';

/**
 * A store's source whose read of the hosts takes `hostsMs` on the test's clock, and
 * counts its reads: each read of every host row is what a scrape of /metrics or a console
 * tick costs the crawl's database.
 */
function source(hostsMs: number) {
  const clock = { now: 0 };
  const reads = { hosts: 0, plain: 0 };
  const overview = (n: number): HostOverview => ({ active: n, waiting: 0, retired: 0, busiest: [] });
  const src: ConsoleSource = {
    kind: 'crawl',
    async snapshot(detail) {
      if (detail) {
        reads.hosts++;
        clock.now += hostsMs;
      } else {
        reads.plain++;
      }
      return {
        state: 'running',
        store: { queued: reads.plain } as unknown as FrontierStats,
        fetching: 0,
        hosts: detail ? overview(reads.hosts) : null,
        modules: [],
        warcBytes: 0,
        bunnies: null,
        traffic: null,
      } satisfies SourceSnapshot;
    },
    actions: {} as ConsoleSource['actions'],
  };
  return { src, clock, reads };
}

describe('the hosts read by the console', () => {
  it('are read again only after twenty times the last read, the snapshots between carrying the last ones', async () => {
    const { src, clock, reads } = source(500); // 10^5 hosts in PostgreSQL
    const snapshot = pacedHosts(src, () => clock.now);
    expect((await snapshot(true)).hosts?.active).toBe(1);
    // a scrape every 2 s for the next 9.5 s: the same hosts, the rest of the snapshot fresh
    for (let i = 0; i < 4; i++) {
      clock.now += 2000;
      const s = await snapshot(true);
      expect(s.hosts?.active).toBe(1);
      expect(s.store.queued).toBe(i + 1);
    }
    expect(reads.hosts).toBe(1);
    clock.now += 2000; // 10.5 s after the read: read again
    expect((await snapshot(true)).hosts?.active).toBe(2);
    expect(reads.hosts).toBe(2);
  });

  it('are read at every tick of a crawl whose read takes a few ms', async () => {
    const { src, clock, reads } = source(3);
    const snapshot = pacedHosts(src, () => clock.now);
    for (let i = 0; i < 5; i++) {
      clock.now += 1000;
      await snapshot(true);
    }
    expect(reads.hosts).toBe(5);
  });

  it('are read once for asks that come together, and never for a snapshot without them', async () => {
    const { src, clock, reads } = source(500);
    const snapshot = pacedHosts(src, () => clock.now);
    const both = await Promise.all([snapshot(true), snapshot(true)]);
    expect(both.map((s) => s.hosts?.active)).toEqual([1, 1]);
    expect((await snapshot(false)).hosts).toBeNull();
    expect(reads.hosts).toBe(1);
  });
});
