import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { type RunningWeb, startSyntheticWeb } from '../../bench/web/synthetic.js';
import { BIN } from '../helpers/cli-process.js';
import { readPages } from '../helpers/pages.js';
import { runNode } from '../helpers/run-node.js';

/**
 * A crawl whose disk fills up, on a 1 MB tmpfs of its own: it ends with one line that
 * names the folder, says what the run kept and how to go on (no stack trace), and once
 * there is room the same command goes on to every page.
 */

let dir: string;
/** The small file system, when this machine lets the test mount one (it needs root). */
let small: string | null = null;
let web: RunningWeb | null = null;

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'cobweb-disk-full-'));
  const at = join(dir, 'small');
  mkdirSync(at);
  if (spawnSync('mount', ['-t', 'tmpfs', '-o', 'size=1m', 'tmpfs', at]).status === 0) small = at;
  else console.warn('SKIPPED: a crawl on a full disk: this machine does not let the test mount a tmpfs');
});

afterEach(async () => {
  await web?.close();
  web = null;
});

afterAll(() => {
  if (small !== null) spawnSync('umount', [small]);
  rmSync(dir, { recursive: true, force: true });
});

describe('a full disk', { timeout: 120_000 }, () => {
  it('ends the crawl with one line naming the folder; with room again, the same command goes on', async (ctx) => {
    if (small === null) ctx.skip();
    const mount = small as string;
    web = await startSyntheticWeb({ hosts: ['127.0.0.2'], pagesPerHost: 120, profile: 'realistic' });
    const data = join(mount, 'crawl');
    const args = [BIN, 'crawl', `${web.sites[0]?.origin}/`, '--data', data, '--delay', '0', '--quiet'];

    const full = await runNode(args);

    expect(full.code).toBe(1);
    expect(full.stderr).toMatch(
      new RegExp(
        `^cobweb: the disk of ${data} is full \\([^\\n]+\\): the crawl stopped; this run fetched \\d+ pages?, kept there; free some space and run the same command again to go on\\n$`,
      ),
    );

    expect(spawnSync('mount', ['-o', 'remount,size=64m', mount]).status).toBe(0);
    const again = await runNode(args);

    expect(again.code).toBe(0);
    const fetched = new Set(
      readPages(join(data, 'pages.jsonl'))
        .filter((r) => r.status === 200)
        .map((r) => r.url),
    );
    expect([...fetched].sort()).toEqual([...web.reachable()].sort());
  });
});
