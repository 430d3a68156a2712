import { fingerprint } from '../../url/fingerprint.js';
import { hostKey } from '../../url/host.js';
import { hostBudgetRefusal } from '../policy/host-budget.js';
import { settingsForHost } from '../policy/host-rules.js';
import { queueRank } from '../policy/queue-rank.js';
import { RETIRED_REASON } from '../policy/retirement.js';
import type { CrawlerId, NewLink, RejectedLink } from '../types.js';
import type { QueuedRow } from './queue-heads.js';
import { kindCode, URL_STATE } from './schema.js';
import { SeenSetBusyError, TABLE_SEEN } from './seen-gate.js';
import type { Store } from './store.js';
import type { Tx } from './tx.js';

/**
 * The seen check and the queue, in one transaction: links the seen set has not met
 * are queued (or refused by the store's own rules: a retired host, --max-pages-per-host)
 * and rejections are stored to be recorded once. `answered`: the held seen set's
 * answers (seen-answers.ts); without them the store's own table is asked here.
 */
export function insertLinks(
  s: Store,
  links: readonly NewLink[],
  rejected: readonly RejectedLink[],
  crawler: CrawlerId,
  tx: Tx,
  answered?: readonly boolean[],
): number {
  const fresh = answered ?? freshOf(s, [...links, ...rejected]);
  let added = 0;
  links.forEach((l, i) => {
    if (!fresh[i]) return;
    const host = hostKey(l.url);
    const h = tx.hosts.host(host);
    const refusal = h.retired
      ? RETIRED_REASON
      : hostBudgetRefusal(h.taken, settingsForHost(s.settings, host));
    if (refusal !== null) {
      storeRecord(s, { url: l.url, depth: l.depth, via: l.via, reason: refusal }, host, crawler, tx);
      return;
    }
    const kind = kindCode(l.kind);
    const redirects = l.redirects ?? 0;
    const { lastInsertRowid } = s.st.insertQueued.run(l.url, host, l.depth, l.via, redirects, kind);
    const row = newRow(Number(lastInsertRowid), l, redirects, kind);
    s.heads?.appended(host, row);
    h.taken++;
    tx.hosts.queue(h, row.rank);
    tx.delta.queued++;
    added++;
  });
  rejected.forEach((r, i) => {
    if (fresh[links.length + i]) storeRecord(s, r, hostKey(r.url), crawler, tx);
  });
  return added;
}

/**
 * Which of the URLs are new to the crawl (only a URL's first occurrence can be), from
 * the store's own table. The recent-URL cache answers most of them without asking it.
 */
function freshOf(s: Store, items: readonly { url: string }[]): boolean[] {
  const { fresh, ask, urls } = candidates(s, items);
  if (ask.length === 0) return fresh;
  // Another process took the seen set from the table while this handle was open (not
  // while it held it): its marks would go where nobody reads them.
  const kind = s.st.getMeta.get('seen') as string | undefined;
  if (kind !== undefined && kind !== TABLE_SEEN) {
    throw new SeenSetBusyError(
      `${s.file} is now crawled with the ${kind} seen set, held by another process; reach that crawl through its server`,
    );
  }
  const fps = new BigUint64Array(ask.length);
  urls.forEach((url, j) => {
    fps[j] = BigInt.asUintN(64, fingerprint(url));
  });
  const answers = s.seen.insertNewNow(fps);
  ask.forEach((itemIndex, j) => {
    fresh[itemIndex] = answers[j] === true;
  });
  return fresh;
}

/**
 * The URLs to ask the seen set about: each one's first occurrence, unless the
 * recent-URL cache knows it (all start as not new; the caller fills in the answers).
 * A seen set held in memory is asked about every URL: it answers a repeat in one
 * batch as seen, and a fingerprint and a probe of its table cost less than the cache's
 * string set (11 µs a page of 10 links on a server, 4% of its time).
 */
export function candidates(
  s: Store,
  items: readonly { url: string }[],
): { fresh: boolean[]; ask: number[]; urls: string[] } {
  const fresh = new Array<boolean>(items.length).fill(false);
  if (s.gate?.inMemory === true)
    return { fresh, ask: items.map((_, i) => i), urls: items.map((item) => item.url) };
  const ask: number[] = [];
  const urls: string[] = [];
  items.forEach((item, i) => {
    // Remembered as it is asked about: a later copy in the same batch is known already.
    if (!s.recent.add(item.url)) return;
    ask.push(i);
    urls.push(item.url);
  });
  return { fresh, ask, urls };
}

/** A URL that will not be fetched, stored once, handed to the caller to write. */
function storeRecord(s: Store, r: RejectedLink, host: string, crawler: CrawlerId, tx: Tx): void {
  const failed = r.reason === RETIRED_REASON;
  const state = failed ? URL_STATE.failedUnlogged : URL_STATE.rejectedUnlogged;
  const id = Number(
    s.st.insertRecord.run(r.url, host, r.depth, r.via, state, r.reason, crawler).lastInsertRowid,
  );
  if (failed) tx.delta.failed++;
  else tx.delta.rejected++;
  tx.records.push({ id, url: r.url, depth: r.depth, via: r.via, reason: r.reason });
}

/** The row insertQueued wrote, as headOfHost would read it. */
function newRow(seq: number, l: NewLink, redirects: number, kind: number): QueuedRow {
  return {
    seq,
    url: l.url,
    depth: l.depth,
    rank: queueRank(l.kind, l.depth),
    via: l.via,
    redirects,
    kind,
    attempts: 0,
    fetched_at: null,
    etag: null,
    last_modified: null,
    captured_at: null,
  };
}
