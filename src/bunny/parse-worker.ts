/**
 * A parse worker: takes fetched HTML pages (their bytes moved here, not copied), parses
 * each once, canonicalizes and filters its links (PageAnalyzer), and moves the bytes back
 * with what it found. Messages come from ParsePool (parse-pool.ts).
 */
import { parentPort, workerData } from 'node:worker_threads';
import { type Span, transferOf } from '../worker.js';
import { type LinkRulesSpec, linkRulesFrom } from './links.js';
import { type AnalysisInput, type PageAnalysis, PageAnalyzer } from './page-analysis.js';

/** What a parse worker is started with. */
export interface ParseSetup {
  rules: LinkRulesSpec;
  followNofollow: boolean;
  requisites: boolean;
}

/** One page to parse: its bytes in `buffer`, the body at `body`. */
export interface ParsePage {
  id: number;
  input: Omit<AnalysisInput, 'body'>;
  buffer: ArrayBuffer;
  body: Span;
}

/** The pages of one turn of the crawl's event loop, in one message. */
export interface ParseRequest {
  pages: ParsePage[];
}

/** A page parsed, or why not; its bytes go back in `buffer`. */
export interface ParsedPage {
  id: number;
  buffer: ArrayBuffer;
  analysis?: PageAnalysis;
  error?: string;
}

/** The pages of one request, parsed, in one message. */
export interface ParseReply {
  pages: ParsedPage[];
}

const port = parentPort;
if (port === null) throw new Error('parse-worker.js runs as a worker thread');
const setup = workerData as ParseSetup;
const analyzer = new PageAnalyzer(linkRulesFrom(setup.rules), setup.followNofollow, setup.requisites);

port.on('message', (msg: ParseRequest) => {
  // Answered together, as they came: one message back.
  const pages = msg.pages.map(parse);
  port.postMessage({ pages } satisfies ParseReply, transferOf(pages));
});

function parse(page: ParsePage): ParsedPage {
  const parsed: ParsedPage = { id: page.id, buffer: page.buffer };
  try {
    const body = new Uint8Array(page.buffer, page.body.offset, page.body.length);
    parsed.analysis = analyzer.analyze({ ...page.input, body });
  } catch (err) {
    parsed.error = err instanceof Error ? err.message : String(err);
  }
  return parsed;
}
