import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { ModulePage } from '../../src/modules/api.js';
import { ModuleHost } from '../../src/modules/module-host.js';

let dir: string;
const logs: string[] = [];

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'cobweb-module-host-'));
  logs.length = 0;
});

afterEach(() => {
  rmSync(dir, { recursive: true, force: true });
});

function moduleFile(name: string, source: string): string {
  const file = join(dir, `${name}.mjs`);
  writeFileSync(file, source);
  return file;
}

const pageAt = (i: number): ModulePage => ({
  url: `http://a.test/${i}`,
  status: 200,
  headers: {},
  contentType: 'text/html',
  html: '<p>x</p>',
  links: [],
  depth: 1,
  referrer: null,
});

async function start(paths: string[], timeoutMs: number): Promise<ModuleHost> {
  const { host, reports } = await ModuleHost.start({
    paths,
    dataDir: join(dir, 'data'),
    timeoutMs,
    log: (line) => logs.push(line),
  });
  expect(reports.filter((r) => r.refused !== undefined)).toEqual([]);
  return host;
}

describe('ModuleHost', () => {
  it('does not take a batch of calls, each well within the timeout, for one that hangs', async () => {
    // 20 pages x 100 ms of CPU = 2 s in one batch, past the 300 ms timeout + 1 s grace;
    // no single call comes near the timeout.
    const steady = moduleFile(
      'steady',
      `export default { name: 'steady', onPage(p) { const end = Date.now() + 100; while (Date.now() < end) {} return { seen: p.url }; } };`,
    );
    const host = await start([steady], 300);
    try {
      const pages = Array.from({ length: 20 }, (_, i) => pageAt(i));
      const verdicts = await host.onPages(pages);
      expect(verdicts.map((v) => v.fields.seen)).toEqual(pages.map((p) => p.url));
      expect(host.stats()).toEqual([
        expect.objectContaining({ name: 'steady', calls: 20, errors: 0, timeouts: 0, skipped: 0 }),
      ]);
      expect(logs.filter((l) => l.includes('starting its thread again'))).toEqual([]);
    } finally {
      await host.close();
    }
  });

  it('sends the batches a stuck thread had not started on to its new thread', async () => {
    const stuck = moduleFile(
      'stuck',
      `export default { name: 'stuck', onPage(p) { if (p.url.endsWith('/0')) for (;;) {} return { seen: p.url }; } };`,
    );
    const other = moduleFile(
      'other',
      `export default { name: 'other', onPage(p) { return { other: p.url }; } };`,
    );
    const host = await start([stuck, other], 200);
    try {
      // The first batch hangs the thread; the next two wait behind it, never started.
      const answers = await Promise.all([
        host.onPages([pageAt(0), pageAt(1)]),
        host.onPages([pageAt(2)]),
        host.onPages([pageAt(3), pageAt(4)]),
      ]);
      const fields = answers.flat().map((v) => v.fields);
      expect(fields.map((f) => f.other)).toEqual([0, 1, 2, 3, 4].map((i) => pageAt(i).url));
      expect(fields.map((f) => f.seen)).toEqual([
        undefined,
        undefined,
        ...[2, 3, 4].map((i) => pageAt(i).url),
      ]);
      const [stuckStats, otherStats] = host.stats();
      // Page 0 hung (a timeout); page 1's result died with the thread (skipped).
      expect(stuckStats).toMatchObject({ name: 'stuck', calls: 4, timeouts: 1, skipped: 1, errors: 0 });
      expect(otherStats).toMatchObject({ name: 'other', calls: 5, timeouts: 0, skipped: 0 });
    } finally {
      await host.close();
    }
  });
});
