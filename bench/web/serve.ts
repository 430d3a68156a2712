// Runs the synthetic web in its own process, so that serving pages does not share an event
// loop with the crawler being measured.
//
//   node --import tsx bench/web/serve.ts '{"hosts":["127.0.0.2"],"pagesPerHost":100}'
//
// Prints one line {"sites":[...]} once every site listens, then serves until stdin closes
// or SIGTERM/SIGINT. Each line "stats" written to stdin is answered with one line
// {"requests":n,"distinct":n} covering the requests since the previous "stats" line.
import { createInterface } from 'node:readline';
import { resolveOptions, type SyntheticWebOptions } from './options.js';
import { renderResolvedPage } from './render.js';
import { type RunningWeb, startSyntheticWeb } from './synthetic.js';

export interface ServeStats {
  requests: number;
  /** Distinct host + path pairs: fewer than requests means something was fetched twice. */
  distinct: number;
}

function parseOptions(argument: string | undefined): SyntheticWebOptions {
  if (!argument) throw new Error('usage: serve.ts \'{"hosts":["127.0.0.2"],"pagesPerHost":100}\'');
  return JSON.parse(argument) as SyntheticWebOptions;
}

const WARM_UP_PAGES = 2000;

/**
 * Renders pages once before saying it is ready, so the JIT has compiled the render path and
 * the first contender measured does not pay for warming up the server.
 */
function warmUp(options: SyntheticWebOptions, web: RunningWeb): void {
  const resolved = resolveOptions(options);
  const origins = web.sites.map((site) => site.origin);
  for (let n = 0; n < WARM_UP_PAGES; n++) {
    renderResolvedPage(resolved, origins, n % origins.length, n % resolved.pagesPerHost);
  }
}

function takeStats(web: RunningWeb): ServeStats {
  const entries = web.requestLog.splice(0);
  const distinct = new Set(entries.map((entry) => `${entry.host} ${entry.path}`));
  return { requests: entries.length, distinct: distinct.size };
}

async function main(): Promise<void> {
  const options = parseOptions(process.argv[2]);
  const web = await startSyntheticWeb(options);
  warmUp(options, web);
  let stopping = false;
  const stop = (): void => {
    if (stopping) return;
    stopping = true;
    web.close().then(
      () => process.exit(0),
      () => process.exit(1),
    );
  };
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);

  const lines = createInterface({ input: process.stdin });
  lines.on('line', (line) => {
    if (line.trim() === 'stats') process.stdout.write(`${JSON.stringify(takeStats(web))}\n`);
  });
  lines.on('close', stop);

  process.stdout.write(`${JSON.stringify({ sites: web.sites })}\n`);
}

main().catch((error: unknown) => {
  process.stderr.write(`serve: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
