/// <reference lib="dom" />
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { afterEach, describe, expect, it } from 'vitest';
import { TEST_NOT_LOOPBACK_ENV } from '../../src/assembly/console-access.js';
import { haveChromium, launchChromium, type TestBrowser } from '../helpers/browser.js';
import { type CliProcess, cobweb } from '../helpers/cli-process.js';
import { page as html, routes, serve, type TestServer } from '../helpers/http.js';
import { startTestWeb } from '../helpers/test-web.js';

/** Sites whose first page links to all their 200 others: the hosts keep URLs queued for a minute at 300 ms a page. */
async function wideWeb(addresses: readonly string[]): Promise<TestServer[]> {
  const others = Array.from({ length: 200 }, (_, i) => `/p${i}`);
  return Promise.all(
    addresses.map((a) =>
      serve(a, routes({ '/': html(a, others), ...Object.fromEntries(others.map((p) => [p, html(p)])) })),
    ),
  );
}

/**
 * The console page in Debian's Chromium: what it shows when it opens (the charts' history
 * with the token in the URL or kept from an unlock, the busiest hosts), how its charts
 * read, the server's bunnies, and a console off loopback that shows nothing until
 * unlocked.
 */

const browserHere = haveChromium();

interface Watched {
  /** Exceptions thrown by the page's scripts. */
  thrown: string[];
  /** What the browser logged as errors (refused loads among them). */
  logged: string[];
}

function watch(page: Page): Watched {
  const w: Watched = { thrown: [], logged: [] };
  page.on('pageerror', (e) => w.thrown.push(String(e)));
  page.on('console', (m) => {
    if (m.type() === 'error') w.logged.push(m.text());
  });
  return w;
}

interface Hello {
  error: string | null;
  hosts: string;
  points: number;
}

/** Records, after each `hello` event the page handles, what it threw and what it then shows. */
const RECORD_HELLOS = () => {
  const w = window as unknown as { __hellos: Hello[] };
  w.__hellos = [];
  const add = EventSource.prototype.addEventListener;
  function recording(this: EventSource, type: string, listener: unknown, options?: unknown): void {
    if (type !== 'hello' || typeof listener !== 'function') {
      add.call(this, type, listener as EventListener, options as boolean);
      return;
    }
    add.call(this, type, (e: Event) => {
      let error: string | null = null;
      try {
        listener.call(this, e);
      } catch (err) {
        error = String(err);
        throw err;
      } finally {
        w.__hellos.push({
          error,
          hosts: document.getElementById('hosts')?.textContent ?? '',
          points: Number(document.getElementById('chart-rate')?.dataset.points),
        });
      }
    });
  }
  EventSource.prototype.addEventListener = recording as typeof add;
};

const hellos = (page: Page) => page.evaluate(() => (window as unknown as { __hellos: Hello[] }).__hellos);

/**
 * Holds the page's event stream until its unlock was answered: the order in which the
 * page met the bug (a token in the URL, a reload after Unlock, a reconnect), made certain.
 */
async function streamAfterUnlock(page: Page): Promise<() => void> {
  let answered: () => void = () => {};
  let gate = new Promise<void>((r) => {
    answered = r;
  });
  page.on('response', (r) => {
    if (r.url().endsWith('/api/check')) answered();
  });
  await page.route('**/events', async (route) => {
    await gate;
    await route.continue();
  });
  return () => {
    gate = new Promise<void>((r) => {
      answered = r;
    });
  };
}

