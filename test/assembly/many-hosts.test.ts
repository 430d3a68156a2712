/**
 * Thousands of hosts' connections: `cobweb crawl` (the built CLI) of 1,200 host names,
 * all one loopback server reached through --resolve entries in a config file, whose
 * every connection is kept alive for two minutes as many servers allow. Each host that
 * kept a socket open would hold a file descriptor; the crawl runs under a file limit
 * far below the number of hosts, so it finishes only if its sockets are bounded by its
 * concurrency and not by the hosts it has seen.
 */
import { spawn, spawnSync } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { BIN } from '../helpers/cli-process.js';
import { listenOnLoopback } from '../helpers/http.js';
import { readPages } from '../helpers/pages.js';

const HOSTS = 1200;
/** Well under HOSTS: the limit the crawl's process runs under. */
const FILE_LIMIT = 512;
const hasPrlimit = spawnSync('prlimit', ['--version']).status === 0;

let dir = '';
let closeServer: (() => Promise<void>) | null = null;

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'cobweb-many-hosts-'));
});

afterEach(async () => {
  await closeServer?.();
  closeServer = null;
  rmSync(dir, { recursive: true, force: true });
});

const hostName = (i: number) => `h${i}.many.test`;

/** One server for every name: the hub links to every host's root, each root is a leaf. Counts requests by Host. */
async function startWeb() {
  const requests = new Map<string, number>();
  const server: Server = createServer((req, res) => {
    const host = req.headers.host ?? '';
    const key = `${host}${req.url ?? ''}`;
    requests.set(key, (requests.get(key) ?? 0) + 1);
    if (req.url === '/robots.txt') return res.writeHead(404).end();
    const links = host.startsWith('hub.')
      ? Array.from({ length: HOSTS }, (_, i) => `<a href="http://${hostName(i)}:${port}/">${i}</a>`).join('')
      : '';
    res.writeHead(200, { 'content-type': 'text/html' }).end(`<title>${host}</title>${links}`);
  });
  // Idle connections kept two minutes (nginx keeps them 75 s): longer than this whole crawl.
  server.keepAliveTimeout = 120_000;
  const listening = await listenOnLoopback(server, '127.0.0.1');
  const port = listening.port;
  closeServer = listening.close;
  return { port, requests };
}

describe('a crawl of thousands of hosts', () => {
  it.skipIf(!hasPrlimit)(
    `finishes under a limit of ${FILE_LIMIT} open files with ${HOSTS} hosts kept alive, every host fetched once`,
    async () => {
      const { port, requests } = await startWeb();
      const names = ['hub.many.test', ...Array.from({ length: HOSTS }, (_, i) => hostName(i))];
      const config = join(dir, 'crawl.json');
      writeFileSync(
        config,
        JSON.stringify({
          seeds: [`http://hub.many.test:${port}/`],
          resolve: names.map((n) => `${n}:${port}:127.0.0.1`),
        }),
      );
      const data = join(dir, 'data');
      const child = spawn(
        'prlimit',
        [
          `--nofile=${FILE_LIMIT}:${FILE_LIMIT}`,
          process.execPath,
          BIN,
          'crawl',
          '--config',
          config,
          '--data',
          data,
          '--scope',
          'any',
          '--delay',
          '0',
          '--delay-factor',
          '0',
          '--concurrency',
          '64',
          '--no-builtin-modules',
        ],
        { stdio: ['ignore', 'ignore', 'pipe'] },
      );
      let stderr = '';
      child.stderr.on('data', (d) => {
        stderr += String(d);
      });
      // prlimit execs the command: the child's pid is the crawl's.
      let mostFiles = 0;
      const sampler = setInterval(() => {
        try {
          mostFiles = Math.max(mostFiles, readdirSync(`/proc/${child.pid}/fd`).length);
        } catch {}
      }, 50);
      const [code] = await once(child, 'exit');
      clearInterval(sampler);

      expect({ code, stderr: stderr.split('\n').slice(-5) }).toMatchObject({ code: 0 });
      const records = readPages(join(data, 'pages.jsonl'));
      for (let i = 0; i < HOSTS; i++) {
        const url = `http://${hostName(i)}:${port}/`;
        expect(requests.get(`${hostName(i)}:${port}/`), url).toBe(1);
        expect(records.find((r) => r.url === url)?.status, url).toBe(200);
      }
      // Far from one socket per host: the limit held with room to spare.
      expect(mostFiles).toBeGreaterThan(0);
      expect(mostFiles).toBeLessThan(FILE_LIMIT);
    },
    180_000,
  );
});
