import type { Worker } from 'node:worker_threads';
import type { PackedExchange } from '../output/packed-exchange.js';
import { startWorker, transferOf } from '../worker.js';
import type { LinkRules, LinkRulesSpec } from './links.js';
import { type AnalysisInput, type PageAnalysis, PageAnalyzer } from './page-analysis.js';
import type { ParsePage, ParseReply, ParseRequest, ParseSetup } from './parse-worker.js';

export interface ParsePoolOptions {
  /** Parse workers; 0 parses on the crawl's own thread. */
  threads: number;
  rules: LinkRules;
  followNofollow: boolean;
  /** --requisites: pages' requisites are read too. */
  requisites?: boolean | undefined;
}

/**
 * HTML bytes the crawl's thread parses itself before the parse workers start: a worker
 * costs tens of milliseconds of CPU to boot (its thread, htmlparser2, the link rules), so
 * a crawl of a few pages never starts one. Not more: every page parsed here is parsed by
 * code V8 has not optimized yet, and the hotter it gets, the more of it V8 compiles for
 * this thread too, for pages a worker then takes over. At 512 KB (some 170 pages of the
 * benchmark's small web, 20 of its realistic one), with pages parsed here until the
 * worker was ready, a crawl took more CPU: 0.9 s more on average on the realistic web
 * (20.3-23.1 s against 20.4-21.6) and 0.2 s more on the small one (9.8-10.2 against
 * 9.6-10.0), in five of six alternating pairs each.
 */
const WORKERS_AFTER_BYTES = 64 * 1024;

/**
 * A parse worker's young generation, in MiB (V8 makes it three semi-spaces: 8 MiB
 * each). Left to itself V8 grew it to 16 MiB semi-spaces, 32 MiB held per worker for
 * nothing: a page's garbage dies young either way, and parsing the benchmark's realistic
 * pages took the same CPU within the noise (4 MiB semi-spaces: about 4% more).
 */
const PARSE_YOUNG_GENERATION_MB = 24;

/**
 * Pages wait this long for others to go to their worker with, or until a worker has
 * PARSE_BATCH. It costs no fetch its slot (a slot is free once its exchange is over,
 * before the parse), only the page's writing, which waits for its batch anyway.
 */
const PARSE_GATHER_MS = 4;
const PARSE_BATCH = 16;

interface Waiting {
  packed: PackedExchange;
  resolve: (analysis: PageAnalysis) => void;
  reject: (err: Error) => void;
}

interface ParseThread {
  worker: Worker;
  waiting: Map<number, Waiting>;
  /** Pages for it from this turn of the event loop, sent together at its end. */
  outbox: ParsePage[];
  /** Started with rules that changed since: it stops once its pages are back. */
  retiring?: boolean;
}

/**
 * The crawl's parse workers. Each page goes to the worker with the fewest pages on hand,
 * its bytes moved there and back (never copied); the crawl's thread is left the network,
 * the store and the writing. The workers start once the crawl's thread has parsed
 * WORKERS_AFTER_BYTES of HTML itself (a short crawl never starts one), and from then on
 * every page goes to one, booted or not: its port keeps what comes before it listens.
 * A worker that dies fails the pages it held (their URLs are recorded as failed,
 * 'internal'), and another takes its place.
 */
export class ParsePool {
  private readonly threads: ParseThread[] = [];
  private inline: PageAnalyzer | null = null;
  private nextId = 1;
  private closed = false;
  private parsedHere = 0;
  private sending: NodeJS.Timeout | null = null;

  constructor(private readonly options: ParsePoolOptions) {}

  /** How many pages the workers hold now. */
  get inFlight(): number {
    let n = 0;
    for (const t of this.threads) n += t.waiting.size;
    return n;
  }