describe.skipIf(!browserHere)('the console page', { timeout: 90_000 }, () => {
  let browser: TestBrowser | null = null;
  let sites: TestServer[] = [];
  const processes: CliProcess[] = [];
  const dirs: string[] = [];
  afterEach(async () => {
    await browser?.close();
    browser = null;
    for (const p of processes.splice(0)) if (p.child.exitCode === null) p.child.kill('SIGKILL');
    for (const s of sites.splice(0)) await s.close();
    for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
  });

  const folder = () => {
    const d = mkdtempSync(join(tmpdir(), 'cobweb-page-'));
    dirs.push(d);
    return d;
  };
  const start = (args: string[], env: NodeJS.ProcessEnv = {}) => {
    const p = cobweb(args, { COBWEB_TOKEN: '', ...env });
    processes.push(p);
    return p;
  };

  /** A crawl busy for a while (a page every 300 ms on each of two hosts), its console at `http`. */
  async function busyCrawl(http: string, env: NodeJS.ProcessEnv = {}) {
    sites = await wideWeb(['127.0.0.3', '127.0.0.4']);
    const dir = folder();
    const p = start(
      [
        'crawl',
        ...sites.map((s) => `${s.origin}/`),
        '--data',
        dir,
        '--http',
        http,
        '--delay',
        '300',
        '--delay-factor',
        '0',
        '--scope',
        'any',
      ],
      env,
    );
    const [, url] = (await p.line(/console on (http:\/\/\S+\/)/)) as RegExpMatchArray;
    return { p, url: url as string, token: readFileSync(join(dir, 'token'), 'utf8').trim() };
  }

  async function stop(url: string, token: string, p: CliProcess) {
    const res = await fetch(`${url}api/stop`, { method: 'POST', headers: { 'x-cobweb-token': token } });
    expect(res.status).toBe(200);
    expect(await p.exit()).toBe(0);
  }

  it('keeps the charts’ history with the token in the URL and on a reload after Unlock; shows the busiest hosts at once; 24-hour times that do not overlap; rates from 0', async () => {
    // Half an hour off UTC: a time of day shown in UTC is plain to see.
    browser = await launchChromium({ timezoneId: 'Asia/Kolkata' });
    const { p, url, token } = await busyCrawl('127.0.0.1:0');

    // Once the hosts have URLs queued (the seeds' links), a page that opens shows them.
    // Not before both seeds are done: a host is listed while its seed is queued or in
    // flight too, and drops off the list between the fetch and the queueing of its links.
    const queuedOn = async () => {
      const s = (await (await fetch(`${url}status`)).json()) as {
        store: { done: number };
        busiestHosts: { host: string }[];
      };
      return s.store.done >= 2 ? s.busiestHosts : [];
    };
    for (let i = 0; i < 600 && (await queuedOn()).length === 0; i++)
      await new Promise((r) => setTimeout(r, 100));
    // Said apart from the page's own check below: a crawl too slow to start is not the page's fault.
    expect((await queuedOn()).map((h) => h.host).join(' ')).toMatch(/127\.0\.0\.[34]/);

    // A first page watches a few seconds: the charts have a history to give the next.
    const first = await browser.context.newPage();
    await first.addInitScript(RECORD_HELLOS);
    const firstWatch = watch(first);
    await first.goto(url);
    await first.waitForFunction(() => Number(document.getElementById('chart-rate')?.dataset.points) >= 12);
    const [hello] = await hellos(first);
    // The busiest hosts came with the first event, not a tick later.
    expect(hello?.hosts).toMatch(/127\.0\.0\.[34]/);

    // The x axis: 24-hour times, as the tail's, each label clear of the next.
    const axis = await first.evaluate(() => {
      const el = document.getElementById('chart-rate') as HTMLElement;
      const ticks = JSON.parse(el.dataset.xTicks ?? '[]') as [string, number][];
      const ctx = document.createElement('canvas').getContext('2d') as CanvasRenderingContext2D;
      ctx.font = '12px system-ui, -apple-system, "Segoe UI", Roboto, sans-serif';
      return {
        ticks: ticks.map(([label, x]) => ({ label, x, width: ctx.measureText(label).width })),
        yMin: el.dataset.yMin,
        tail: Array.from(document.querySelectorAll('#tail tbody tr td:first-child')).map(
          (td) => td.textContent,
        ),
        now: [new Date().getHours(), new Date().getMinutes()],
      };
    });
    expect(axis.ticks.length).toBeGreaterThanOrEqual(2);
    for (const t of axis.ticks) expect(t.label).toMatch(/^([01]\d|2[0-3]):[0-5]\d(:[0-5]\d)?$/);
    for (let i = 1; i < axis.ticks.length; i++) {
      const [a, b] = [axis.ticks[i - 1], axis.ticks[i]] as [(typeof axis.ticks)[0], (typeof axis.ticks)[0]];
      expect(b.x - a.x, JSON.stringify(axis.ticks)).toBeGreaterThan((a.width + b.width) / 2 + 4);
    }
    expect(axis.yMin).toBe('0');
    expect(axis.tail.length).toBeGreaterThan(0);
    for (const t of axis.tail) expect(t).toMatch(/^([01]\d|2[0-3]):[0-5]\d:[0-5]\d$/);
    // The tail's times are the page's local times, as the axis's: minutes ago, not hours.
    const minutes = ([h, m]: number[]) => (h as number) * 60 + (m as number);
    const ago = (minutes(axis.now) - minutes((axis.tail[0] ?? '').split(':').map(Number)) + 1440) % 1440;
    expect(ago).toBeLessThan(5);
    expect(firstWatch.thrown).toEqual([]);

    // The token in the URL: the page unlocks, then hears the stream's first event.
    const second = await browser.context.newPage();
    await second.addInitScript(RECORD_HELLOS);
    const secondWatch = watch(second);
    const rearm = await streamAfterUnlock(second);
    await second.goto(`${url}#token=${token}`);
    await second.waitForFunction(() => document.getElementById('state')?.textContent === 'running');
    expect(await second.locator('#message').textContent()).toContain('Unlocked');
    expect(secondWatch.thrown).toEqual([]);
    const [withToken] = await hellos(second);
    expect(withToken?.error).toBeNull();
    expect(withToken?.points).toBeGreaterThanOrEqual(12);
    expect(second.url()).not.toContain(token);

    // A reload after Unlock: the tab kept the token, and the history comes back.
    rearm();
    await second.reload();
    await second.waitForFunction(() => document.getElementById('state')?.textContent === 'running');
    const [reloaded] = await hellos(second);
    expect(reloaded?.error).toBeNull();
    expect(reloaded?.points).toBeGreaterThanOrEqual(12);
    expect(await second.locator('#pause').isDisabled()).toBe(false);
    expect(secondWatch.thrown).toEqual([]);
    await stop(url, token, p);
  });

  it("shows the server's bunnies in a table that fits the page", async () => {
    browser = await launchChromium();
    sites = await startTestWeb(['127.0.0.3'], 200);
    const server = start([
      'server',
      `${sites[0]?.origin}/`,
      '--data',
      folder(),
      '--listen',
      '127.0.0.1:0',
      '--http',
      '127.0.0.1:0',
      '--token',
      'srv-token',
      '--delay',
      '300',
      '--delay-factor',
      '0',
    ]);
    const [, port] = (await server.line(/listening on 127\.0\.0\.1:(\d+)/)) as RegExpMatchArray;
    const [, url] = (await server.line(/console on (http:\/\/\S+\/)/)) as RegExpMatchArray;
    start(['bunny', '--server', `127.0.0.1:${port}`, '--data', folder()], {
      COBWEB_TOKEN: 'srv-token',
    });
    const page = await browser.context.newPage();
    const w = watch(page);
    await page.goto(url as string);
    await page.waitForFunction(() => document.querySelector('#bunnies tbody td.num') !== null);
    const box = await page.evaluate(() => {
      const el = document.getElementById('bunnies-box') as HTMLElement;
      return { scroll: el.scrollWidth, client: el.clientWidth };
    });
    expect(box.scroll, JSON.stringify(box)).toBeLessThanOrEqual(box.client);
    expect(w.thrown).toEqual([]);
    await stop(url as string, 'srv-token', server);
  });

  it('off loopback shows nothing until unlocked, then everything, and again after a reload', async () => {
    browser = await launchChromium();
    const { p, url, token } = await busyCrawl('127.0.0.2:0', { [TEST_NOT_LOOPBACK_ENV]: '1' });
    expect(url).toMatch(/^http:\/\/127\.0\.0\.2:/);
    const page = await browser.context.newPage();
    const w = watch(page);
    await page.goto(url);
    await page.waitForFunction(() => document.getElementById('message')?.textContent?.startsWith('Locked'));
    expect(await page.locator('#counters').textContent()).toBe('');
    expect(await page.locator('#chart-rate').getAttribute('data-points')).toBe('0');
    expect(w.thrown).toEqual([]);
    // What the browser logged: the stream and /status refused (401), nothing else.
    expect(w.logged.length).toBeGreaterThan(0);
    for (const line of w.logged.splice(0)) expect(line).toMatch(/401|text\/event-stream/);

    await page.fill('#token', token);
    await page.click('#use-token');
    await page.waitForFunction(() => document.getElementById('state')?.textContent === 'running');
    await page.waitForFunction(() => Number(document.getElementById('c-fetched')?.textContent) > 0);
    await page.waitForFunction(() => Number(document.getElementById('chart-rate')?.dataset.points) >= 2);
    expect(await page.locator('#pause').isDisabled()).toBe(false);

    // The session cookie is the page's: no script reads it.
    expect(await page.evaluate(() => document.cookie)).toBe('');
    const cookies = await browser.context.cookies(url);
    expect(cookies).toHaveLength(1);
    expect(cookies[0]).toMatchObject({ httpOnly: true, sameSite: 'Strict' });

    await page.reload();
    await page.waitForFunction(() => document.getElementById('state')?.textContent === 'running');
    await page.waitForFunction(() => Number(document.getElementById('chart-rate')?.dataset.points) >= 2);
    expect(w.thrown).toEqual([]);
    expect(w.logged).toEqual([]);
    await stop(url, token, p);
  });
});
