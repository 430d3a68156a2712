// `npm run bench:render`: rendered crawls side by side in one run. On a site of
// script-built pages, `cobweb crawl --render always` against Crawlee's PlaywrightCrawler,
// both driving the same Chromium with the same number of pages at once; then
// `cobweb crawl --render auto` on a site of script-built and plain pages.
//
//   BENCH_RENDER_PAGES=100 BENCH_RENDER_CONCURRENCY=2 npm run bench:render
//
// Crawlee is not a dependency of cobweb: it is installed into bench/render/crawlee (its
// package.json and lockfile pin it) on the first run, without downloading a browser.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { cobwebIsBuilt } from '../crawl.js';
import { describeMachine } from '../report.js';
import { type ContenderRun, type RunSpec, runCobweb, runCrawlee } from './contenders.js';
import { startSite, stopSite } from './site-process.js';

const here = dirname(fileURLToPath(import.meta.url));
const repoDir = resolve(here, '..', '..');
const crawleeDir = join(here, 'crawlee');

const PAGES = Number(process.env.BENCH_RENDER_PAGES ?? 100);
const CONCURRENCY = Number(process.env.BENCH_RENDER_CONCURRENCY ?? 2);
const BROWSER = process.env.COBWEB_BROWSER ?? '/usr/bin/chromium';
const TIMEOUT_SECONDS = 300;
/** cobweb's rendered pages/s against Crawlee's, at no more memory. */
const TARGET_SPEED_RATIO = 1.5;
/** `auto`: at least this share of the script-built pages rendered, at most TARGET_AUTO_WASTE of the others. */
const TARGET_AUTO_RECALL = 0.95;
const TARGET_AUTO_WASTE = 0.05;

function ensureCrawlee(): void {
  if (existsSync(join(crawleeDir, 'node_modules', 'crawlee'))) return;
  console.log('installing Crawlee into bench/render/crawlee (first run; no browser is downloaded)');
  execFileSync('npm', ['ci', '--prefix', crawleeDir, '--no-audit', '--no-fund', '--ignore-scripts'], {
    stdio: 'inherit',
    env: { ...process.env, PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD: '1' },
  });
}

const mib = (bytes: number): string => (bytes / 2 ** 20).toFixed(0);
const rate = (r: ContenderRun): number => r.pages / r.seconds;

function row(name: string, r: ContenderRun): string {
  if (r.failed !== undefined)
    return `| ${name} | failed: ${r.failed.replaceAll('\n', ' ').slice(0, 300)} | | | | | |`;
  return `| ${name} | ${r.pages} | ${r.seconds.toFixed(1)} | ${rate(r).toFixed(1)} | ${mib(r.memory.rssBytes)} | ${mib(r.memory.pssBytes)} | ${r.memory.processes} |`;
}

const HEADER =
  '| run | pages | seconds | pages/s | peak RSS, process tree (MiB) | peak PSS, process tree (MiB) | processes |\n|---|---|---|---|---|---|---|';

async function main(): Promise<number> {
  if (!cobwebIsBuilt(repoDir)) {
    console.error('bench:render: dist/ is missing; npm run build first');
    return 1;
  }
  if (!existsSync(BROWSER)) {
    console.error(
      `bench:render: no Chromium at ${BROWSER} (set COBWEB_BROWSER); a browser is never downloaded`,
    );
    return 1;
  }
  ensureCrawlee();
  const workDir = mkdtempSync(join(tmpdir(), 'cobweb-bench-render-'));
  let failed = false;
  try {
    console.log(describeMachine());
    console.log(
      `site: ${PAGES} pages of about 17 KB whose content and links a script builds; ${CONCURRENCY} pages rendered at once by each; Chromium ${BROWSER}\n`,
    );
    const scriptSite = await startSite('script', PAGES, '127.0.0.61');
    const spec: RunSpec = {
      origin: scriptSite.origin,
      concurrency: CONCURRENCY,
      browser: BROWSER,
      workDir,
      timeoutSeconds: TIMEOUT_SECONDS,
    };
    const cobweb = await runCobweb(repoDir, spec, 'always');
    const crawlee = await runCrawlee(crawleeDir, spec);
    // Where cobweb's time goes: after the load event it waits for a quiet network (500 ms
    // without a request, at most --render-wait); Crawlee's navigation ends at the load event.
    const loadOnly = await runCobweb(repoDir, spec, 'always', ['--render-wait', '0']);
    stopSite(scriptSite);
    console.log(HEADER);
    console.log(row('cobweb crawl --render always', cobweb));
    console.log(row('Crawlee PlaywrightCrawler', crawlee));
    console.log(row('cobweb crawl --render always --render-wait 0 (load event only)', loadOnly));
    if (cobweb.failed === undefined && crawlee.failed === undefined) {
      const speed = rate(cobweb) / rate(crawlee);
      const memory = cobweb.memory.pssBytes / crawlee.memory.pssBytes;
      const met = speed >= TARGET_SPEED_RATIO && memory <= 1;
      console.log(
        `\ncobweb / Crawlee: ${speed.toFixed(2)}x the pages/s, ${memory.toFixed(2)}x the memory (PSS; RSS ${(cobweb.memory.rssBytes / crawlee.memory.rssBytes).toFixed(2)}x). Target: >= ${TARGET_SPEED_RATIO}x at <= 1x: ${met ? 'met' : 'NOT met'}`,
      );
      if (loadOnly.failed === undefined)
        console.log(
          `cobweb --render-wait 0 / Crawlee: ${(rate(loadOnly) / rate(crawlee)).toFixed(2)}x the pages/s, ${(loadOnly.memory.pssBytes / crawlee.memory.pssBytes).toFixed(2)}x the memory (PSS)`,
        );
      if (cobweb.pages !== crawlee.pages)
        console.log(`note: the two crawled ${cobweb.pages} and ${crawlee.pages} pages`);
    } else failed = true;

    const mixedSite = await startSite('mixed', PAGES, '127.0.0.62');
    const auto = await runCobweb(repoDir, { ...spec, origin: mixedSite.origin }, 'auto');
    stopSite(mixedSite);
    console.log(`\nmixed site: the same pages, every other one written whole by the server\n\n${HEADER}`);
    console.log(row('cobweb crawl --render auto', auto));
    if (auto.failed === undefined && auto.rendered !== undefined) {
      const r = auto.rendered;
      const recall = r.scriptBuilt / r.scriptBuiltPages;
      const waste = r.plain / r.plainPages;
      console.log(
        `\nrendered: ${r.scriptBuilt} of ${r.scriptBuiltPages} script-built pages (${(recall * 100).toFixed(1)}%), ${r.plain} of ${r.plainPages} plain pages (${(waste * 100).toFixed(1)}%). Target: >= ${TARGET_AUTO_RECALL * 100}% and <= ${TARGET_AUTO_WASTE * 100}%: ${recall >= TARGET_AUTO_RECALL && waste <= TARGET_AUTO_WASTE ? 'met' : 'NOT met'}`,
      );
    } else failed = true;
  } finally {
    rmSync(workDir, { recursive: true, force: true });
  }
  return failed ? 1 : 0;
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    console.error(error);
    process.exit(1);
  },
);
