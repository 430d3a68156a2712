import { fingerprint } from '../../url/fingerprint.js';
import { hostKey } from '../../url/host.js';
import { hostBudgetRefusal } from '../policy/host-budget.js';
import { settingsForHost } from '../policy/host-rules.js';
import { queueRank } from '../policy/queue-rank.js';
import { RETIRED_REASON } from '../policy/retirement.js';
import type { CrawlerId, NewLink, RejectedLink } from '../types.js';
import { kindCode, kindOf, URL_KIND, URL_STATE } from '../url-state.js';
import type { Params, Part } from './params.js';
import type { Tx } from './tx.js';

const S = URL_STATE;

/** A link worth asking the store about: each URL once, each fingerprint once. */
export interface LinkCandidate {
  url: string;
  depth: number;
  via: string | null;
  redirects: number;
  kind: number;
  host: string;
  /** The fingerprint as PostgreSQL's signed bigint, in text. */
  fp: string;
  /** null: a link to queue; else the reason the caller rejected it. */
  reason: string | null;
}

/**
 * The links of a page (or of an add() call) as candidates, hashed. Hashing happens
 * before the transaction, so a transaction run again does not redo it.
 */
export function candidatesOf(links: readonly NewLink[], rejected: readonly RejectedLink[]): LinkCandidate[] {
  const out: LinkCandidate[] = [];
  for (const l of links) {
    out.push({
      url: l.url,
      depth: l.depth,
      via: l.via,
      redirects: l.redirects ?? 0,
      kind: kindCode(l.kind),
      host: hostKey(l.url),
      fp: fingerprintText(l.url),
      reason: null,
    });
  }
  for (const r of rejected) {
    out.push({
      url: r.url,
      depth: r.depth,
      via: r.via,
      redirects: 0,
      kind: URL_KIND.page,
      host: hostKey(r.url),
      fp: fingerprintText(r.url),
      reason: r.reason,
    });
  }
  return out;
}

/**
 * The candidates of several pages as one list: links to queue first, then rejected ones,
 * each URL's first occurrence only, and of two URLs with one fingerprint the first (the
 * seen set is the fingerprint: only that one can be new).
 */
export function firstOfEach(lists: readonly (readonly LinkCandidate[])[]): LinkCandidate[] {
  const urls = new Set<string>();
  const fps = new Set<string>();
  const out: LinkCandidate[] = [];
  const take = (c: LinkCandidate) => {
    if (urls.has(c.url) || fps.has(c.fp)) return;
    urls.add(c.url);
    fps.add(c.fp);
    out.push(c);
  };
  for (const l of lists) for (const c of l) if (c.reason === null) take(c);
  for (const l of lists) for (const c of l) if (c.reason !== null) take(c);
  return out;
}

/** The hosts of the candidates to queue: the ones a transaction must lock before it probes (unseen). */
export function queueHosts(candidates: readonly LinkCandidate[]): string[] {
  return [...new Set(candidates.filter((c) => c.reason === null).map((c) => c.host))];
}

/**
 * The fingerprints the crawl holds among these: one lookup in the seen index for each.
 * Written as a LATERAL subquery with LIMIT 1, which the planner can only run as a lookup
 * per element: `fingerprint = ANY($2)` was planned, for a table of a few 10^5 rows not
 * vacuumed lately, as a sequential scan with the array hashed (12,600 blocks and a second
 * a call, against 1,900 blocks and a few ms).
 */
export const probeSql = (crawl: string, fps: string) => `SELECT coalesce(array_agg(u.fp), '{}') AS known
  FROM unnest(${fps}::int8[]) AS u(fp)
  CROSS JOIN LATERAL (SELECT 1 FROM crawler_links c WHERE c.crawl = ${crawl} AND c.fingerprint = u.fp LIMIT 1) AS hit`;
const PROBE = probeSql('$1', '$2');

/**
 * The candidates the crawl has not met. The hosts of the links to queue must be locked
 * already (tx.hosts.lock) and this statement run after that: whoever queues a URL holds
 * its host's row, so the answer for those links stays true until this transaction ends,
 * and they can be inserted with no ON CONFLICT. Rejected links are inserted by callers
 * that do not hold their hosts, so for them the answer is a hint (ON CONFLICT decides).
 */
