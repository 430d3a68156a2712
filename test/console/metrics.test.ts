import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { PageRecord } from '../../src/output/pages-log.js';
import { outcomeOf } from '../../src/output/run-counts.js';
import { crawlHarness } from '../helpers/crawl-harness.js';
import { page } from '../helpers/http.js';
import { readAllLines } from '../helpers/pages.js';
import { byLabel, parseMetrics, samples } from '../helpers/prometheus.js';

const h = crawlHarness('metrics', { delayMs: 50, delayFactor: 0, scope: 'host', onLog: () => {} });

/** pages.jsonl's lines counted the way /metrics names them. */
function expected(lines: readonly PageRecord[]) {
  const out = {
    fetched: {} as Record<string, number>,
    failed: {} as Record<string, number>,
    refused: {} as Record<string, number>,
  };
  for (const l of lines) {
    if (typeof l.url !== 'string') continue;
    const o = outcomeOf(l);
    const into = o.kind === 'fetched' ? out.fetched : o.kind === 'failed' ? out.failed : out.refused;
    into[o.key] = (into[o.key] ?? 0) + 1;
  }
  return out;
}

async function post(url: string, action: string, token: string | null, body?: unknown) {
  const res = await fetch(`${url}api/${action}`, {
    method: 'POST',
    headers: { ...(token === null ? {} : { 'x-cobweb-token': token }), 'content-type': 'application/json' },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

async function status(url: string) {
  return (await (await fetch(`${url}status`)).json()) as {
    state: string;
    store: { leased: number };
    thisRun: { fetched: number };
  };
}

describe('/metrics and /status of a crawl (--http)', () => {
  it('counts what pages.jsonl holds, by status class, error and reason; stop ends the crawl as Ctrl-C does', async () => {
    const links = ['/a', '/b', '/missing', '/private/x', '/img.png', 'http://elsewhere.test/', '/c'];
    const more = Array.from({ length: 30 }, (_, i) => `/n${i}`);
    const table: Record<string, string> = {
      '/': page('home', [...links, ...more]),
      '/a': page('a', ['/']),
      '/b': page('b', ['/a']),
      '/c': page('c'),
      '/robots.txt': 'User-agent: *\nDisallow: /private\n',
    };
    for (const m of more) table[m] = page(m);
    const site = await h.site('127.0.0.2', table);
    let listening: (url: string) => void = () => {};
    const ready = new Promise<string>((resolve) => {
      listening = resolve;
    });
    const finished = h.run([`${site.origin}/`], { http: '127.0.0.1:0', onConsole: (u) => listening(u) });
    const url = await ready;
    const token = readFileSync(join(h.dir, 'token'), 'utf8').trim();

    // Without the token, or with another, the actions are refused and nothing changes.
    expect((await post(url, 'pause', null)).status).toBe(401);
    expect((await post(url, 'stop', 'wrong')).status).toBe(403);
    expect((await status(url)).state).toBe('running');

    // Paused with nothing in flight, nothing is written: /metrics and the file must agree.
    for (;;) {
      if ((await status(url)).thisRun.fetched >= 5) break;
      await new Promise((r) => setTimeout(r, 50));
    }
    expect((await post(url, 'pause', token)).status).toBe(200);
    let metrics = parseMetrics('');
    let text = '';
    let lines: PageRecord[] = [];
    for (let i = 0; i < 100; i++) {
      const s = await status(url);
      text = await (await fetch(`${url}metrics`)).text();
      metrics = parseMetrics(text);
      // The metrics count every line written: pages.jsonl's and refused.jsonl's.
      lines = readAllLines(h.dir);
      const counted = Object.values(byLabel(metrics, 'cobweb_pages_fetched_total')).reduce(
        (a, b) => a + b,
        0,
      );
      // In flight is read from the same /metrics text as the counts: a lease call that was
      // waiting for the host's turn when the pause came may still hand out one lease, which
      // the loop gives back, so /status read a moment earlier could say 0 while this says 1.
      if (
        s.state === 'paused' &&
        byLabel(metrics, 'cobweb_urls').in_flight === 0 &&
        // the hosts are read again after 20 times their last read (src/paced-read.ts)
        byLabel(metrics, 'cobweb_hosts').active === 0 &&
        counted === lines.filter((l) => l.status !== null).length
      )
        break;
      await new Promise((r) => setTimeout(r, 100));
    }
    const want = expected(lines);
    expect(byLabel(metrics, 'cobweb_pages_fetched_total')).toEqual(want.fetched);
    expect(byLabel(metrics, 'cobweb_pages_failed_total')).toEqual(want.failed);
    expect(byLabel(metrics, 'cobweb_pages_refused_total')).toEqual(want.refused);
    expect(want.refused.robots).toBe(1);
    expect(want.refused.scope).toBe(1);
    expect(want.refused.extension).toBe(1);
    expect(want.fetched['4xx']).toBe(1);
    const fetchedLines = lines.filter((l) => l.fetchedAt !== null && typeof l.durationMs === 'number');
    expect(samples(metrics, 'cobweb_fetch_duration_seconds')['']).toBe(fetchedLines.length);
    expect(samples(metrics, 'cobweb_fetched_bytes_total')['']).toBe(
      lines.reduce((n, l) => n + (l.bytes ?? 0), 0),
    );
    expect(byLabel(metrics, 'cobweb_urls').done).toBe(lines.filter((l) => l.status !== null).length);
    expect(byLabel(metrics, 'cobweb_urls').in_flight).toBe(0);
    expect(samples(metrics, 'cobweb_paused')['']).toBe(1);
    expect(samples(metrics, 'cobweb_warc_written_bytes_total')['']).toBeGreaterThan(0);
    expect(byLabel(metrics, 'cobweb_hosts').waiting).toBe(1);
    expect(byLabel(metrics, 'cobweb_module_calls_total').meta).toBeGreaterThan(0);
    // The parser folds a labelled histogram into one: its _count lines are read from the text.
    const operations = [
      ...text.matchAll(/^cobweb_store_operation_duration_seconds_count\{operation="(\w+)"\} (\d+)$/gm),
    ];
    expect(operations.map((m) => m[1])).toEqual(expect.arrayContaining(['lease', 'complete', 'release']));
    expect(operations.every((m) => Number(m[2]) > 0)).toBe(true);
    for (const name of [
      'process_cpu_seconds_total',
      'process_resident_memory_bytes',
      'nodejs_heap_size_used_bytes',
    ]) {
      expect(metrics.has(name)).toBe(true);
    }

    // Seeds: one to queue, one outside the crawl's scope, one that is no URL.
    const seeds = await post(url, 'seeds', token, {
      urls: [`${site.origin}/c?again`, 'http://outside.test/', 'ftp://x/'],
    });
    expect(seeds.body).toMatchObject({
      added: 1,
      refused: [{ url: 'http://outside.test/', reason: 'scope' }],
      invalid: [{ text: 'ftp://x/', reason: 'unsupported-scheme' }],
    });

    // Stop: clean, as on Ctrl-C; what is left stays queued for the next run.
    expect((await post(url, 'stop', token)).status).toBe(200);
    const summary = await finished;
    expect(summary.stoppedBy).toBe('console');
    expect(summary.queued).toBeGreaterThan(0);
    await expect(fetch(`${url}status`)).rejects.toThrow();
  });
});
