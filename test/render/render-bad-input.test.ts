import type { ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { PageRecord } from '../../src/output/pages-log.js';
import { CHROMIUM, haveChromium } from '../helpers/browser.js';
import { cobweb } from '../helpers/cli-process.js';
import { type Listening, type LoggedRequest, listenOnLoopback } from '../helpers/http.js';
import { readPages } from '../helpers/pages.js';

// Pages that fight the browser, crawled by a real `cobweb crawl --render always` with
// Debian's Chromium: each ends in pages.jsonl, rendered or with its reason, and the
// crawl goes on to every other page and exits 0.

const chromium = haveChromium();
let dir = '';
let site: (Listening & { log: LoggedRequest[]; upgrades: () => number }) | null = null;

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'cobweb-render-bad-'));
});

afterEach(async () => {
  await site?.close();
  site = null;
  rmSync(dir, { recursive: true, force: true });
});

const ADD = `function add(path) { const a = document.createElement('a'); a.href = path; a.textContent = path; document.body.appendChild(a); }`;
const page = (title: string, script: string, body = '') =>
  `<!doctype html><html><head><title>${title}</title></head><body>${body}<script>${ADD}\n${script}</script></body></html>`;

/** What a download's bytes are: found in no file after the crawl. */
const MARKER = 'cobweb-download-marker-5f1c2a';

type Route = string | ((req: IncomingMessage, res: ServerResponse) => void);

/** A web server on loopback: these routes, 200 and an empty page for any other path; WebSocket upgrades counted and refused. */
async function serveSite(table: Record<string, Route>): Promise<NonNullable<typeof site>> {
  const log: LoggedRequest[] = [];
  let upgrades = 0;
  const server = createServer((req, res) => {
    log.push({ host: req.headers.host ?? '', path: req.url ?? '', headers: req.headers, at: Date.now() });
    const route = table[(req.url ?? '/').split('?')[0] ?? '/'];
    if (typeof route === 'function') return route(req, res);
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(route ?? '<title>plain</title>');
  });
  server.on('upgrade', (_req, socket) => {
    upgrades++;
    socket.destroy();
  });
  return { ...(await listenOnLoopback(server, '127.0.0.3')), log, upgrades: () => upgrades };
}

function crawl(args: readonly string[], env: NodeJS.ProcessEnv = {}) {
  const data = join(dir, 'data');
  const run = cobweb(
    ['crawl', ...args, '--data', data, '--render', 'always', '--browser', CHROMIUM, '--delay', '0'],
    env,
    dir,
  );
  return { run, records: () => readPages(join(data, 'pages.jsonl')) };
}

const byPath = (records: readonly PageRecord[], origin: string) =>
  new Map(records.map((r) => [r.url.slice(origin.length), r]));

/** Every file under `root` holding `needle` (files of a few MB at most are read). */
function filesHolding(root: string, needle: string): string[] {
  if (!existsSync(root)) return [];
  const found: string[] = [];
  for (const name of readdirSync(root, { recursive: true, encoding: 'utf8' })) {
    const path = join(root, name);
    try {
      const s = statSync(path);
      if (s.isFile() && s.size < 64 * 2 ** 20 && readFileSync(path).includes(needle)) found.push(path);
    } catch {
      // Gone between listing and reading (a browser's temporary file).
    }
  }
  return found;
}

