import { createReadStream, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WARCParser } from 'warcio';
import { type RunningWeb, startSyntheticWeb } from '../../bench/web/synthetic.js';
import { runNode } from '../helpers/run-node.js';

const BIN = join(import.meta.dirname, '../../bin/cobweb.js');
let web: RunningWeb;
let dir: string;

beforeAll(async () => {
  // Some 3 MB of pages: past what the crawl's thread parses and writes itself, so the
  // parse worker and the WARC thread start and take over.
  web = await startSyntheticWeb({ hosts: ['127.0.0.2'], pagesPerHost: 120, profile: 'realistic' });
  dir = mkdtempSync(join(tmpdir(), 'cobweb-threads-'));
});

afterAll(async () => {
  await web.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('a crawl that outgrows its first thread', () => {
  it('hands its parsing and its WARC file to their threads, silently, and keeps every record in one file', async () => {
    const data = join(dir, 'data');
    const run = await runNode([
      BIN,
      'crawl',
      `${web.sites[0]?.origin}/`,
      '--data',
      data,
      '--delay',
      '0',
      '--delay-factor',
      '0',
      '--parse-threads',
      '1',
      '--quiet',
    ]);
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    const fetched = readFileSync(join(data, 'pages.jsonl'), 'utf8')
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { url: string; status: number | null })
      .filter((r) => r.status === 200)
      .map((r) => r.url)
      .sort();
    expect(fetched).toEqual([...web.reachable()].sort());
    const warcs = readdirSync(join(data, 'warc')).filter((f) => f.endsWith('.warc.gz'));
    expect(warcs).toHaveLength(1);
    const responses: string[] = [];
    let warcinfos = 0;
    for await (const record of WARCParser.iterRecords(
      createReadStream(join(data, 'warc', warcs[0] as string)),
    )) {
      await record.readFully(false);
      if (record.warcType === 'warcinfo') warcinfos++;
      if (record.warcType === 'response') responses.push(record.warcTargetURI ?? '');
    }
    expect(warcinfos).toBe(1);
    // Each page's response (and robots.txt's) is in the file once.
    expect(responses.filter((u) => !u.endsWith('/robots.txt')).sort()).toEqual(fetched);
  });
});
