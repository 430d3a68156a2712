import { createHash } from 'node:crypto';
import { createReadStream, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { WARCParser } from 'warcio';
import { type RunningWeb, startSyntheticWeb } from '../../bench/web/synthetic.js';
import { crawl } from '../../src/assembly/crawl.js';
import { JITTER_MS } from '../helpers/jitter.js';
import { readAllLines, readPages } from '../helpers/pages.js';

let dir: string;
let web: RunningWeb | null = null;

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'cobweb-web-'));
});

afterEach(async () => {
  await web?.close();
  web = null;
  rmSync(dir, { recursive: true, force: true });
});

/** RFC 4648 base32, written out here so the test does not trust the code under test. */
function base32(bytes: Buffer): string {
  const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567';
  let bits = 0;
  let value = 0;
  let out = '';
  for (const b of bytes) {
    value = (value << 8) | b;
    bits += 8;
    while (bits >= 5) {
      out += alphabet[(value >>> (bits - 5)) & 31];
      bits -= 5;
    }
  }
  if (bits > 0) out += alphabet[(value << (5 - bits)) & 31];
  return out;
}

const sha1 = (b: Buffer) => `sha1:${base32(createHash('sha1').update(b).digest())}`;

interface ReadRecord {
  type: string;
  uri: string | undefined;
  blockDigest: string | null;
  payloadDigest: string | null;
  block: Buffer;
}

async function readWarc(file: string): Promise<ReadRecord[]> {
  const out: ReadRecord[] = [];
  // parseHttp off: the block comes back whole, as the digest covers it.
  for await (const record of new WARCParser(createReadStream(file), { parseHttp: false })) {
    const block = Buffer.from(await record.readFully(false));
    out.push({
      type: record.warcType ?? '',
      uri: record.warcTargetURI ?? undefined,
      blockDigest: record.warcHeader('WARC-Block-Digest') ?? null,
      payloadDigest: record.warcHeader('WARC-Payload-Digest') ?? null,
      block,
    });
  }
  return out;
}

