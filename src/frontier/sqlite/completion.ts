import { validatorColumns } from '../policy/recrawl.js';
import type { CompleteResult, Completion, CrawlerId, LeaseId } from '../types.js';
import { applyReport } from './fetch-reports.js';
import { endLease, leaseOf, stillLeased } from './leases.js';
import { insertLinks } from './link-inserts.js';
import { adoptOrphans, requeue1, retireIfDead } from './requeue.js';
import { URL_STATE } from './schema.js';
import type { SeenAnswers } from './seen-answers.js';
import type { Store } from './store.js';
import type { LeaseRow, Tx } from './tx.js';

/**
 * complete(): each completion whose lease still holds frees its host's slot, writes its
 * outcome and queues its links; one whose lease ran out changes nothing (stale).
 */
export async function completeBatch(
  s: Store,
  answers: SeenAnswers,
  batch: readonly Completion[],
  crawler: CrawlerId,
): Promise<CompleteResult> {
  // A held seen set is asked before the transaction (drum answers late), for the
  // completions that still hold their lease: a stale one's links are not taken.
  const live = s.gate === null ? [] : stillLeased(s, batch);
  const fresh = await answers.ask(live.flatMap((c) => [...c.outlinks, ...c.rejected]));
  const freshOf = new Map<Completion, boolean[]>();
  let at = 0;
  for (const c of live) {
    const n = c.outlinks.length + c.rejected.length;
    freshOf.set(c, (fresh as boolean[]).slice(at, at + n));
    at += n;
  }
  return answers.write(fresh, (tx) => {
    const stale: LeaseId[] = [];
    let added = 0;
    for (const c of batch) {
      const lease = leaseOf(s, c.leaseId, tx);
      const answered = freshOf.get(c);
      if (lease === undefined) {
        // It expired and went back to the queue (maybe to someone else): change nothing.
        stale.push(c.leaseId);
        tx.delta.staleCompletions++;
        // Unless the seen set was asked before it expired: what it marked must be queued.
        if (answered !== undefined) added += insertLinks(s, c.outlinks, c.rejected, crawler, tx, answered);
        continue;
      }
      if (lease.released === 0) applyReport(s, lease.host, c.report ?? { fetchMs: 0 }, tx);
      endLease(s, lease, tx);
      settle(s, lease, c, crawler, tx);
      added += insertLinks(s, c.outlinks, c.rejected, crawler, tx, answered);
      retireIfDead(s, lease.host, crawler, tx);
    }
    adoptOrphans(s, crawler, tx);
    return { added, records: tx.records, stale };
  });
}

/** Writes a completed lease's outcome. */
function settle(s: Store, lease: LeaseRow, c: Completion, crawler: CrawlerId, tx: Tx): void {
  const o = c.outcome;
  switch (o.kind) {
    case 'done':
      s.st.markDone.run(
        crawler,
        c.hasForm === true ? 1 : 0,
        tx.now,
        ...validatorColumns(o.validators),
        lease.seq,
      );
      tx.delta.done++;
      return;
    case 'failed':
      s.st.markFinal.run(URL_STATE.failed, 1, o.error, crawler, lease.seq);
      tx.delta.failed++;
      return;
    case 'refused':
      s.st.markFinal.run(URL_STATE.rejected, 0, o.reason, crawler, lease.seq);
      tx.delta.rejected++;
      return;
    case 'retry':
      // A host given up on takes no retry: requeue1 fails the URL instead.
      if (tx.hosts.host(lease.host).retired) {
        requeue1(s, lease.seq, lease.host, lease.rank, 1, crawler, tx);
        return;
      }
      s.st.markRetrying.run(o.error, tx.now + o.afterMs, lease.seq);
      if (s.retryDue !== undefined) s.retryDue = Math.min(s.retryDue ?? Infinity, tx.now + o.afterMs);
      tx.delta.retrying++;
      return;
    case 'deferred':
      requeue1(s, lease.seq, lease.host, lease.rank, 0, crawler, tx);
      return;
  }
}
