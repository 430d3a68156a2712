import { existsSync, readFileSync, rmSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { crawlHarness } from '../helpers/crawl-harness.js';
import { page } from '../helpers/http.js';
import { readJsonLines } from '../helpers/json-lines.js';

const h = crawlHarness('log', { builtinModules: false, delayMs: 0, delayFactor: 0 });

let logFile = '';
afterEach(() => {
  if (logFile !== '') rmSync(logFile, { force: true });
});

/** The log file's lines, each parsed: pino writes one JSON object a line. */
function logLines(): Record<string, unknown>[] {
  return readJsonLines<Record<string, unknown>>(logFile);
}

describe('--log-file and --log-level', () => {
  it('at debug: the lifecycle, and each fetch, retry and refusal with its fields', async () => {
    logFile = `${h.dir}.log`;
    let tries = 0;
    const a = await h.site('127.0.0.2', {
      '/': page('home', ['/flaky', '/archive.zip']),
      '/flaky': (_req, res) => {
        if (tries++ === 0) res.socket?.destroy();
        else res.writeHead(200, { 'content-type': 'text/html' }).end(page('mended'));
      },
    });
    const lines: string[] = [];
    await h.run([`${a.origin}/`], {
      logLevel: 'debug',
      logFile,
      retries: 1,
      retryDelayMs: 0,
      onLog: (line) => lines.push(line),
    });
    const log = logLines();
    const events = log.map((l) => l.event);
    expect(events[0]).toBe('start');
    expect(events.at(-1)).toBe('stop');
    expect(log.at(-1)).toMatchObject({ level: 30, stoppedBy: 'finished', fetchedThisRun: 2 });
    expect(log.find((l) => l.event === 'fetch' && l.url === `${a.origin}/`)).toMatchObject({
      level: 20,
      status: 200,
    });
    expect(log.find((l) => l.event === 'retry')).toMatchObject({ url: `${a.origin}/flaky`, attempt: 1 });
    expect(log.find((l) => l.event === 'refused')).toMatchObject({
      url: `${a.origin}/archive.zip`,
      error: 'filtered',
    });
    expect(log.every((l) => typeof l.time === 'string' && typeof l.msg === 'string')).toBe(true);
    // The lines for people say the same as the file at debug.
    expect(lines.some((l) => l.startsWith(`fetched ${a.origin}/: 200`))).toBe(true);
  });

  it('at info: the lifecycle only; at error: nothing of a crawl that went well', async () => {
    logFile = `${h.dir}.log`;
    const a = await h.site('127.0.0.2', { '/': page('home') });
    const lines: string[] = [];
    await h.run([`${a.origin}/`], { logLevel: 'info', logFile, onLog: (line) => lines.push(line) });
    expect(logLines().map((l) => l.event)).toEqual(['start', 'stop']);
    expect(lines.some((l) => l.startsWith('fetched'))).toBe(false);
    // The lifecycle's lines reach onLog (stderr by default) too, not only the file.
    expect(lines[0]).toBe(`crawl started: 1 seed, data in ${h.dir}`);
    expect(lines.at(-1)).toBe('crawl stopped (finished): 1 URL fetched this run');
    rmSync(logFile);
    await h.run([`${a.origin}/`], { logLevel: 'error', logFile });
    expect(existsSync(logFile) ? readFileSync(logFile, 'utf8') : '').toBe('');
  });
});

describe('--max-time', () => {
  it('stops as --max-pages does: fetches in flight are written, the rest stays queued for the next run', async () => {
    // A chain of slow pages that would take minutes.
    const chain = await h.site('127.0.0.2', {
      '/': (req, res) => {
        const n = Number(new URL(req.url ?? '/', 'http://x').searchParams.get('n') ?? 0);
        setTimeout(() => {
          res.writeHead(200, { 'content-type': 'text/html' }).end(page(`page ${n}`, [`/?n=${n + 1}`]));
        }, 100);
      },
    });
    const summary = await h.run([`${chain.origin}/`], { maxTimeMs: 1000 });
    expect(summary.stoppedBy).toBe('max-time');
    expect(summary.queued).toBeGreaterThan(0);
    const fetched = h.pages().filter((r) => r.status === 200);
    expect(fetched).toHaveLength(summary.fetchedThisRun);
    expect(chain.log.filter((r) => r.path !== '/robots.txt')).toHaveLength(fetched.length);
    const next = await h.run([`${chain.origin}/`], { maxPages: fetched.length + 1 });
    expect(next).toMatchObject({ stoppedBy: 'max-pages', fetchedThisRun: 1 });
  });
});
