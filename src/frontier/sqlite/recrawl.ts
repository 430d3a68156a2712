import type Database from 'better-sqlite3';
import { DUE_LOOK_MS, dueLookNeeded, RECRAWL_BATCH, recrawlCutoff } from '../policy/recrawl.js';
import { crawlCountsOf } from '../store-counts.js';
import { maxPages, totalsWith } from './counts.js';
import { ensureFetchedIndex } from './schema.js';
import { DUE_AGAIN_SQL } from './statements.js';
import type { Store } from './store.js';
import type { Tx } from './tx.js';

/** --recrawl-after's query, and the index it reads, made the first time either is wanted. */
export function dueAgainStatement(s: Store): Database.Statement {
  if (s.dueAgain === null) {
    ensureFetchedIndex(s.db);
    s.dueAgain = s.db.prepare(DUE_AGAIN_SQL);
  }
  return s.dueAgain;
}

/** One batch of the URLs due again (policy/recrawl.ts) back in the queue; how many. */
export function requeueDueBatch(s: Store, afterMs: number, tx: Tx): number {
  const cutoff = recrawlCutoff(tx.now, afterMs);
  if (cutoff === null) return 0;
  const rows = dueAgainStatement(s).all(cutoff, RECRAWL_BATCH) as {
    seq: number;
    host: string;
    rank: number;
  }[];
  for (const r of rows) {
    s.st.requeueDone.run(r.seq);
    s.heads?.forget(r.host);
    tx.delta.done--;
    tx.hosts.queue(tx.hosts.host(r.host), r.rank);
    tx.delta.queued++;
  }
  return rows.length;
}

/**
 * --recrawl-after while the crawl runs: a lease call queues the URLs that came due
 * when dueLookNeeded says to look. Not within crawl passes, whose boundaries a URL
 * coming back at a depth already passed would move: those wait for the next run.
 */
export function requeueComeDue(s: Store, tx: Tx): void {
  const afterMs = s.settings.recrawlAfterMs;
  if (afterMs === undefined || Number.isFinite(s.passDepth)) return;
  const counts = crawlCountsOf(totalsWith(s, tx.delta));
  if (!dueLookNeeded(afterMs, tx.now, s.nextDueLook, maxPages(s), counts)) return;
  s.nextDueLook = tx.now + DUE_LOOK_MS;
  requeueDueBatch(s, afterMs, tx);
}
