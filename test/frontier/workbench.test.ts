import { appendFileSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { DataDirBusyError } from '../../src/errors.js';
import type { RobotsEntry } from '../../src/fetch/robots/robots-entry.js';
import type { KeptState } from '../../src/frontier/memory/changes.js';
import { HEAD_IN_MEMORY } from '../../src/frontier/memory/memory-frontier.js';
import { openFrontier } from '../../src/frontier/open-store.js';
import type {
  Completion,
  CrawlerId,
  Lease,
  NewLink,
  PendingRecord,
  RejectedLink,
} from '../../src/frontier/types.js';
import {
  readFolder,
  WorkbenchFrontier,
  type WorkbenchOptions,
} from '../../src/frontier/workbench/workbench-frontier.js';
import { expectOnlyMissingNew, feedAndKill } from './fixtures/feed-and-kill.js';
import { TEST_SETTINGS } from './stores.js';

/**
 * What is particular to the workbench store, the crawl in one process's memory kept as a
 * journal of calls folded now and then into a snapshot (src/frontier/workbench): a kill -9
 * loses no call that answered, compaction keeps everything, a line torn by a crash is cut
 * off, and leases run on through a restart by the store's clock. The Frontier contract
 * itself runs in contract.test.ts.
 */

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

/** A fresh folder for one test; the store's folder is `workbench` in it (made by the store). */
function freshDir(): string {
  const root = mkdtempSync(join(tmpdir(), 'cobweb-workbench-'));
  dirs.push(root);
  return join(root, 'workbench');
}

function open(dir: string, clock?: () => number, options: WorkbenchOptions = {}) {
  return WorkbenchFrontier.open(dir, TEST_SETTINGS, {
    ...(clock === undefined ? {} : { now: clock }),
    ...options,
  });
}

/** The generations in a folder's file names: snapshot.G.jsonl, journal.G.jsonl and urls.G.jsonl. */
function generationsOf(dir: string): {
  snapshots: number[];
  journals: number[];
  urls: number[];
  other: string[];
} {
  const snapshots: number[] = [];
  const journals: number[] = [];
  const urls: number[] = [];
  const other: string[] = [];
  for (const name of readdirSync(dir)) {
    const m = /^(snapshot|journal|urls)\.(\d+)\.jsonl$/.exec(name);
    if (m === null) other.push(name);
    else (m[1] === 'snapshot' ? snapshots : m[1] === 'journal' ? journals : urls).push(Number(m[2]));
  }
  const sorted = (xs: number[]) => xs.sort((a, b) => a - b);
  return { snapshots: sorted(snapshots), journals: sorted(journals), urls: sorted(urls), other };
}

/**
 * What a folder holds, read as the store reads it, without touching it: the state in
 * memory, and every URL, those of the URL files (out of memory) included.
 */
async function readKept(dir: string): Promise<{ state: KeptState; generation: number; urls: string[] }> {
  const { reader, generation, urls: files } = await readFolder(dir, false);
  try {
    const state = reader.kept();
    const urls = state.entries.map((e) => e.url);
    files.each((e) => urls.push(e.url));
    return { state, generation, urls };
  } finally {
    files.close();
  }
}

/** How a child feeds the store in DIR: by its spec (the 64 MiB default), or compacting every 8 KB. */
const FEEDERS = [
  {
    name: 'by its spec (no compaction)',
    args: (dir: string, round: number) => [`workbench:${dir}`, `${round}`],
  },
  {
    name: 'compacting every 8 KB',
    args: (dir: string, round: number) => [`workbench:${dir}`, `${round}`, '8192'],
  },
];

/** While the child holds the folder, this process is refused it, however it opens it. */
async function refusedMeanwhile(dir: string): Promise<void> {
  const busy = openFrontier(`workbench:${dir}`, TEST_SETTINGS);
  await expect(busy).rejects.toBeInstanceOf(DataDirBusyError);
  await expect(busy).rejects.toMatchObject({ code: 'COBWEB_DATA_DIR_BUSY' });
}

describe.each(FEEDERS)('the workbench store fed $name, killed with SIGKILL', ({ args }) => {
  it('keeps every call that answered, stores no URL twice, and queues exactly what it lacks', async () => {
    const dir = freshDir();
    const offered = new Set<string>();
    const confirmed = new Set<string>();
    for (let round = 0; round < 3; round++) {
      const run = await feedAndKill(args(dir, round), 10 + Math.floor(Math.random() * 50), () =>
        refusedMeanwhile(dir),
      );
      for (const u of run.offered) offered.add(u);
      for (const u of run.confirmed) confirmed.add(u);
    }
    expect(confirmed.size).toBeGreaterThan(0);

    // Every line but a torn last one of the journal reads back (KeptReader throws on a bad one).
    const urls = (await readKept(dir)).urls;
    const stored = new Set(urls);
    expect(urls.length).toBe(stored.size); // no URL stored twice
    for (const u of confirmed) expect(stored.has(u), u).toBe(true); // nothing that answered lost
    for (const u of stored) expect(offered.has(u), u).toBe(true); // nothing made up

    // The folder is free again once its process is gone, with no lock to clean up.
    const f = await openFrontier(`workbench:${dir}`, TEST_SETTINGS);
    try {
      expect((await f.stats()).seen?.size).toBe(stored.size);
      // The seen set made again from the folder says new for exactly the URLs it lacks.
      await expectOnlyMissingNew(f, offered, stored);
    } finally {
      await f.close();
    }
    const after = (await readKept(dir)).urls;
    expect(after.length).toBe(new Set(after).size);
    expect(new Set(after)).toEqual(new Set([...stored, ...offered]));
  });
});

const HOSTS = ['h0.test', 'h1.test', 'h2.test', 'h3.test', 'h4.test', 'h5.test'];
const origin = (host: string) => `http://${host}`;
const ROBOTS_FILE: RobotsEntry = {
  state: 'parsed',
  status: 200,
  text: 'User-agent: *\nDisallow: /private\n',
};
const ROBOTS_NONE: RobotsEntry = { state: 'allow-all', status: 404, text: null };

/** What the owner's calls say of a store: compared before a close and after the reopen. */
async function answersOf(f: WorkbenchFrontier, c: CrawlerId) {
  const byKey = <T extends { key: string }>(list: T[]) => list.sort((a, b) => (a.key < b.key ? -1 : 1));
  const byHost = <T extends { host: string }>(list: T[]) => list.sort((a, b) => (a.host < b.host ? -1 : 1));
  return {
    stats: await f.stats(),
    stored: await f.findStored({ refused: true, failed: true, done: true }, 0, 100_000),
    refusedByRobots: await f.findStored({ refusedFor: ['robots'] }, 0, 100_000),
    failed: await f.findStored({ failed: true }, 0, 100_000),
    sites: (await f.sites()).sort((a, b) => (a.origin < b.origin ? -1 : 1)),
    cookies: byKey(await f.cookies()),
    hostQueues: await f.hostQueues(100),
    hosts: await f.hostOverview(100).then((o) => ({ ...o, busiest: byHost(o.busiest) })),
    robots: [await f.robots(origin('h0.test'), c), await f.robots(origin('h1.test'), c)],
    seeds: await f.crawlSeeds({ origins: [], addresses: [] }),
  };
}

describe('the workbench store, compacted', () => {
  it('folds its journal into snapshots, keeps only the newest, and reads back what it held', async () => {
    const dir = freshDir();
    let clock = 1_700_000_000_000;
    const now = () => clock;
    const settings = { ...TEST_SETTINGS, perHost: 100 };
    const f = await WorkbenchFrontier.open(dir, settings, { now, compactAtBytes: 4096 });
    const c = await f.registerCrawler('owner');
    /** Each URL's 'done' completions, over both runs. */
    const doneCount = new Map<string, number>();
    let made = 0;
    let k = 0;
    const LIMIT = 800;
    const newLinks = (from: Lease, n: number): NewLink[] => {
      const out: NewLink[] = [];
      for (let i = 0; i < n && made < LIMIT; i++, made++) {
        const host = HOSTS[made % HOSTS.length] as string;
        out.push({ url: `http://${host}/p${made}`, depth: from.depth + 1, via: from.url });
      }
      // A link seen already: changes nothing.
      out.push({ url: `${origin(from.host)}/`, depth: from.depth + 1, via: from.url });
      return out;
    };
    let unacknowledged: PendingRecord[] = [];
    /** A plain 'done' completion of each lease, counted. */
    const doneAll = (leases: readonly Lease[]): Completion[] =>
      leases.map((l) => {
        doneCount.set(l.url, (doneCount.get(l.url) ?? 0) + 1);
        return {
          leaseId: l.id,
          outcome: { kind: 'done' },
          report: { fetchMs: 5 },
          outlinks: [],
          rejected: [],
        };
      });

    await f.crawlSeeds({ origins: HOSTS.map(origin), addresses: ['10.0.0.1'] });
    await f.saveCookies([
      { key: 'h0.test;/;sid', value: 'abc' },
      { key: 'h1.test;/;lang', value: 'en' },
      { key: 'h2.test;/;gone', value: 'soon' },
    ]);
    expect(await f.robots(origin('h0.test'), c)).toEqual({ kind: 'read' });
    await f.recordRobots(origin('h0.test'), ROBOTS_FILE, c);
    expect(await f.robots(origin('h1.test'), c)).toEqual({ kind: 'read' });
    await f.recordRobots(origin('h1.test'), ROBOTS_NONE, c);
    // A read under way when the store closes.
    expect(await f.robots(origin('h2.test'), c)).toEqual({ kind: 'read' });
    const seeded = await f.add(
      HOSTS.map((h) => ({ url: `${origin(h)}/`, depth: 0, via: null })),
      [{ url: 'http://elsewhere.test/', depth: 0, via: null, reason: 'scope' }],
      c,
    );
    expect(seeded.added).toBe(HOSTS.length);
    await f.acknowledge(seeded.records.map((r) => r.id));

    for (let round = 0; round < 24; round++) {
      const { leases } = await f.lease(25, c);
      if (leases.length === 0) {
        clock += 10_000;
        continue;
      }
      const batch: Completion[] = leases.map((l): Completion => {
        k++;
        if (k % 11 === 3 && l.attempt === 1)
          return {
            leaseId: l.id,
            outcome: { kind: 'retry', error: 'http-503', afterMs: 5000 },
            outlinks: [],
            rejected: [],
          };
        if (k % 13 === 5)
          return { leaseId: l.id, outcome: { kind: 'failed', error: 'timeout' }, outlinks: [], rejected: [] };
        if (k % 17 === 7)
          return {
            leaseId: l.id,
            outcome: { kind: 'refused', reason: 'robots' },
            outlinks: [],
            rejected: [],
          };
        doneCount.set(l.url, (doneCount.get(l.url) ?? 0) + 1);
        const rejected: RejectedLink[] =
          k % 5 === 0
            ? [{ url: `http://out${k}.test/`, depth: l.depth + 1, via: l.url, reason: 'scope' }]
            : [];
        return {
          leaseId: l.id,
          outcome: { kind: 'done', validators: { etag: `"e${k}"` } },
          report: { fetchMs: 5 },
          outlinks: newLinks(l, 3),
          rejected,
        };
      });
      const result = await f.complete(batch, c);
      expect(result.stale).toEqual([]);
      // The records of refused links are written and acknowledged, those of the last round aside.
      await f.acknowledge(unacknowledged.map((r) => r.id));
      unacknowledged = result.records;
      for (const l of leases) {
        const site = origin(l.host);
        if (await f.claimSite(site, c))
          await f.recordSite({
            origin: site,
            address: '10.0.0.1',
            firstSeen: clock,
            info: { meta: { n: 1 } },
          });
      }
      clock += 1000;
      if (round === 12) await f.saveCookies([{ key: 'h2.test;/;gone', value: null }]);
    }
    // Leases held when the store closes, and retries not due yet.
    const held = (await f.lease(5, c)).leases;
    expect(held.length).toBeGreaterThan(0);
    const retry = (await f.lease(1, c)).leases;
    await f.complete(
      retry.map((l) => ({
        leaseId: l.id,
        outcome: { kind: 'retry', error: 'http-503', afterMs: 60_000 },
        outlinks: [],
        rejected: [],
      })),
      c,
    );

    const before = await answersOf(f, c);
    expect(before.stats.queued).toBeGreaterThan(0);
    expect(before.stats.leased).toBe(held.length);
    expect(before.stats.retrying).toBeGreaterThan(0);
    expect(before.stats.done).toBeGreaterThan(200);
    expect(before.stats.failed).toBeGreaterThan(0);
    expect(before.stats.rejected).toBeGreaterThan(0);
    expect(before.refusedByRobots.length).toBeGreaterThan(0);
    expect(before.sites).toHaveLength(HOSTS.length);
    expect(before.cookies.map((x) => x.key)).toEqual(['h0.test;/;sid', 'h1.test;/;lang']);
    expect(before.robots.map((r) => r.kind)).toEqual(['known', 'known']);
    expect(unacknowledged.length).toBeGreaterThan(0);
    await f.close();

    // Several snapshots were written; only the newest generation is left.
    const files = generationsOf(dir);
    expect(files.snapshots).toHaveLength(1);
    expect(files.snapshots[0]).toBeGreaterThanOrEqual(3);
    expect(files.journals).toEqual(files.snapshots);
    expect(files.other).toEqual(['workbench.lock']);
    // The URLs whose work was over left memory for URL files; the snapshot holds only
    // those with work left.
    expect(files.urls.length).toBeGreaterThan(0);
    const kept = await readKept(dir);
    const snapshot = readFileSync(join(dir, `snapshot.${files.snapshots[0]}.jsonl`), 'utf8');
    const urlsInSnapshot = snapshot
      .split('\n')
      .filter((line) => line !== '')
      .flatMap((line) => JSON.parse(line) as unknown[][])
      .filter((change) => change[0] === 'u');
    expect(urlsInSnapshot.length).toBeGreaterThan(0);
    expect(urlsInSnapshot.filter((change) => change[8] === 'done')).toEqual([]);
    expect(kept.urls.length).toBe(before.stats.seen?.size);

    // Opened again with the default compaction: the same store.
    const g = await WorkbenchFrontier.open(dir, settings, { now });
    try {
      expect(await answersOf(g, c)).toEqual(before);
      // The records nobody acknowledged are still the owner's to write.
      expect((await g.reclaimRecords(c)).map((r) => r.url)).toEqual(unacknowledged.map((r) => r.url));
      // The robots.txt read under way is still its reader's: another crawler waits.
      const other = await g.registerCrawler('other');
      expect(await g.robots(origin('h2.test'), other)).toEqual({ kind: 'busy' });

      // The leases held before the close are held still: their completions count.
      const late = await g.complete(doneAll(held), c);
      expect(late.stale).toEqual([]);

      // The rest of the crawl, to its end.
      let ended = null;
      for (let i = 0; i < 1000 && ended === null; i++) {
        const batch = await g.lease(50, c);
        ended = batch.ended;
        if (batch.leases.length === 0) {
          clock += 10_000;
          continue;
        }
        const done = await g.complete(doneAll(batch.leases), c);
        expect(done.stale).toEqual([]);
      }
      expect(ended).toBe('finished');
      const end = await g.stats();
      expect(end).toMatchObject({ queued: 0, leased: 0, retrying: 0 });
      // Every URL fetched exactly once, none lost, none twice.
      for (const [url, n] of doneCount) expect(n, url).toBe(1);
      expect(end.done).toBe(doneCount.size);
      const doneUrls = (await g.findStored({ done: true }, 0, 100_000)).map((l) => l.url);
      expect(new Set(doneUrls)).toEqual(new Set(doneCount.keys()));
      expect(end.done + end.failed + end.rejected).toBe(end.seen?.size);
    } finally {
      await g.close();
    }
  });
});

describe('the workbench store, given calls at once', () => {
  it('answers each call once its line is written, through compactions, and keeps them all', async () => {
    const dir = freshDir();
    const f = await open(dir, undefined, { compactAtBytes: 4096 });
    const c = await f.registerCrawler('a');
    // Calls made without waiting: their lines are written in groups, and snapshots are
    // made while lines wait for the write under way.
    const urls = Array.from({ length: 200 }, (_, i) =>
      Array.from({ length: 5 }, (_, j) => `http://h${j}.test/burst/${i}/${'x'.repeat(i % 40)}`),
    );
    const answers = await Promise.all(
      urls.map(async (batch) => {
        const r = await f.add(
          batch.map((url) => ({ url, depth: 1, via: null })),
          [],
          c,
        );
        return r.added;
      }),
    );
    expect(answers).toEqual(urls.map(() => 5));
    await f.close();

    // Three snapshots or more were made (their generation counts them); the newest is left.
    const files = generationsOf(dir);
    expect(files.snapshots).toHaveLength(1);
    expect(files.snapshots[0]).toBeGreaterThanOrEqual(3);
    expect(files.journals).toEqual(files.snapshots);
    const kept = (await readKept(dir)).urls;
    expect(kept).toHaveLength(urls.flat().length);
    expect(new Set(kept)).toEqual(new Set(urls.flat()));
    const g = await open(dir);
    try {
      expect(await g.stats()).toMatchObject({ queued: 1000, hosts: 5 });
      expect((await g.add([{ url: urls[0]?.[0] as string, depth: 1, via: null }], [], c)).added).toBe(0);
    } finally {
      await g.close();
    }
  });
});

describe('the workbench store, with a torn journal line', () => {
  it('opens, cuts the torn bytes, holds what it held, and keeps the calls made after', async () => {
    const dir = freshDir();
    const f = await open(dir);
    const c = await f.registerCrawler('a');
    await f.add(
      [
        { url: 'http://a.test/', depth: 0, via: null },
        { url: 'http://b.test/', depth: 0, via: null },
      ],
      [{ url: 'http://c.test/', depth: 0, via: null, reason: 'scope' }],
      c,
    );
    const { leases } = await f.lease(2, c);
    await f.complete(
      leases.map((l) => ({
        leaseId: l.id,
        outcome: { kind: 'done' },
        report: { fetchMs: 1 },
        outlinks: [{ url: `${l.url}next`, depth: 1, via: l.url }],
        rejected: [],
      })),
      c,
    );
    const stats = await f.stats();
    const stored = await f.findStored({ done: true, refused: true }, 0, 100);
    await f.close();

    const journal = join(dir, 'journal.0.jsonl');
    const whole = readFileSync(journal, 'utf8');
    expect(whole.endsWith('\n')).toBe(true);
    appendFileSync(journal, '[["u",999,"http://x');

    const g = await open(dir);
    try {
      expect(await g.stats()).toEqual(stats);
      expect(await g.findStored({ done: true, refused: true }, 0, 100)).toEqual(stored);
      // The torn bytes are gone: the whole lines are as they were, and every line is whole.
      const text = readFileSync(journal, 'utf8');
      expect(text.startsWith(whole)).toBe(true);
      expect(text.endsWith('\n')).toBe(true);
      expect(text).not.toContain('http://x');
      for (const line of text.slice(0, -1).split('\n')) expect(() => JSON.parse(line), line).not.toThrow();
      // A call made now is kept.
      expect((await g.add([{ url: 'http://d.test/', depth: 0, via: null }], [], c)).added).toBe(1);
    } finally {
      await g.close();
    }
    // Every line of the journal reads back whole.
    expect((await readKept(dir)).urls).toContain('http://d.test/');
    const h = await open(dir);
    try {
      expect((await h.stats()).queued).toBe(stats.queued + 1);
      expect(await h.hostQueues(10)).toContainEqual({ host: 'd.test', queued: 1 });
      expect((await h.add([{ url: 'http://d.test/', depth: 0, via: null }], [], c)).added).toBe(0);
    } finally {
      await h.close();
    }
  });
});

describe('the workbench store, with a journal line damaged in the middle', () => {
  it('refuses to open, naming the file and the line, and changes nothing', async () => {
    const dir = freshDir();
    const f = await open(dir);
    const c = await f.registerCrawler('a');
    await f.add([{ url: 'http://a.test/', depth: 0, via: null }], [], c);
    await f.add([{ url: 'http://b.test/', depth: 0, via: null }], [], c);
    await f.close();
    const journal = join(dir, 'journal.0.jsonl');
    const lines = readFileSync(journal, 'utf8').split('\n');
    // Not a torn end: a line other than the last is not what the store wrote.
    lines[1] = `${(lines[1] as string).slice(0, 10)}}`;
    const damaged = lines.join('\n');
    writeFileSync(journal, damaged);

    await expect(open(dir)).rejects.toThrow(`${journal} line 2`);
    // Nothing was cut or deleted: the same answer again.
    expect(readFileSync(journal, 'utf8')).toBe(damaged);
    await expect(open(dir)).rejects.toThrow(/not a line of JSON/);
  });
});

describe('the workbench store, with a lease held over a restart', () => {
  it('keeps the lease, and lets it run out by its own clock', async () => {
    const dir = freshDir();
    let clock = 1_700_000_000_000;
    const now = () => clock;
    const f = await open(dir, now);
    const a = await f.registerCrawler('a');
    await f.add([{ url: 'http://a.test/', depth: 0, via: null }], [], a);
    const [lease] = (await f.lease(1, a)).leases;
    expect(lease).toBeDefined();
    const old = lease as Lease;
    expect(old.expiresAt).toBe(clock + TEST_SETTINGS.leaseMs);
    await f.close();

    // Opened again before it runs out: still leased, nothing to hand out.
    clock += 1000;
    const g = await open(dir, now);
    try {
      expect(await g.stats()).toMatchObject({ queued: 0, leased: 1, expiredLeases: 0 });
      const b = await g.registerCrawler('b');
      const none = await g.lease(1, b);
      expect(none.leases).toEqual([]);
      expect(none.ended).toBeNull();
      expect(none.nextReadyAt).toBe(old.expiresAt);
    } finally {
      await g.close();
    }

    // Opened again after it ran out: the URL is handed out again, the old lease is stale.
    clock = old.expiresAt + 1;
    const h = await open(dir, now);
    let fresh: Lease;
    let b: CrawlerId;
    try {
      b = await h.registerCrawler('b again');
      const { leases } = await h.lease(1, b);
      expect(leases.map((l) => [l.url, l.attempt])).toEqual([['http://a.test/', 2]]);
      fresh = leases[0] as Lease;
      expect(fresh.id).not.toBe(old.id);
      expect(fresh.expiresAt).toBe(clock + TEST_SETTINGS.leaseMs);
      expect((await h.stats()).expiredLeases).toBe(1);
      const late = await h.complete(
        [{ leaseId: old.id, outcome: { kind: 'done' }, report: { fetchMs: 1 }, outlinks: [], rejected: [] }],
        a,
      );
      expect(late.stale).toEqual([old.id]);
      expect(await h.stats()).toMatchObject({ leased: 1, done: 0, staleCompletions: 1, expiredLeases: 1 });
    } finally {
      await h.close();
    }

    // Opened once more: the new lease is held still and completes; what the refused
    // completion counted is kept too.
    const i = await open(dir, now);
    try {
      expect(await i.stats()).toMatchObject({ leased: 1, done: 0, expiredLeases: 1 });
      const done = await i.complete(
        [
          {
            leaseId: fresh.id,
            outcome: { kind: 'done' },
            report: { fetchMs: 1 },
            outlinks: [],
            rejected: [],
          },
        ],
        b,
      );
      expect(done.stale).toEqual([]);
      expect(await i.stats()).toMatchObject({ queued: 0, leased: 0, done: 1, expiredLeases: 1 });
      // A call whose only change was a counter (a stale completion) is kept like any other.
      expect((await i.stats()).staleCompletions, 'staleCompletions after a reopen').toBe(1);
    } finally {
      await i.close();
    }
  });
});

describe('the workbench store, its URLs whose work is over kept out of memory', () => {
  it('finds, requeues and recrawls them from the URL files, and reads them back on opening', async () => {
    const dir = freshDir();
    let clock = 1_700_000_000_000;
    const now = () => clock;
    const settings = { ...TEST_SETTINGS, perHost: 100 };
    const f = await WorkbenchFrontier.open(dir, settings, { now });
    const c = await f.registerCrawler('owner');
    const urls = Array.from({ length: 40 }, (_, i) => `http://${HOSTS[i % 3]}/p${i}`);
    await f.add(
      urls.map((url) => ({ url, depth: 0, via: null })),
      [],
      c,
    );
    // 10 done with an ETag, 5 failed, 5 refused (their records written), 20 left queued.
    const leases = (await f.lease(20, c)).leases.sort((a, b) => a.id - b.id);
    expect(leases).toHaveLength(20);
    const done = await f.complete(
      leases.map((l, i): Completion => {
        const outcome: Completion['outcome'] =
          i < 10
            ? { kind: 'done', validators: { etag: `"v${i}"` } }
            : i < 15
              ? { kind: 'failed', error: 'timeout' }
              : { kind: 'refused', reason: 'robots' };
        return { leaseId: l.id, outcome, outlinks: [], rejected: [] };
      }),
      c,
    );
    await f.acknowledge(done.records.map((r) => r.id));
    const all = { done: true, failed: true, refused: true };
    const before = {
      stats: await f.stats(),
      stored: await f.findStored(all, 0, 100),
      page: await f.findStored(all, 0, 100).then((s) => s.slice(3, 8)),
    };
    expect(before.stats).toMatchObject({ queued: 20, done: 10, failed: 5, rejected: 5 });

    await f.snapshotNow();
    // The 20 whose work is over are in a URL file, with the queued URLs of each host past
    // its first HEAD_IN_MEMORY: in memory, those first ones of each host with URLs queued.
    expect(generationsOf(dir).urls).toHaveLength(1);
    const queues = await f.hostQueues(10);
    expect(queues.reduce((n, q) => n + q.queued, 0)).toBe(20);
    const heads = queues.reduce((n, q) => n + Math.min(HEAD_IN_MEMORY, q.queued), 0);
    expect(heads).toBeLessThan(20);
    expect(f.keptState().entries.map((e) => e.state)).toEqual(Array(heads).fill('queued'));

    // The owner's calls answer as before.
    expect(await f.stats()).toEqual(before.stats);
    expect(await f.findStored(all, 0, 100)).toEqual(before.stored);
    const third = before.stored[2]?.id as number;
    expect(await f.findStored(all, third, 5)).toEqual(before.page);
    const among = await f.findStored({ ...all, among: [leases[3]?.url as string, 'http://h9.test/'] }, 0, 10);
    expect(among.map((s) => [s.url, s.state])).toEqual([[leases[3]?.url, 'done']]);
    expect(await f.findStored({ refusedFor: ['robots'] }, 0, 100)).toHaveLength(5);
    // Nothing it holds out of memory is new to the crawl.
    expect((await f.add([{ url: leases[0]?.url as string, depth: 0, via: null }], [], c)).added).toBe(0);

    // The failed ones queued again come back from the file, and are the engine's once more.
    const failed = await f.findStored({ failed: true }, 0, 100);
    expect(await f.requeue(failed.map((s) => s.id))).toBe(5);
    expect(await f.stats()).toMatchObject({ queued: 25, failed: 0, done: 10 });
    await f.close();

    // Opened again: the file, the snapshot and the journal after it add up to the same store.
    clock += 60_000;
    const g = await WorkbenchFrontier.open(dir, settings, { now });
    try {
      expect(await g.stats()).toMatchObject({
        queued: 25,
        failed: 0,
        done: 10,
        rejected: 5,
        seen: { size: 40 },
      });
      expect(await g.findStored({ failed: true }, 0, 100)).toEqual([]);
      // Done URLs come due for a recrawl from the file, each with its validators.
      expect(await g.requeueDue(30_000)).toBe(10);
      const again = (await g.lease(100, c)).leases;
      expect(again).toHaveLength(35);
      const recrawled = again.filter((l) => l.previous !== undefined);
      expect(recrawled.map((l) => l.url).sort()).toEqual(
        leases
          .slice(0, 10)
          .map((l) => l.url)
          .sort(),
      );
      for (const l of recrawled) expect(l.previous).toMatchObject({ etag: expect.stringMatching(/^"v\d"$/) });
      await g.complete(
        again.map((l) => ({ leaseId: l.id, outcome: { kind: 'done' }, outlinks: [], rejected: [] })),
        c,
      );
      expect(await g.stats()).toMatchObject({ queued: 0, leased: 0, done: 35, failed: 0, rejected: 5 });
      await g.snapshotNow();
      expect(generationsOf(dir).urls).toHaveLength(2);
    } finally {
      await g.close();
    }
    // A URL in two URL files is counted by its newest line.
    const h = await WorkbenchFrontier.open(dir, settings, { now });
    try {
      expect(await h.stats()).toMatchObject({
        queued: 0,
        done: 35,
        failed: 0,
        rejected: 5,
        seen: { size: 40 },
      });
      expect(await h.findStored({ done: true }, 0, 100)).toHaveLength(35);
      expect(h.keptState().entries).toEqual([]);
    } finally {
      await h.close();
    }
  });
});

describe('the workbench store, its queues past their first URLs kept on disk', () => {
  it('leases them in their order through reopenings, and deletes a URL file once nothing in it is current', async () => {
    const dir = freshDir();
    const settings = TEST_SETTINGS;
    const f = await WorkbenchFrontier.open(dir, settings);
    const c = await f.registerCrawler('owner');
    const link = (path: string, depth: number, kind?: 'requisite') => ({
      url: `http://h0.test/${path}`,
      depth,
      via: null,
      ...(kind === undefined ? {} : { kind }),
    });
    // Added in this order; leased by rank (depth, requisites after every page), then as they came.
    const deep = Array.from({ length: 30 }, (_, i) => link(`deep/${i}`, 2));
    const shallow = Array.from({ length: 10 }, (_, i) => link(`shallow/${i}`, 1));
    const requisites = Array.from({ length: 5 }, (_, i) => link(`style/${i}.css`, 0, 'requisite'));
    for (const batch of [deep, shallow, requisites]) await f.add(batch, [], c);
    await f.snapshotNow();
    // In memory: the host's first HEAD_IN_MEMORY; the others are in a URL file.
    expect(f.keptState().entries.map((e) => e.url)).toEqual(
      shallow.slice(0, HEAD_IN_MEMORY).map((l) => l.url),
    );
    expect(await f.hostQueues(5)).toEqual([{ host: 'h0.test', queued: 45 }]);
    expect((await f.stats()).queued).toBe(45);
    // Links that come before all of them, one after every page on disk, and one already on disk (seen).
    const seeds = Array.from({ length: 3 }, (_, i) => link(`seed/${i}`, 0));
    const deeper = link('deeper', 3);
    expect((await f.add([...seeds, deeper, deep[7] as NewLink], [], c)).added).toBe(4);

    const order: string[] = [];
    const leaseSome = async (store: WorkbenchFrontier, n: number) => {
      for (let i = 0; i < n; i++) {
        const [lease] = (await store.lease(1, c)).leases;
        if (lease === undefined) return;
        order.push(lease.url);
        await store.complete(
          [{ leaseId: lease.id, outcome: { kind: 'done' }, outlinks: [], rejected: [] }],
          c,
        );
      }
    };
    await leaseSome(f, 20);
    await f.close();
    // Opened again: the places on disk are read back into the host's queue.
    const g = await WorkbenchFrontier.open(dir, settings);
    try {
      expect((await g.stats()).queued).toBe(29);
      expect(await g.hostQueues(5)).toEqual([{ host: 'h0.test', queued: 29 }]);
      await leaseSome(g, 100);
      expect(order).toEqual([...seeds, ...shallow, ...deep, deeper, ...requisites].map((l) => l.url));
      expect(await g.stats()).toMatchObject({ queued: 0, leased: 0, done: 49, seen: { size: 49 } });
      // The first URL file's lines were all read back: it goes with the next snapshot.
      const first = generationsOf(dir).urls[0];
      await g.snapshotNow();
      expect(generationsOf(dir).urls).not.toContain(first);
    } finally {
      await g.close();
    }
    const kept = await readKept(dir);
    expect(new Set(kept.urls).size).toBe(49);
    expect(kept.urls).toHaveLength(49);
  });
});