export async function unseen(tx: Tx, candidates: readonly LinkCandidate[]): Promise<LinkCandidate[]> {
  if (candidates.length === 0) return [];
  // int8[] comes back as text, as fp is kept
  const [row] = await tx.q<{ known: string[] }>(PROBE, [tx.crawl, candidates.map((c) => c.fp)]);
  return withoutKnown(candidates, row?.known ?? []);
}

/**
 * The candidates whose fingerprints are not among `known`. A probe before any lock may
 * drop them: a URL the crawl holds stays held (no row is deleted while it runs), so
 * only the rest need their hosts locked and asked about again (unseen). On the web most
 * outlinks are known, and most go to a few big hosts: locking every outlink's host
 * first made each completion hold (and wait for) the rows those hosts' leases and
 * completions need.
 */
export function withoutKnown(
  candidates: readonly LinkCandidate[],
  known: readonly string[],
): LinkCandidate[] {
  if (known.length === 0) return [...candidates];
  const held = new Set(known);
  return candidates.filter((c) => !held.has(c.fp));
}

/** What a write statement needs to insert the new links, and to read back what it did. */
export interface StagedLinks {
  /** The INSERTs, for the statement's WITH list: queued_links and refused_links. */
  parts: Record<'queued_links' | 'refused_links', Part>;
  /** SQL of how many rejections the statement inserted (the crawl's rejected count grows by it). */
  rejectedInserted: string | undefined;
  /** The final SELECT: the ids of the inserted rows that are records to write. */
  select: string;
  /** URLs queued. */
  added: number;
  /** Reads the statement's rows: the records to write (tx.records). */
  read(rows: readonly { id: number; fp: string }[]): void;
}

const COLUMNS = `(crawl, fingerprint, url, host, depth, via, redirects, kind, status, error, holder, added_at)`;

/**
 * Stages new links (from unseen) for one write statement. Links to queue are decided
 * here: queued (their hosts' queues and --max-pages-per-host counts move on), or refused
 * by the store's own rules (a retired host, --max-pages-per-host) and inserted as records
 * to write. Rejected links go in with ON CONFLICT DO NOTHING, in fingerprint order, so
 * two transactions inserting the same ones meet them in one order instead of
 * deadlocking; the ones that were new come back as records.
 */
