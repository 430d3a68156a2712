import { spawn } from 'node:child_process';
import { appendFileSync, existsSync, readFileSync } from 'node:fs';
import type { StopReason } from '../bunny/crawl-loop.js';
import { count } from '../english.js';
import type { SqliteFrontier } from '../frontier/sqlite/sqlite-frontier.js';
import type { LogLevel } from '../options/options.js';

/** One line of passes.jsonl: what one crawl pass did. */
export interface PassLine {
  pass: number;
  /** The depth it fetched (redirects followed at once keep their page's depth). */
  depth: number;
  /** URLs fetched in the pass (a response of any status). */
  pages: number;
  /** URLs the pass met for the first time (queued for the next pass, or recorded as refused). */
  newUrls: number;
  seconds: number;
  /** When it ended (ISO 8601). */
  at: string;
}

export interface PassParts {
  frontier: SqliteFrontier;
  /** Runs the crawl loop until it ends (a pass's boundary, the page budget, a signal). */
  runLoop: () => Promise<StopReason>;
  /** URLs fetched this run so far. */
  fetched: () => number;
  /** Writes the pass's marker line to pages.jsonl. */
  mark: (line: Record<string, unknown>) => void;
  passesFile: string;
  dataDir: string;
  onPass: string | undefined;
  log: (line: string, level: LogLevel) => void;
}

/** Rows in the store: every URL the crawl met. */
async function urlsMet(frontier: SqliteFrontier): Promise<number> {
  const s = await frontier.stats();
  return s.queued + s.leased + s.retrying + s.done + s.failed + s.rejected;
}

/** The number of the last pass in passes.jsonl (0 when there is none): a resumed crawl goes on from it. */
export function lastPass(file: string): number {
  if (!existsSync(file)) return 0;
  let last = 0;
  for (const line of readFileSync(file, 'utf8').split('\n')) {
    if (line.trim() === '') continue;
    try {
      last = Math.max(last, Number((JSON.parse(line) as { pass?: unknown }).pass) || 0);
    } catch {
      // a torn last line of a killed run: its pass was not finished
    }
  }
  return last;
}

/**
 * Crawl passes (--passes N): pass k fetches the depth its predecessor discovered and
 * nothing else, then stops at a clean boundary (nothing of that depth queued, leased or
 * waiting to retry; the seen set's waiting links merged). At each boundary a line goes
 * to passes.jsonl and a marker to pages.jsonl, and --on-pass runs with the pass number
 * while the next pass goes on. Resolves to why the crawl stopped: 'passes' when the N
 * passes are done and more is queued (the next run goes on from there).
 */
export async function runPasses(passes: number, parts: PassParts): Promise<StopReason | 'passes'> {
  const { frontier } = parts;
  const commands: Promise<void>[] = [];
  let pass = lastPass(parts.passesFile);
  try {
    for (let i = 0; i < passes; i++) {
      const depth = await frontier.shallowestWaiting();
      if (depth === null) return 'finished';
      pass++;
      frontier.setPassDepth(depth + 1);
      const started = Date.now();
      const fetchedBefore = parts.fetched();
      const metBefore = await urlsMet(frontier);
      const stopped = await parts.runLoop();
      if (stopped !== 'finished') return stopped; // the page budget or a signal: not a clean boundary
      // The loop ends only once every completion has committed, and a completion waits for
      // its links' answers: what is left is to make the seen set durable at the boundary.
      await frontier.settleSeen();
      const line: PassLine = {
        pass,
        depth,
        pages: parts.fetched() - fetchedBefore,
        newUrls: (await urlsMet(frontier)) - metBefore,
        seconds: Math.round((Date.now() - started) / 10) / 100,
        at: new Date().toISOString(),
      };
      appendFileSync(parts.passesFile, `${JSON.stringify(line)}\n`);
      parts.mark({ passEnd: pass, depth, pages: line.pages, newUrls: line.newUrls, at: line.at });
      parts.log(
        `pass ${pass} (depth ${depth}) done: ${count(line.pages, 'page')}, ${count(line.newUrls, 'new URL')}, ${line.seconds} s`,
        'info',
      );
      if (parts.onPass !== undefined) commands.push(runOnPass(parts.onPass, pass, parts.dataDir, parts.log));
    }
    return (await frontier.shallowestWaiting()) === null ? 'finished' : 'passes';
  } finally {
    frontier.setPassDepth(null);
    // The commands started at the boundaries run beside the crawl; the crawl ends after them.
    await Promise.all(commands);
  }
}

/**
 * --on-pass CMD: run through the shell with the pass number as its argument (and
 * COBWEB_PASS, COBWEB_DATA in its environment), its output going where cobweb's goes.
 * A failure is logged; the crawl goes on.
 */
function runOnPass(
  command: string,
  pass: number,
  dataDir: string,
  log: (line: string, level: LogLevel) => void,
): Promise<void> {
  return new Promise((resolve) => {
    const child = spawn(`${command} ${pass}`, {
      shell: true,
      stdio: ['ignore', 'inherit', 'inherit'],
      env: { ...process.env, COBWEB_PASS: String(pass), COBWEB_DATA: dataDir },
    });
    child.on('error', (err) => {
      log(`--on-pass for pass ${pass} could not start: ${err.message}`, 'error');
      resolve();
    });
    child.on('exit', (code, signal) => {
      if (code !== 0) log(`--on-pass for pass ${pass} exited with ${signal ?? `code ${code}`}`, 'warning');
      resolve();
    });
  });
}
