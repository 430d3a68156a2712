/**
 * A parse worker: takes fetched HTML pages (their bytes moved here, not copied), parses
 * each once, canonicalizes and filters its links (PageAnalyzer), and moves the bytes back
 * with what it found. Messages come from ParsePool (parse-pool.ts).
 */
import { parentPort, workerData } from 'node:worker_threads';
import type { Span } from '../worker.js';
import { type LinkRulesSpec, linkRulesFrom } from './links.js';
import { type AnalysisInput, type PageAnalysis, PageAnalyzer } from './page-analysis.js';

/** What a parse worker is started with. */
export interface ParseSetup {
  rules: LinkRulesSpec;
  followNofollow: boolean;
}

export interface ParseRequest {
  id: number;
  input: Omit<AnalysisInput, 'body'>;
  buffer: ArrayBuffer;
  body: Span;
}

export type ParseReply =
  | { kind: 'ready' }
  | { kind: 'parsed'; id: number; buffer: ArrayBuffer; analysis?: PageAnalysis; error?: string };

const port = parentPort;
if (port === null) throw new Error('parse-worker.js runs as a worker thread');
const setup = workerData as ParseSetup;
const analyzer = new PageAnalyzer(linkRulesFrom(setup.rules), setup.followNofollow);

port.on('message', (msg: ParseRequest) => {
  const reply: ParseReply = { kind: 'parsed', id: msg.id, buffer: msg.buffer };
  try {
    const body = new Uint8Array(msg.buffer, msg.body.offset, msg.body.length);
    reply.analysis = analyzer.analyze({ ...msg.input, body });
  } catch (err) {
    reply.error = err instanceof Error ? err.message : String(err);
  }
  port.postMessage(reply, [msg.buffer]);
});
port.postMessage({ kind: 'ready' } satisfies ParseReply);
