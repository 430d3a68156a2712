// The Crawlee contender of bench/render: PlaywrightCrawler as its docs set it up, driving
// the same Chromium as cobweb (playwright-core's launcher, the system's executable; no
// browser is downloaded). Run by bench/render/main.ts from this folder, where its
// node_modules hold Crawlee:
//
//   node crawl.mjs '{"start":"http://127.0.0.5:4000/","concurrency":2,"browser":"/usr/bin/chromium"}'
//
// Prints one line {"pages":n,"failed":n} when the crawl is over.
import { Configuration, log, PlaywrightCrawler } from 'crawlee';
import { chromium } from 'playwright-core';

const options = JSON.parse(process.argv[2] ?? '{}');
log.setLevel(log.LEVELS.WARNING);

// In memory only: the benchmark measures crawling, not Crawlee's storage on disk.
const config = new Configuration({ persistStorage: false, purgeOnStart: true });
let pages = 0;
const crawler = new PlaywrightCrawler(
  {
    launchContext: {
      launcher: chromium,
      launchOptions: { executablePath: options.browser, headless: true },
    },
    // The same number of pages at once as cobweb's --render-concurrency, fixed.
    minConcurrency: options.concurrency,
    maxConcurrency: options.concurrency,
    async requestHandler({ page, enqueueLinks }) {
      await page.title();
      // Links from the rendered DOM, same host, as cobweb keeps within its seeds' hosts.
      await enqueueLinks();
      pages++;
    },
  },
  config,
);
const stats = await crawler.run([options.start]);
process.stdout.write(`${JSON.stringify({ pages, failed: stats.requestsFailed })}\n`);