describe.runIf(chromium)('--render always, pages that fight the browser', { timeout: 300_000 }, () => {
  it('each is recorded, rendered or with its reason, and the crawl goes on to every other page', async () => {
    site = await serveSite({
      '/': page(
        'home',
        '',
        [
          '/scroll',
          '/attachment',
          '/download',
          '/popup',
          '/socket',
          '/permissions',
          '/oom',
          '/leak',
          '/big',
          '/plain',
        ]
          .map((p) => `<a href="${p}">${p}</a>`)
          .join(' '),
      ),
      // Infinite scroll: each scroll to the bottom asks for more, which adds a screenful
      // with a link and scrolls on, forever.
      '/scroll': page(
        'scroll',
        `let n = 0;
         function more() {
           fetch('/more?n=' + n).then(() => {
             const item = document.createElement('div'); item.style.height = '1500px'; document.body.appendChild(item);
             add('/item/' + n++); window.scrollTo(0, document.body.scrollHeight);
           });
         }
         window.addEventListener('scroll', more); more();`,
      ),
      // An HTML page sent as an attachment: rendered as a page all the same.
      '/attachment': (_req, res) =>
        res
          .writeHead(200, {
            'content-type': 'text/html; charset=utf-8',
            'content-disposition': 'attachment; filename="page.html"',
          })
          .end(page('attachment', `add('/from-attachment');`)),
      // A download clicked by script; the link goes away, so only the browser could fetch it.
      '/download': page(
        'download',
        `const a = document.createElement('a'); a.href = '/file.bin'; a.download = 'file.bin';
         document.body.appendChild(a); a.click(); a.remove(); add('/after-download');`,
      ),
      '/file.bin': (_req, res) =>
        res
          .writeHead(200, {
            'content-type': 'application/octet-stream',
            'content-disposition': 'attachment; filename="file.bin"',
          })
          .end(MARKER.repeat(1000)),
      '/popup': page(
        'popup',
        `window.open('/popped'); window.open('/linked-pop');`,
        '<a href="/linked-pop">linked</a>',
      ),
      '/socket': page(
        'socket',
        `const ws = new WebSocket('ws://' + location.host + '/ws');
         ws.onopen = () => add('/ws/open'); ws.onclose = () => add('/ws/closed');`,
      ),
      '/permissions': page(
        'permissions',
        `navigator.geolocation.getCurrentPosition(() => add('/perm/geo-granted'), (e) => add('/perm/geo-' + e.code));
         Notification.requestPermission().then((r) => add('/perm/notify-' + r));`,
      ),
      // Exhausts memory at once: its renderer crashes at the script heap's cap.
      '/oom': page('oom', 'const kept = []; for (let i = 0; ; i++) kept.push(new Array(1e6).fill(i));'),
      // Leaks a little all the time it is open.
      '/leak': page(
        'leak',
        `const kept = []; setInterval(() => kept.push(new Array(250000).fill(Math.random())), 20); add('/after-leak');`,
      ),
      // About 52 MB of DOM in 250,000 elements (past the 200,000 read), built by script:
      // long text rather than more elements, which only make the browser slower to build it.
      '/big': page(
        'big',
        `const row = '<div class="r"><a href="/x">' + 'w'.repeat(400) + '</a></div>';
         document.body.innerHTML = row.repeat(125000);`,
      ),
      '/plain': page('plain', `add('/after-plain');`),
    });
    const origin = site.origin;
    const home = join(dir, 'home');
    const temp = join(dir, 'tmp');
    mkdirSync(home);
    mkdirSync(temp);
    const { run, records } = crawl(
      [
        `${origin}/`,
        '--max-depth',
        '2',
        '--exclude',
        '/item/',
        '--render-concurrency',
        '1',
        '--render-wait',
        '1000',
      ],
      { HOME: home, TMPDIR: temp },
    );
    expect(await run.exit(), run.stderr()).toBe(0);
    const lines = byPath(records(), origin);

    // Every page is in pages.jsonl, rendered or saying why not.
    for (const [path, r] of lines) {
      expect(r.status, path).toBe(200);
      expect(r.rendered === true || typeof r.renderError === 'string', path).toBe(true);
    }
    // Infinite scroll: rendered by its deadline, with the links made so far.
    expect(lines.get('/scroll')?.rendered).toBe(true);
    expect(lines.get('/scroll')?.outlinks).toBeGreaterThan(1);
    // An attachment is rendered as a page; a download goes nowhere.
    expect(lines.get('/attachment')?.rendered).toBe(true);
    expect(lines.get('/from-attachment')?.rendered).toBe(true);
    expect(lines.get('/download')?.rendered).toBe(true);
    expect(lines.get('/after-download')?.rendered).toBe(true);
    expect(lines.has('/file.bin')).toBe(false);
    expect([home, temp, dir].flatMap((root) => filesHolding(root, MARKER))).toEqual([]);
    // Pop-ups are closed, and not followed: only a link makes a page of one.
    expect(lines.get('/popup')?.rendered).toBe(true);
    expect(lines.has('/popped')).toBe(false);
    expect(site.log.filter((r) => r.path === '/popped')).toHaveLength(0);
    expect(site.log.filter((r) => r.path === '/linked-pop')).toHaveLength(1);
    // A WebSocket never reaches its server; the page sees it closed.
    expect(lines.get('/socket')?.rendered).toBe(true);
    expect(site.upgrades()).toBe(0);
    expect(lines.has('/ws/open')).toBe(false);
    expect(lines.has('/ws/closed')).toBe(true);
    // Permissions are denied (geolocation's PERMISSION_DENIED is 1).
    expect(lines.has('/perm/geo-1')).toBe(true);
    expect(lines.has('/perm/notify-denied')).toBe(true);
    expect([...lines.keys()].filter((p) => p.startsWith('/perm/'))).toHaveLength(2);
    // A page that exhausts memory crashes its renderer: recorded with the reason.
    expect(lines.get('/oom')?.renderError).toBe('render-crash');
    expect(lines.get('/leak')?.rendered).toBe(true);
    expect(lines.get('/after-leak')?.rendered).toBe(true);
    // 50 MB of DOM is not read: the page is parsed as fetched, the reason said.
    expect(lines.get('/big')?.renderError).toBe('render-too-large');
    expect(lines.get('/big')?.title).toBe('big');
    expect(lines.get('/after-plain')?.rendered).toBe(true);
  });
});