export function stageLinks(
  tx: Tx,
  fresh: readonly LinkCandidate[],
  /** Who writes the records of refused links; null: the next completer (adoptOrphans). */
  crawler: CrawlerId | null,
  p: Params,
): StagedLinks {
  const toQueue: { c: LinkCandidate; status: number; error: string | null }[] = [];
  const rejected: LinkCandidate[] = [];
  let added = 0;
  for (const c of fresh) {
    if (c.reason !== null) {
      rejected.push(c);
      continue;
    }
    const h = tx.hosts.host(c.host);
    const refusal = h.retired
      ? RETIRED_REASON
      : hostBudgetRefusal(h.taken, settingsForHost(tx.settings, h.host));
    if (refusal === null) {
      h.taken++;
      tx.hosts.queue(h, queueRank(kindOf(c.kind), c.depth));
      tx.delta.queued++;
      added++;
      toQueue.push({ c, status: S.queued, error: null });
    } else {
      if (refusal === RETIRED_REASON) tx.delta.failed++;
      else tx.delta.rejected++;
      toQueue.push({
        c,
        status: refusal === RETIRED_REASON ? S.failedUnlogged : S.rejectedUnlogged,
        error: refusal,
      });
    }
  }
  const byFp = new Map<string, { c: LinkCandidate; reason: string }>();
  for (const q of toQueue) if (q.error !== null) byFp.set(q.c.fp, { c: q.c, reason: q.error });
  for (const c of rejected) byFp.set(c.fp, { c, reason: c.reason as string });
  rejected.sort((a, b) => (BigInt(a.fp) < BigInt(b.fp) ? -1 : 1));
  const refusals = toQueue.some((q) => q.error !== null);
  // The final SELECT reads queued_links first whenever there are rejected links too, so the
  // links to queue get the lower ids, as they were found before them (store order).
  const readQueued = refusals || (toQueue.length > 0 && rejected.length > 0);
  // Placeholders only for what the statement uses: PostgreSQL refuses a parameter it cannot type.
  let common: { crawl: string; holder: string; now: string } | undefined;
  const at = () => {
    common ??= { crawl: p.add(tx.crawl), holder: p.add(crawler), now: p.add(tx.now) };
    return common;
  };
  return {
    parts: {
      queued_links:
        toQueue.length === 0
          ? null
          : `INSERT INTO crawler_links ${COLUMNS}
  ${selectRows(
    p,
    toQueue.map((q) => q.c),
    toQueue.map((q) => q.status),
    toQueue.map((q) => q.error),
    at(),
  )} ORDER BY u.ord${readQueued ? '\n  RETURNING id, fingerprint, status' : ''}`,
      refused_links:
        rejected.length === 0
          ? null
          : `INSERT INTO crawler_links ${COLUMNS}
  ${selectRows(
    p,
    rejected,
    rejected.map(() => S.rejectedUnlogged),
    rejected.map((c) => c.reason),
    at(),
  )} ORDER BY u.ord
  ON CONFLICT (crawl, fingerprint) DO NOTHING
  RETURNING id, fingerprint`,
    },
    rejectedInserted: rejected.length === 0 ? undefined : 'SELECT count(*) FROM refused_links',
    select: [
      readQueued ? `SELECT id, fingerprint::text AS fp FROM queued_links WHERE status <> ${S.queued}` : null,
      rejected.length > 0 ? 'SELECT id, fingerprint::text AS fp FROM refused_links' : null,
    ]
      .filter((s) => s !== null)
      .join(' UNION ALL '),
    added,
    read(rows) {
      for (const r of rows) {
        const staged = byFp.get(r.fp);
        if (staged === undefined) continue;
        const { c, reason } = staged;
        tx.records.push({ id: r.id, url: c.url, depth: c.depth, via: c.via, reason });
      }
    },
  };
}

/**
 * Distinct referrers up to which each is sent once and the rows point at it: a batch's
 * links come from its pages, 64 at most, and an array subscript walks a text[] from its
 * start, so a long list would cost more than it saves.
 */
const VIAS_LISTED = 64;

/**
 * The SELECT of the rows to insert, from arrays; each page's URL (via) once when the
 * pages are few, the rows pointing at it by position, which keeps what is sent small.
 */
function selectRows(
  p: Params,
  rows: readonly LinkCandidate[],
  statuses: readonly number[],
  errors: readonly (string | null)[],
  at: { crawl: string; holder: string; now: string },
): string {
  const vias = new Map<string, number>();
  for (const r of rows) if (r.via !== null && !vias.has(r.via)) vias.set(r.via, vias.size + 1);
  const listed = vias.size <= VIAS_LISTED;
  const via = listed
    ? {
        column: `(${p.add([...vias.keys()])}::text[])[u.vi]`,
        values: `${p.add(rows.map((r) => (r.via === null ? null : vias.get(r.via))))}::int[]`,
      }
    : { column: 'u.vi', values: `${p.add(rows.map((r) => r.via))}::text[]` };
  return `SELECT ${at.crawl}::int, u.fp, u.url, u.host, u.depth, ${via.column},
    u.redirects, u.kind, u.status, u.error, CASE WHEN u.status = ${S.queued} THEN NULL ELSE ${at.holder}::int8 END,
    ${at.now}::int8
  FROM unnest(${p.add(rows.map((r) => r.fp))}::int8[], ${p.add(rows.map((r) => r.url))}::text[],
    ${p.add(rows.map((r) => r.host))}::text[], ${p.add(rows.map((r) => r.depth))}::int[], ${via.values},
    ${p.add(rows.map((r) => r.redirects))}::int2[], ${p.add(rows.map((r) => r.kind))}::int2[],
    ${p.add(statuses)}::int2[], ${p.add(errors)}::text[])
    WITH ORDINALITY AS u(fp, url, host, depth, vi, redirects, kind, status, error, ord)`;
}

/** The 64-bit fingerprint as PostgreSQL's signed bigint, in text (a JS number would round it). */
export function fingerprintText(url: string): string {
  return BigInt.asIntN(64, fingerprint(url)).toString();
}
