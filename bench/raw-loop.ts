// The ceiling a Node crawler can approach: fetch a fixed URL list with undici, stream every
// body through htmlparser2 and resolve each a[href], with no frontier, no dedup store and no
// outputs. Run as a child process so its peak RSS is its own:
//
//   node bench/raw-loop.js <input.json>     input: {"urls":[...],"concurrency":64,"deadlineSeconds":600}
//
// Prints one JSON line: {pages, seconds, pagesPerSec, peakRssBytes, links, failures, complete}.
// Imports packages only (no relative files), so a transpiled copy runs from any folder of the repo.
import { readFileSync } from 'node:fs';
import { StringDecoder } from 'node:string_decoder';
import { Parser } from 'htmlparser2';
import { Agent, request } from 'undici';

export interface RawLoopInput {
  urls: string[];
  concurrency: number;
  /** Stop taking new URLs after this long, so a stuck server cannot hang the benchmark. */
  deadlineSeconds?: number;
}

export interface RawLoopResult {
  /** Pages answered 200 and parsed. */
  pages: number;
  seconds: number;
  pagesPerSec: number;
  peakRssBytes: number;
  /** Resolved a[href] values, summed over all pages: proves the parse really happened. */
  links: number;
  /** Non-200 answers and network errors. */
  failures: number;
  /** False when the deadline stopped the loop before the list was done. */
  complete: boolean;
  /** The first network error, if any, so a broken run says why. */
  firstError?: string;
}

const REQUEST_TIMEOUT_MS = 30_000;

function readInput(path: string | undefined): RawLoopInput {
  if (!path) throw new Error('usage: raw-loop <input.json>');
  const input = JSON.parse(readFileSync(path, 'utf8')) as RawLoopInput;
  if (!Array.isArray(input.urls) || !(input.concurrency >= 1)) {
    throw new Error('raw-loop: input needs urls[] and concurrency >= 1');
  }
  return input;
}

/** Fetches one page and returns how many links it had, or -1 when it was not a 200. */
async function fetchAndParse(agent: Agent, url: string): Promise<number> {
  const { statusCode, body } = await request(url, { dispatcher: agent });
  if (statusCode !== 200) {
    await body.dump();
    return -1;
  }
  const base = new URL(url);
  let links = 0;
  const parser = new Parser({
    onopentag(name, attributes) {
      const href = attributes.href;
      if (name !== 'a' || href === undefined) return;
      try {
        // Kept alive by the counter, as a real crawler would keep the URL for its frontier.
        if (new URL(href, base).href.length > 0) links++;
      } catch {
        // An unparsable href is skipped, as a crawler would.
      }
    },
  });
  // undici's body yields Buffers (setEncoding is not honoured); the decoder keeps multi-byte
  // characters that straddle two chunks intact.
  const decoder = new StringDecoder('utf8');
  for await (const chunk of body) parser.write(decoder.write(chunk as Buffer));
  parser.end(decoder.end());
  return links;
}

async function run(input: RawLoopInput): Promise<RawLoopResult> {
  const agent = new Agent({
    keepAliveTimeout: 30_000,
    headersTimeout: REQUEST_TIMEOUT_MS,
    bodyTimeout: REQUEST_TIMEOUT_MS,
  });
  const started = performance.now();
  const deadline = started + (input.deadlineSeconds ?? 600) * 1000;
  let next = 0;
  let pages = 0;
  let links = 0;
  let failures = 0;
  let firstError: string | undefined;

  const worker = async (): Promise<void> => {
    while (next < input.urls.length && performance.now() < deadline) {
      const url = input.urls[next++];
      if (url === undefined) break;
      try {
        const found = await fetchAndParse(agent, url);
        if (found < 0) failures++;
        else {
          pages++;
          links += found;
        }
      } catch (error) {
        failures++;
        firstError ??= `${url}: ${error instanceof Error ? error.message : String(error)}`;
      }
    }
  };
  await Promise.all(Array.from({ length: input.concurrency }, worker));
  const seconds = (performance.now() - started) / 1000;
  await agent.close();
  return {
    pages,
    seconds,
    pagesPerSec: pages / seconds,
    peakRssBytes: process.resourceUsage().maxRSS * 1024,
    links,
    failures,
    complete: next >= input.urls.length,
    ...(firstError === undefined ? {} : { firstError }),
  };
}

run(readInput(process.argv[2])).then(
  (result) => process.stdout.write(`${JSON.stringify(result)}\n`),
  (error: unknown) => {
    process.stderr.write(`raw-loop: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exitCode = 1;
  },
);
