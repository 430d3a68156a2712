import { fingerprint } from '../../url/fingerprint.js';
import { hostKey } from '../../url/host.js';
import { hostBudgetRefusal } from '../policy/host-budget.js';
import { RETIRED_REASON } from '../policy/retirement.js';
import type { CrawlerId, NewLink, RejectedLink } from '../types.js';
import { LINK_KIND, LINK_STATUS } from './status.js';
import type { Tx } from './tx.js';

const S = LINK_STATUS;

/**
 * Every new link in one statement: arrays in, unnest, and ON CONFLICT DO NOTHING on
 * (crawl, fingerprint), which is the crawl's seen set. What comes back is what was new.
 * Links to queue go in in the order given (their ids are the queue's order within a
 * depth); their hosts are locked, so no other transaction inserts them meanwhile.
 * Rejections, whose hosts are not locked, go in in fingerprint order, so two
 * transactions inserting the same ones wait for each other in one order instead of
 * deadlocking.
 */
const INSERT = `INSERT INTO crawler_links
    (crawl, fingerprint, url, host, depth, via, redirects, kind, status, error, holder, added_at)
  SELECT $1, u.fp, u.url, u.host, u.depth, u.via, u.redirects, u.kind, u.status, u.error,
         CASE WHEN u.status = ${S.queued} THEN NULL ELSE $12::int8 END, $11
  FROM unnest($2::int8[], $3::text[], $4::text[], $5::int[], $6::text[], $7::int2[], $8::int2[],
              $9::int2[], $10::text[]) WITH ORDINALITY
    AS u(fp, url, host, depth, via, redirects, kind, status, error, ord)
  ORDER BY u.status, CASE WHEN u.status = ${S.queued} THEN u.ord END, u.fp
  ON CONFLICT (crawl, fingerprint) DO NOTHING
  RETURNING id, fingerprint::text AS fp`;

/** New links the store's own rules refuse after all (a retired host, --max-pages-per-host). */
const REFUSE = `UPDATE crawler_links AS l SET status = u.status, error = u.error, holder = $2
  FROM unnest($3::int8[], $4::int2[], $5::text[]) AS u(id, status, error)
  WHERE l.crawl = $1 AND l.id = u.id`;

interface Candidate {
  url: string;
  depth: number;
  via: string | null;
  redirects: number;
  kind: number;
  host: string;
  fp: string;
  /** null: a link to queue; else the reason it was rejected by the caller. */
  reason: string | null;
}

/**
 * Queues the links the crawl has not met and stores the new rejections to be recorded
 * once; the hosts of the links must be locked (tx.hosts.lock). Returns how many were queued.
 */
export async function insertLinks(
  tx: Tx,
  links: readonly NewLink[],
  rejected: readonly RejectedLink[],
  crawler: CrawlerId,
): Promise<number> {
  const candidates: Candidate[] = [
    ...links.map((l) => ({
      url: l.url,
      depth: l.depth,
      via: l.via,
      redirects: l.redirects ?? 0,
      kind: l.kind === 'sitemap' ? LINK_KIND.sitemap : LINK_KIND.page,
      host: hostKey(l.url),
      fp: fingerprintText(l.url),
      reason: null,
    })),
    ...rejected.map((r) => ({
      url: r.url,
      depth: r.depth,
      via: r.via,
      redirects: 0,
      kind: LINK_KIND.page,
      host: hostKey(r.url),
      fp: fingerprintText(r.url),
      reason: r.reason,
    })),
  ].filter(firstOfUrl());
  if (candidates.length === 0) return 0;
  const col = <T>(f: (c: Candidate) => T) => candidates.map(f);
  const rows = await tx.q<{ id: number; fp: string }>(INSERT, [
    tx.crawl,
    col((c) => c.fp),
    col((c) => c.url),
    col((c) => c.host),
    col((c) => c.depth),
    col((c) => c.via),
    col((c) => c.redirects),
    col((c) => c.kind),
    col((c) => (c.reason === null ? S.queued : S.rejectedUnlogged)),
    col((c) => c.reason),
    tx.now,
    crawler,
  ]);
  const idOf = new Map(rows.map((r) => [r.fp, r.id]));
  let added = 0;
  const refused: { id: number; status: number; error: string }[] = [];
  for (const c of candidates) {
    const id = idOf.get(c.fp);
    if (id === undefined) continue;
    idOf.delete(c.fp); // two URLs with one fingerprint: the first one is the new one
    if (c.reason !== null) {
      record(tx, id, c, c.reason);
      continue;
    }
    const h = tx.hosts.host(c.host);
    const refusal = h.retired ? RETIRED_REASON : hostBudgetRefusal(h.taken, tx.settings);
    if (refusal !== null) {
      refused.push({
        id,
        status: refusal === RETIRED_REASON ? S.failedUnlogged : S.rejectedUnlogged,
        error: refusal,
      });
      record(tx, id, c, refusal);
      continue;
    }
    h.taken++;
    tx.hosts.queue(h, c.depth);
    tx.delta.queued++;
    added++;
  }
  if (refused.length > 0) {
    await tx.q(REFUSE, [
      tx.crawl,
      crawler,
      refused.map((r) => r.id),
      refused.map((r) => r.status),
      refused.map((r) => r.error),
    ]);
  }
  return added;
}

/** A URL that will not be fetched, counted and handed to the caller to write. */
function record(tx: Tx, id: number, c: Candidate, reason: string): void {
  if (reason === RETIRED_REASON) tx.delta.failed++;
  else tx.delta.rejected++;
  tx.records.push({ id, url: c.url, depth: c.depth, via: c.via, reason });
}

/** The 64-bit fingerprint as PostgreSQL's signed bigint, in text (a JS number would round it). */
export function fingerprintText(url: string): string {
  return BigInt.asIntN(64, fingerprint(url)).toString();
}

/** A filter that keeps each URL's first occurrence only: only that one can be new. */
function firstOfUrl(): (c: { url: string }) => boolean {
  const seen = new Set<string>();
  return (c) => {
    if (seen.has(c.url)) return false;
    seen.add(c.url);
    return true;
  };
}