describe('crawling a whole synthetic web', () => {
  it('finds every reachable page once, and the WARC holds each exchange with correct digests', async () => {
    web = await startSyntheticWeb({ hosts: ['127.0.0.2', '127.0.0.3', '127.0.0.4'], pagesPerHost: 80 });
    const summary = await crawl({
      seeds: web.sites.map((s) => `${s.origin}/`),
      data: dir,
      delayMs: 0,
      delayFactor: 0,
      perHost: 4,
      concurrency: 16,
    });
    expect(summary.stoppedBy).toBe('finished');
    const records = readPages(join(dir, 'pages.jsonl'));
    const fetched = records.filter((r) => r.fetchedAt !== null);
    const urls = fetched.map((r) => r.url).sort();
    expect(urls).toEqual([...web.reachable()].sort());
    expect(new Set(urls).size).toBe(urls.length);
    for (const r of fetched) {
      expect(r).toMatchObject({ status: 200, contentType: 'text/html; charset=utf-8', hasForm: false });
      expect(r.title).toMatch(/\S/);
      expect(r.outlinks).toBeGreaterThan(0);
      expect(r.bytes).toBeGreaterThan(1000);
    }
    // Each page reached a server once: the crawl itself did not fetch twice. Each host
    // was asked for robots.txt first, once.
    const pageRequests = web.requestLog.filter((r) => r.path !== '/robots.txt');
    expect(pageRequests).toHaveLength(urls.length);
    expect(web.requestLog.filter((r) => r.path === '/robots.txt')).toHaveLength(3);

    const files = readdirSync(join(dir, 'warc'))
      .filter((f) => f.endsWith('.warc.gz'))
      .map((f) => join(dir, 'warc', f));
    expect(files).toHaveLength(1);
    const warc = await readWarc(files[0] as string);
    expect(warc[0]?.type).toBe('warcinfo');
    const isRobots = (r: { uri?: string | undefined }) => r.uri?.endsWith('/robots.txt') === true;
    const responses = warc.filter((r) => r.type === 'response' && !isRobots(r));
    const requests = warc.filter((r) => r.type === 'request' && !isRobots(r));
    expect(responses.map((r) => r.uri).sort()).toEqual(urls);
    expect(requests.map((r) => r.uri).sort()).toEqual(urls);
    // robots.txt exchanges are archived too, as archival crawlers do
    const robots = web.sites.map((s) => `${s.origin}/robots.txt`).sort();
    expect(
      warc
        .filter((r) => r.type === 'response' && isRobots(r))
        .map((r) => r.uri)
        .sort(),
    ).toEqual(robots);
    expect(
      warc
        .filter((r) => r.type === 'request' && isRobots(r))
        .map((r) => r.uri)
        .sort(),
    ).toEqual(robots);
    for (const r of warc.slice(1)) {
      expect(r.blockDigest).toBe(sha1(r.block));
      if (r.type === 'response' && !isRobots(r)) {
        const bodyStart = r.block.indexOf('\r\n\r\n') + 4;
        expect(r.payloadDigest).toBe(sha1(r.block.subarray(bodyStart)));
        expect(r.block.subarray(0, 15).toString()).toBe('HTTP/1.1 200 OK');
      }
    }
  });

  it('keeps --delay between requests to each host (per the servers own request logs)', async () => {
    web = await startSyntheticWeb({
      hosts: ['127.0.0.2', '127.0.0.3'],
      pagesPerHost: 8,
      minLinks: 3,
      maxLinks: 5,
    });
    await crawl({
      seeds: web.sites.map((s) => `${s.origin}/`),
      data: dir,
      delayMs: 200,
      perHost: 1,
      concurrency: 8,
    });
    const byHost = new Map<string, number[]>();
    for (const r of web.requestLog) byHost.set(r.host, [...(byHost.get(r.host) ?? []), r.at]);
    expect(byHost.size).toBe(2);
    // robots.txt counts as a request to the host: the gap holds after it too
    for (const host of byHost.keys()) {
      expect(web.requestLog.find((r) => r.host === host)?.path).toBe('/robots.txt');
    }
    for (const [, times] of byHost) {
      expect(times.length).toBe(9);
      for (let i = 1; i < times.length; i++) {
        expect((times[i] as number) - (times[i - 1] as number)).toBeGreaterThanOrEqual(200 - JITTER_MS);
      }
    }
  });
});

describe('crawling the realistic synthetic web', () => {
  it('fetches every reachable page once, the same whether pages are parsed on workers or not', async () => {
    web = await startSyntheticWeb({
      hosts: ['127.0.0.2', '127.0.0.3', '127.0.0.4'],
      pagesPerHost: 120,
      profile: 'realistic',
    });
    const seeds = web.sites.map((s) => `${s.origin}/`);
    const lines = async (parseThreads: number) => {
      const data = join(dir, `threads-${parseThreads}`);
      const summary = await crawl({
        seeds,
        data,
        delayMs: 0,
        delayFactor: 0,
        perHost: 4,
        concurrency: 16,
        parseThreads,
      });
      expect(summary.stoppedBy).toBe('finished');
      return readAllLines(data);
    };
    const onWorkers = await lines(2);
    const requestsOnWorkers = web.requestLog.length;
    const here = await lines(0);
    const fetched = (records: typeof here) =>
      records
        .filter((r) => r.status === 200)
        .map((r) => `${r.url} ${r.title} ${r.outlinks} ${r.hasForm}`)
        .sort();
    expect(fetched(onWorkers)).toEqual(fetched(here));
    expect(
      onWorkers
        .filter((r) => r.status === 200)
        .map((r) => r.url)
        .sort(),
    ).toEqual([...web.reachable()].sort());
    // What the pages link to outside the web is refused, once each, the same both ways.
    const refused = (records: typeof here) =>
      records
        .filter((r) => r.error === 'filtered')
        .map((r) => `${r.url} ${r.detail}`)
        .sort();
    expect(refused(onWorkers)).toEqual(refused(here));
    expect(refused(here).length).toBeGreaterThan(0);
    // Each page reached the servers once per crawl (plus each site's robots.txt).
    expect(requestsOnWorkers).toBe(web.reachable().length + 3);
    // The built-in modules read the parse's facts: a site with a search form has it on every page.
    expect(here.some((r) => r.hasForm)).toBe(true);
  });
});