/** The Chromium browser processes (not its renderers and helpers) under a process. */
function browsersUnder(root: number): number[] {
  const children = new Map<number, number[]>();
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const stat = readFileSync(`/proc/${name}/stat`, 'utf8');
      const parent = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      children.set(parent, [...(children.get(parent) ?? []), Number(name)]);
    } catch {
      // Ended meanwhile.
    }
  }
  const tree = [root];
  for (let i = 0; i < tree.length; i++) tree.push(...(children.get(tree[i] as number) ?? []));
  return tree.filter((pid) => {
    try {
      const args = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0');
      return /chrom/.test(args[0] ?? '') && !args.some((a) => a.startsWith('--type='));
    } catch {
      return false;
    }
  });
}

function killBrowsers(child: ChildProcess): void {
  for (const pid of browsersUnder(child.pid as number)) process.kill(pid, 'SIGKILL');
}

describe.runIf(chromium)('--render always, a browser killed under a page', { timeout: 300_000 }, () => {
  it('a new browser takes over: the page is tried once more, then recorded with its error; the others rendered', async () => {
    let child: ChildProcess | null = null;
    let flaky = 0;
    // Each page asks for a file that never comes, so it is still open when its browser is killed.
    const waiting = (name: string) => page(name, `fetch('/hang-${name}'); add('/after-${name}');`);
    site = await serveSite({
      '/': page('home', '', '<a href="/doomed">d</a> <a href="/flaky">f</a> <a href="/plain">p</a>'),
      '/doomed': waiting('doomed'),
      '/flaky': waiting('flaky'),
      // The browser is killed each time the doomed page asks, and the first time the flaky one does.
      '/hang-doomed': () => {
        if (child !== null) killBrowsers(child);
      },
      '/hang-flaky': () => {
        if (child !== null && flaky++ === 0) killBrowsers(child);
      },
    });
    const origin = site.origin;
    const { run, records } = crawl([
      `${origin}/`,
      '--exclude',
      '/after-',
      '--render-concurrency',
      '1',
      '--render-wait',
      '1000',
      // The hanging request's time, until the browser's death is noticed (1.6 s with
      // Chromium 156.0.8078.129), would space the retry's request by the delay factor
      // past the page's second of waiting: this is about the crash, not the gap.
      '--delay-factor',
      '0',
    ]);
    child = run.child;
    expect(await run.exit(), run.stderr()).toBe(0);
    const lines = byPath(records(), origin);
    expect(lines.get('/doomed')?.renderError).toBe('render-crash');
    expect(lines.get('/doomed')?.title).toBe('doomed');
    expect(lines.get('/flaky')?.rendered).toBe(true);
    expect(lines.get('/flaky')?.outlinks).toBe(1);
    expect(lines.get('/plain')?.rendered).toBe(true);
    expect(lines.get('/')?.rendered).toBe(true);
    expect(site.log.filter((r) => r.path === '/hang-doomed')).toHaveLength(2);
    expect(site.log.filter((r) => r.path === '/hang-flaky')).toHaveLength(2);
    expect(run.stderr().match(/the browser quit by itself/g)).toHaveLength(3);
  });
});

describe.runIf(chromium)('--render-memory', { timeout: 300_000 }, () => {
  const PAGES = ['/', '/p/1', '/p/2'];
  const table = {
    '/': page('home', '', PAGES.map((p) => `<a href="${p}">${p}</a>`).join(' ')),
    ...Object.fromEntries(PAGES.slice(1).map((p) => [p, page(p, `add('${p}/made');`)])),
  };
  const replaced = /the browser is replaced: its processes hold \d+ MB, more than --render-memory 1 MB/g;

  it('a browser past the cap is replaced, and every page is rendered all the same', async () => {
    site = await serveSite(table);
    const { run, records } = crawl([`${site.origin}/`, '--render-memory', '1', '--log-level', 'info']);
    expect(await run.exit(), run.stderr()).toBe(0);
    const lines = byPath(records(), site.origin);
    for (const path of PAGES) expect(lines.get(path)?.rendered, path).toBe(true);
    for (const path of PAGES.slice(1)) expect(lines.get(`${path}/made`)?.rendered, path).toBe(true);
    expect(run.stderr().match(replaced)?.length).toBeGreaterThanOrEqual(2);
  });

  it('under the default cap, one browser serves them all', async () => {
    site = await serveSite(table);
    const { run, records } = crawl([`${site.origin}/`, '--log-level', 'info']);
    expect(await run.exit(), run.stderr()).toBe(0);
    expect(records().filter((r) => r.rendered === true)).toHaveLength(PAGES.length * 2 - 1);
    expect(run.stderr()).not.toMatch(/the browser is replaced/);
  });
});
