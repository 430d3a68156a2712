import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { page } from '../helpers/http.js';
import { LEVEL, type LogLine, serverProcesses } from '../helpers/server-process.js';

const t = serverProcesses('command-logs');

/** The lines of an event. */
const of = (lines: LogLine[], event: string) => lines.filter((l) => l.event === event);

/** Polls `look` until it holds; fails after `ms` (a generous bound: the wait is for an event). */
async function until(look: () => boolean, what: string, ms = 30_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!look()) {
    if (Date.now() > deadline) throw new Error(`${what}: not within ${ms} ms`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

// Several processes start (each loads its module threads): slow on a busy machine.
describe('--log-level, --log-file and --json on cobweb server and cobweb bunny', { timeout: 180_000 }, () => {
  it('a bunny logs each fetch, retry, back-off and refusal at debug; the server its lifecycle; both end with a JSON summary', async () => {
    let flakyAsked = 0;
    const site = await t.site('127.0.0.2', {
      '/robots.txt': 'User-agent: *\nDisallow: /private\n',
      '/': page('home', ['/a', '/flaky', '/private']),
      '/a': page('a'),
      // Busy the first time, with a Retry-After: a retry, and a back-off for the host.
      '/flaky': (_req, res) => {
        if (flakyAsked++ === 0) res.writeHead(503, { 'retry-after': '1' }).end();
        else res.writeHead(200, { 'content-type': 'text/html' }).end(page('flaky'));
      },
    });
    const serverLog = join(t.dir, 'logs', 'server.log');
    const bunnyLog = join(t.dir, 'logs', 'bunny.log');
    const s = await t.server([
      `${site.origin}/`,
      ...['--delay', '0', '--delay-factor', '0', '--retries', '1', '--retry-delay', '0'],
      ...['--log-file', serverLog, '--json', '--quiet'],
    ]);
    const b = t.bunny('b1', s.port, ['--log-level', 'debug', '--log-file', bunnyLog, '--json']);
    expect(await b.exit()).toBe(0);

    const lines = t.logLines(bunnyLog);
    const [start] = of(lines, 'start');
    expect(start).toMatchObject({ level: LEVEL.info, server: `127.0.0.1:${s.port}` });
    const fetched = of(lines, 'fetch');
    expect(fetched.map((l) => [l.url, l.status]).sort()).toEqual(
      [
        [`${site.origin}/`, 200],
        [`${site.origin}/a`, 200],
        [`${site.origin}/flaky`, 200],
      ].sort(),
    );
    expect(fetched.every((l) => l.level === LEVEL.debug && typeof l.durationMs === 'number')).toBe(true);
    expect(of(lines, 'retry')).toEqual([
      expect.objectContaining({ level: LEVEL.debug, url: `${site.origin}/flaky`, attempt: 1 }),
    ]);
    expect(of(lines, 'back-off')).toEqual([
      expect.objectContaining({ level: LEVEL.debug, host: `127.0.0.2:${site.port}`, retryAfterMs: 1000 }),
    ]);
    expect(of(lines, 'refused')).toEqual([
      expect.objectContaining({ level: LEVEL.debug, url: `${site.origin}/private`, error: 'robots' }),
    ]);
    const [stop] = of(lines, 'stop');
    expect(stop).toMatchObject({ level: LEVEL.info, stoppedBy: 'finished', fetchedThisRun: 3 });
    // stdout: one JSON object, the same summary.
    expect(b.stdout().trim().split('\n')).toHaveLength(1);
    expect(t.summaryOf(b)).toMatchObject({ stoppedBy: 'finished', fetchedThisRun: 3, queued: 0 });

    s.child.kill('SIGTERM');
    expect(await s.exit()).toBe(143);
    const server = t.logLines(serverLog);
    // Lifecycle at info (the default level): nothing at debug.
    expect(server.every((l) => l.level >= LEVEL.info)).toBe(true);
    expect(of(server, 'start')).toEqual([
      expect.objectContaining({ listen: `127.0.0.1:${s.port}`, store: 'sqlite' }),
    ]);
    const bunnyId = start?.crawler;
    expect(of(server, 'crawler')).toEqual([expect.objectContaining({ crawler: bunnyId })]);
    expect(of(server, 'crawler-left')).toEqual([expect.objectContaining({ crawler: bunnyId })]);
    // Connections (the bunny's, every show's) are debug: not in a log at info.
    expect(of(server, 'connection')).toEqual([]);
    expect(of(server, 'stop')).toEqual([
      expect.objectContaining({ stoppedBy: 'signal', fetchedThisRun: 3, done: 3 }),
    ]);
    expect(t.summaryOf(s)).toMatchObject({ stoppedBy: 'signal', fetchedThisRun: 3, done: 3, queued: 0 });
  });

  it("the server logs leases a bunny took away unfinished; --log-level warn keeps a bunny's info and debug out", async () => {
    let held = 0;
    const site = await t.site('127.0.0.3', {
      '/': page('home', ['/hold']),
      // The first request is never answered: its bunny dies holding the lease.
      '/hold': (_req, res) => {
        if (held++ > 0) res.writeHead(200, { 'content-type': 'text/html' }).end(page('held'));
      },
    });
    const serverLog = join(t.dir, 'server.log');
    const s = await t.server([
      `${site.origin}/`,
      '--delay',
      '0',
      '--delay-factor',
      '0',
      '--log-file',
      serverLog,
    ]);
    const doomed = t.bunny('b1', s.port, ['--quiet']);
    await until(() => held > 0, 'the first bunny asks for /hold');
    doomed.child.kill('SIGKILL');
    await until(
      () => of(t.logLines(serverLog), 'lease-expiry').length > 0,
      'the server logs the lease that went back',
    );
    expect(of(t.logLines(serverLog), 'lease-expiry')).toEqual([
      expect.objectContaining({ level: LEVEL.info, leases: 1, crawl: 'default' }),
    ]);
    // The same line on stderr, which reaches this process through its own pipe, maybe later.
    await until(
      () => /1 lease went back to the queue unfinished/.test(s.stderr()),
      'the server says so on stderr',
    );

    const quietLog = join(t.dir, 'b2.log');
    const b = t.bunny('b2', s.port, ['--log-level', 'warn', '--log-file', quietLog]);
    expect(await b.exit()).toBe(0);
    expect(held).toBe(2);
    // Nothing below warn in the file, nor on stderr: not even its lifecycle.
    expect(t.logLines(quietLog).filter((l) => l.level < LEVEL.warn)).toEqual([]);
    expect(b.stderr()).not.toMatch(/crawling for|the crawl is over/);
    s.child.kill('SIGTERM');
    expect(await s.exit()).toBe(143);
  });
});