  analyze(input: Omit<AnalysisInput, 'body'>, packed: PackedExchange): Promise<PageAnalysis> {
    const thread = this.pick();
    if (thread === null) return Promise.resolve(this.analyzeHere(input, packed));
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      thread.waiting.set(id, { packed, resolve, reject });
      thread.outbox.push({ id, input, buffer: packed.buffer, body: packed.body });
      if (thread.outbox.length >= PARSE_BATCH) this.send();
      else this.sending ??= setTimeout(() => this.send(), PARSE_GATHER_MS);
    });
  }

  /**
   * Sends each worker the pages it was given in the last few milliseconds, in one
   * message: a message costs both threads some tens of microseconds and a wake-up
   * whatever it holds, and at a few hundred pages a second a turn of the event loop
   * mostly had one page.
   */
  private send(): void {
    if (this.sending !== null) clearTimeout(this.sending);
    this.sending = null;
    for (const thread of this.threads) {
      if (thread.outbox.length === 0) continue;
      const pages = thread.outbox.splice(0);
      const request: ParseRequest = { pages };
      thread.worker.postMessage(request, transferOf(pages));
    }
  }

  /**
   * The link rules changed (the crawl's scope grew): pages from now on are parsed by
   * workers started with the new rules; the old workers finish the pages they hold, then stop.
   */
  rulesChanged(): void {
    // What was given to the old workers goes to them first (send() stops the timer).
    this.send();
    this.inline = null;
    for (const t of this.threads.splice(0)) {
      t.retiring = true;
      if (t.waiting.size === 0) void t.worker.terminate();
    }
  }

  async close(): Promise<void> {
    this.closed = true;
    if (this.sending !== null) clearTimeout(this.sending);
    this.sending = null;
    const threads = this.threads.splice(0);
    for (const t of threads) this.fail(t, new Error('the crawl is closing'));
    await Promise.all(threads.map((t) => t.worker.terminate()));
  }

  /** The worker with the fewest pages; null: parse here (no worker wanted yet). */
  private pick(): ParseThread | null {
    const { threads, rules } = this.options;
    if (threads <= 0 || rules.spec === undefined || this.closed) return null;
    if (this.parsedHere < WORKERS_AFTER_BYTES) return null;
    while (this.threads.length < threads) this.spawn(rules.spec);
    let best: ParseThread | null = null;
    for (const t of this.threads) {
      if (best === null || t.waiting.size < best.waiting.size) best = t;
    }
    return best;
  }

  private analyzeHere(input: Omit<AnalysisInput, 'body'>, packed: PackedExchange): PageAnalysis {
    this.inline ??= new PageAnalyzer(
      this.options.rules,
      this.options.followNofollow,
      this.options.requisites === true,
    );
    const body = new Uint8Array(packed.buffer, packed.body.offset, packed.body.length);
    this.parsedHere += body.length;
    return this.inline.analyze({ ...input, body });
  }

  private spawn(rules: LinkRulesSpec): void {
    const setup: ParseSetup = {
      rules,
      followNofollow: this.options.followNofollow,
      requisites: this.options.requisites === true,
    };
    const worker = startWorker(new URL('./parse-worker.js', import.meta.url), setup, {
      maxYoungGenerationSizeMb: PARSE_YOUNG_GENERATION_MB,
    });
    const thread: ParseThread = { worker, waiting: new Map(), outbox: [] };
    this.threads.push(thread);
    worker.on('message', (reply: ParseReply) => {
      for (const parsed of reply.pages) {
        const w = thread.waiting.get(parsed.id);
        if (w === undefined) continue;
        thread.waiting.delete(parsed.id);
        w.packed.buffer = parsed.buffer;
        if (parsed.analysis !== undefined) w.resolve(parsed.analysis);
        else w.reject(new Error(`parsing failed: ${parsed.error ?? 'no reason given'}`));
      }
      if (thread.retiring === true && thread.waiting.size === 0) void worker.terminate();
    });
    const gone = (why: string) => {
      const at = this.threads.indexOf(thread);
      if (at !== -1) this.threads.splice(at, 1);
      this.fail(thread, new Error(why));
    };
    worker.on('error', (err) => gone(`the parse thread failed: ${err.message}`));
    worker.on('exit', (code) => gone(`the parse thread exited (code ${code})`));
  }

  private fail(thread: ParseThread, err: Error): void {
    const waiting = [...thread.waiting.values()];
    thread.waiting.clear();
    thread.outbox.length = 0;
    for (const w of waiting) w.reject(err);
  }
}
