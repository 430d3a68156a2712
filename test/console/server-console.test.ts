import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { outcomeOf } from '../../src/output/run-counts.js';
import { cobweb } from '../helpers/cli-process.js';
import type { TestServer } from '../helpers/http.js';
import { readPages } from '../helpers/pages.js';
import { byLabel, parseMetrics, samples } from '../helpers/prometheus.js';
import { requestCount, startTestWeb } from '../helpers/test-web.js';

interface ServerStatus {
  kind: string;
  state: string;
  thisRun: { fetched: number; byStatus: Record<string, number>; byError: Record<string, number> };
  store: { queued: number; leased: number; leasesExpired: number; staleCompletions: number };
  bunniesConnected: number;
  bunnies: { crawler: number; leased: number; completed: number; pagesPerSecond: number }[];
  traffic: { packets: Record<string, number>; bytesIn: number; bytesOut: number };
}

const statusOf = async (url: string) => (await (await fetch(`${url}status`)).json()) as ServerStatus;

async function until(what: () => Promise<boolean>, ms = 30_000): Promise<void> {
  const end = Date.now() + ms;
  while (!(await what())) {
    if (Date.now() > end) throw new Error('the condition did not come within the bounded wait');
    await new Promise((r) => setTimeout(r, 100));
  }
}

describe('cobweb server --http: /status and /metrics', () => {
  const dirs: string[] = [];
  let sites: TestServer[] = [];
  afterEach(async () => {
    for (const s of sites.splice(0)) await s.close();
    for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
  });

  it('shows the bunnies, the packets and the bytes; pause holds back every lease; /metrics counts what pages.jsonl holds', async () => {
    sites = await startTestWeb(['127.0.0.2', '127.0.0.3'], 20);
    const serverDir = mkdtempSync(join(tmpdir(), 'cobweb-srv-console-'));
    const bunnyDir = mkdtempSync(join(tmpdir(), 'cobweb-srv-bunny-'));
    dirs.push(serverDir, bunnyDir);
    const server = cobweb([
      'server',
      ...sites.map((s) => `${s.origin}/`),
      '--data',
      serverDir,
      '--listen',
      '127.0.0.1:0',
      '--http',
      '127.0.0.1:0',
      '--delay',
      '100',
      '--delay-factor',
      '0',
      '--quiet',
    ]);
    const [, port] = (await server.line(/listening on 127\.0\.0\.1:(\d+)/)) as RegExpMatchArray;
    const [, url] = (await server.line(/console on (http:\/\/\S+\/)/)) as RegExpMatchArray;
    const page = url as string;
    const token = readFileSync(join(serverDir, 'token'), 'utf8').trim();
    const bunny = cobweb(['bunny', '--server', `127.0.0.1:${port}`, '--data', bunnyDir, '--quiet']);
    try {
      await until(async () => (await statusOf(page)).thisRun.fetched >= 5);
      let s = await statusOf(page);
      expect(s.kind).toBe('server');
      expect(s.bunniesConnected).toBe(1);
      expect(s.bunnies[0]?.completed, JSON.stringify(s.bunnies)).toBeGreaterThan(0);
      expect(s.traffic.packets.HELLO).toBe(1);
      expect(s.traffic.packets.LEASE).toBeGreaterThan(0);
      expect(s.traffic.bytesIn).toBeGreaterThan(0);
      expect(s.traffic.bytesOut).toBeGreaterThan(0);

      // Pause: no lease goes out, so no request reaches the web while it holds.
      const refused = await fetch(`${page}api/pause`, { method: 'POST' });
      expect(refused.status).toBe(401);
      const paused = await fetch(`${page}api/pause`, {
        method: 'POST',
        headers: { 'x-cobweb-token': token },
      });
      expect(paused.status).toBe(200);
      await until(async () => {
        s = await statusOf(page);
        return s.state === 'paused' && s.store.leased === 0;
      });
      const held = requestCount(sites);
      await new Promise((r) => setTimeout(r, 1500));
      expect(requestCount(sites)).toBe(held);
      await fetch(`${page}api/resume`, { method: 'POST', headers: { 'x-cobweb-token': token } });

      // The bunny ends with the crawl; then nothing more is written and the counts must agree.
      expect(await bunny.exit()).toBe(0);
      const lines = readPages(join(serverDir, 'pages.jsonl'));
      expect(lines.filter((l) => l.status === 200)).toHaveLength(40);
      const metrics = parseMetrics(await (await fetch(`${page}metrics`)).text());
      const want: Record<string, number> = {};
      for (const l of lines) {
        const o = outcomeOf(l);
        if (o.kind === 'fetched') want[o.key] = (want[o.key] ?? 0) + 1;
      }
      expect(byLabel(metrics, 'cobweb_pages_fetched_total')).toEqual(want);
      expect(byLabel(metrics, 'cobweb_urls').done).toBe(lines.filter((l) => l.status !== null).length);
      expect(samples(metrics, 'cobweb_server_bunnies')['']).toBe(0);
      expect(byLabel(metrics, 'cobweb_server_packets_total').COMPLETE).toBeGreaterThan(0);
      expect(samples(metrics, 'cobweb_server_received_bytes_total')['']).toBeGreaterThan(0);
      expect(samples(metrics, 'cobweb_leases_expired_total')['']).toBe(0);
      expect(samples(metrics, 'cobweb_stale_completions_total')['']).toBe(0);
      s = await statusOf(page);
      expect(s.thisRun.fetched).toBe(lines.filter((l) => l.status !== null).length);
      expect(s.store.leasesExpired).toBe(0);
      expect(s.store.staleCompletions).toBe(0);

      // Stop from the console: the server ends as on Ctrl-C, but with code 0.
      await fetch(`${page}api/stop`, { method: 'POST', headers: { 'x-cobweb-token': token } });
      expect(await server.exit()).toBe(0);
    } finally {
      bunny.child.kill('SIGKILL');
      server.child.kill('SIGKILL');
    }
  });
});
