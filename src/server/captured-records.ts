import { CAPTURED } from '../bunny/captured.js';
import { refusedRecord } from '../bunny/page-record.js';
import { idFromWire } from '../frontier/remote/wire.js';
import type { CrawlerId, PendingRecord, RecordId } from '../frontier/types.js';
import type { PageRecord } from '../output/pages-log.js';
import type { Bodies } from '../protocol/index.js';

/** Lines to write, then the records to acknowledge in the store. */
export interface Written {
  lines: PageRecord[];
  ids: RecordId[];
}

/**
 * The records of captured requisites a server hands back to the bunny that captured
 * them (docs/protocol.md, "Captured requisites"). The store found each URL new and holds
 * its record until it is acknowledged; the bunny has the bytes, writes their WARC records,
 * and acknowledges with the line, which the server writes. Every other record the server
 * writes itself at once. Kept in memory: a record handed to a bunny that leaves without
 * acknowledging it is written as refused, since its bytes left with the bunny.
 */
export class CapturedRecords {
  private readonly out = new Map<RecordId, { record: PendingRecord; crawler: CrawlerId }>();

  /** Splits a store's records: those the server writes now, and the captures handed to `crawler`. */
  handOut(
    records: readonly PendingRecord[],
    crawler: CrawlerId,
  ): { own: PendingRecord[]; back: PendingRecord[] } {
    const own: PendingRecord[] = [];
    const back: PendingRecord[] = [];
    for (const r of records) {
      if (r.reason !== CAPTURED) own.push(r);
      else {
        back.push(r);
        this.out.set(r.id, { record: r, crawler });
      }
    }
    return { own, back };
  }

  /**
   * ACK: each id handed out gets the line sent for its URL, or, with none, a refused
   * URL's line. Ids not handed out (already acknowledged, or never ours) change nothing.
   */
  acknowledged(body: Bodies['ACK']): Written {
    const sent = new Map<string, Record<string, unknown>>();
    for (const line of body.lines ?? []) if (typeof line.url === 'string') sent.set(line.url, line);
    const written: Written = { lines: [], ids: [] };
    for (const wireId of body.ids) {
      const id = idFromWire(wireId);
      const held = this.out.get(id);
      if (held === undefined) continue;
      this.out.delete(id);
      const line = sent.get(held.record.url);
      // As a completion's page line: as it came, under the id of the crawler it was handed to.
      written.lines.push(
        line === undefined
          ? refusedRecord(held.record, held.crawler)
          : ({ ...line, crawler: held.crawler } as PageRecord),
      );
      written.ids.push(id);
    }
    return written;
  }

  /** A crawler left: what it was handed and did not acknowledge is written as refused. */
  leftBy(crawler: CrawlerId): Written {
    const written: Written = { lines: [], ids: [] };
    for (const [id, held] of this.out) {
      if (held.crawler !== crawler) continue;
      this.out.delete(id);
      written.lines.push(refusedRecord(held.record, crawler));
      written.ids.push(id);
    }
    return written;
  }
}
