import { afterEach, describe, expect, it } from 'vitest';
import { RemoteFrontier } from '../../src/frontier/remote/remote-frontier.js';
import type { CrawlerId, Lease } from '../../src/frontier/types.js';
import { DEFAULTS } from '../../src/options/options.js';
import { bunnySettingsFrom, settingsForBunnies } from '../../src/server/bunny-settings.js';
import { readAllLines } from '../helpers/pages.js';
import { type InProcessServer, startTestServer } from '../helpers/server.js';

/**
 * What a server does with the captured requisites a bunny sends with a page's completion
 * (docs/protocol.md, "Captured requisites"), spoken over the packet protocol: each is
 * marked seen, the new ones come back as records, and their lines come with the ACK.
 */

const SITE = 'http://127.0.0.2';
let server: InProcessServer | null = null;
let bunnies: RemoteFrontier[] = [];

afterEach(async () => {
  for (const b of bunnies) await b.close();
  bunnies = [];
  await server?.dispose();
  server = null;
});

async function connect(): Promise<{ bunny: RemoteFrontier; crawler: CrawlerId }> {
  const bunny = new RemoteFrontier({ host: '127.0.0.1', port: server?.port ?? 0 });
  bunnies.push(bunny);
  return { bunny, crawler: await bunny.registerCrawler('b') };
}

/** The page's completion, with what its rendering captured as 'captured' refusals. */
function completeWith(lease: Lease, captured: string[]) {
  return {
    leaseId: lease.id,
    outcome: { kind: 'done' as const },
    report: { fetchMs: 5 },
    record: { url: lease.url, status: 200, depth: lease.depth, rendered: true },
    outlinks: [],
    rejected: captured.map((path) => ({
      url: `${SITE}${path}`,
      depth: 1,
      via: lease.url,
      reason: 'captured',
    })),
  };
}

/** The line the bunny sends for a capture it archived. */
function capturedLine(path: string) {
  return { url: `${SITE}${path}`, status: 200, depth: 1, requisite: true, captured: true };
}

describe('captured requisites on a server', () => {
  it('hands back the new ones, writes the lines the ACK brings, and refuses the rest once', async () => {
    server = await startTestServer();
    const { bunny, crawler } = await connect();
    await bunny.add(
      [
        { url: `${SITE}/`, depth: 0, via: null },
        { url: `${SITE}/two`, depth: 0, via: null },
      ],
      [],
      crawler,
    );
    const [home] = (await bunny.lease(1, crawler)).leases as [Lease];

    const first = await bunny.complete([completeWith(home, ['/s.css', '/a.png'])], crawler);
    expect(first.records.map((r) => [r.url, r.reason]).sort()).toEqual([
      [`${SITE}/a.png`, 'captured'],
      [`${SITE}/s.css`, 'captured'],
    ]);
    // Archived both; sent a line for the stylesheet only.
    await bunny.acknowledge(
      first.records.map((r) => r.id),
      [capturedLine('/s.css')],
    );
    // The second page loaded the same stylesheet: seen, nothing comes back.
    const [two] = (await bunny.lease(1, crawler)).leases as [Lease];
    expect(two.url).toBe(`${SITE}/two`);
    const second = await bunny.complete([completeWith(two, ['/s.css'])], crawler);
    expect(second.records).toEqual([]);

    const lines = readAllLines(server.dir);
    const css = lines.filter((r) => r.url === `${SITE}/s.css`);
    expect(css).toEqual([{ ...capturedLine('/s.css'), crawler }]);
    // Acknowledged without a line: written as a refused URL's line.
    expect(lines.filter((r) => r.url === `${SITE}/a.png`)).toMatchObject([
      { error: 'filtered', detail: 'captured', crawler },
    ]);
    // Nothing captured is ever leased: the crawl is over.
    const after = await bunny.lease(4, crawler);
    expect(after.leases).toEqual([]);
    expect(after.ended).toBe('finished');
    // An ACK of the same ids again writes nothing more.
    await bunny.acknowledge(
      first.records.map((r) => r.id),
      [capturedLine('/s.css')],
    );
    expect(readAllLines(server.dir)).toHaveLength(lines.length);
  });

  it('writes a capture its bunny left without acknowledging as refused: its bytes went with the bunny', async () => {
    server = await startTestServer();
    const { bunny, crawler } = await connect();
    await bunny.add([{ url: `${SITE}/`, depth: 0, via: null }], [], crawler);
    const [home] = (await bunny.lease(1, crawler)).leases as [Lease];
    const done = await bunny.complete([completeWith(home, ['/s.css'])], crawler);
    expect(done.records.map((r) => r.url)).toEqual([`${SITE}/s.css`]);
    expect(readAllLines(server.dir).filter((r) => r.url === `${SITE}/s.css`)).toEqual([]);

    await bunny.leave(crawler);
    expect(readAllLines(server.dir).filter((r) => r.url === `${SITE}/s.css`)).toMatchObject([
      { error: 'filtered', detail: 'captured', crawler },
    ]);
    // Another bunny is never handed it, nor the URL to fetch.
    const other = await connect();
    expect((await other.bunny.lease(1, other.crawler)).leases).toEqual([]);
  });
});

describe("a server's settings for its bunnies", () => {
  it("say it hands captures back; an older server's, without the key, do not, and its bunnies fetch requisites", () => {
    const json = JSON.parse(JSON.stringify(settingsForBunnies({ ...DEFAULTS, requisites: true }, [])));
    expect(json.capturesBack).toBe(true);
    expect(bunnySettingsFrom(json)?.capturesBack).toBe(true);
    const { capturesBack: _, ...older } = json;
    expect(bunnySettingsFrom(older)).toMatchObject({ requisites: true, capturesBack: false });
  });
});
