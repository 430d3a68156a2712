import { describe, expect, it } from 'vitest';
import { type QueuedRow, QueueHeads } from '../../src/frontier/sqlite/queue-heads.js';

function row(seq: number, depth: number): QueuedRow {
  return {
    seq,
    url: `http://a.test/${seq}`,
    depth,
    rank: depth,
    via: null,
    redirects: 0,
    kind: 0,
    attempts: 0,
    fetched_at: null,
    etag: null,
    last_modified: null,
    captured_at: null,
  };
}

/** A host's queue in the file, read as headOfHost reads it, counting the reads. */
function fileOf(rows: QueuedRow[]) {
  const file = {
    rows,
    reads: 0,
    read: (limit: number) => {
      file.reads++;
      return [...file.rows].sort((a, b) => a.rank - b.rank || a.seq - b.seq).slice(0, limit);
    },
  };
  return file;
}

const seqs = (rows: readonly QueuedRow[]) => rows.map((r) => r.seq);

describe('QueueHeads', () => {
  it('reads a host ahead once and serves the next leases from what it read', () => {
    const file = fileOf(Array.from({ length: 100 }, (_, i) => row(i + 1, 1)));
    const heads = new QueueHeads();
    expect(seqs(heads.rowsOf('a', 3, file.read).slice(0, 2))).toEqual([1, 2]);
    heads.take('a', 2);
    file.rows = file.rows.filter((r) => r.seq > 2);
    expect(seqs(heads.rowsOf('a', 3, file.read).slice(0, 3))).toEqual([3, 4, 5]);
    expect(file.reads).toBe(1);
  });

  it('puts a new link in its place: before deeper rows, after those as deep', () => {
    const file = fileOf([row(1, 1), row(2, 2), row(3, 2)]);
    const heads = new QueueHeads();
    heads.rowsOf('a', 1, file.read);
    heads.appended('a', row(4, 1));
    heads.appended('a', row(5, 2));
    expect(seqs(heads.rowsOf('a', 1, file.read))).toEqual([1, 4, 2, 3, 5]);
    expect(file.reads).toBe(1);
  });

  it('leaves a new link past the rows it read to the file, and reads it from there', () => {
    const file = fileOf(Array.from({ length: 40 }, (_, i) => row(i + 1, 1)));
    const heads = new QueueHeads();
    const first = heads.rowsOf('a', 1, file.read).length;
    expect(first).toBeLessThan(40);
    file.rows.push(row(41, 1));
    heads.appended('a', row(41, 1));
    expect(seqs(heads.rowsOf('a', 1, file.read))).not.toContain(41);
    heads.take('a', first);
    file.rows = file.rows.filter((r) => r.seq > first);
    expect(seqs(heads.rowsOf('a', 10, file.read))).toContain(41);
  });

  it('reads a host again after a change inside its queue', () => {
    const file = fileOf([row(2, 1), row(3, 1)]);
    const heads = new QueueHeads();
    heads.rowsOf('a', 1, file.read);
    heads.take('a', 1);
    // The lease of row 2 was given back: it is queued again, ahead of row 3.
    heads.forget('a');
    expect(seqs(heads.rowsOf('a', 1, file.read))).toEqual([2, 3]);
    expect(file.reads).toBe(2);
  });

  it('forgets what it read when a transaction rolls back', () => {
    const file = fileOf([row(1, 0)]);
    const heads = new QueueHeads();
    heads.rowsOf('a', 1, file.read);
    heads.take('a', 1);
    heads.clear();
    expect(seqs(heads.rowsOf('a', 1, file.read))).toEqual([1]);
  });

  it('keeps a bounded number of rows, forgetting the hosts read longest ago', () => {
    const heads = new QueueHeads();
    const files = Array.from({ length: 2000 }, (_, h) =>
      fileOf(Array.from({ length: 40 }, (_, i) => row(h * 100 + i, 0))),
    );
    files.forEach((f, h) => {
      heads.rowsOf(`h${h}`, 1, f.read);
    });
    heads.rowsOf('h0', 1, (files[0] as ReturnType<typeof fileOf>).read);
    heads.rowsOf('h1999', 1, (files[1999] as ReturnType<typeof fileOf>).read);
    expect(files[0]?.reads).toBe(2);
    expect(files[1999]?.reads).toBe(1);
  });
  it('serves a long kept queue in order as leases take from its front, and new links after it', () => {
    // A host whose whole queue is kept holds every link found for it since.
    const file = fileOf([row(1, 1)]);
    const heads = new QueueHeads();
    heads.rowsOf('a', 1, file.read);
    for (let seq = 2; seq <= 500; seq++) heads.appended('a', row(seq, 1));
    const leased: number[] = [];
    let halfway = 0;
    for (let n = 1; leased.length < 501; n = (n % 7) + 1) {
      const rows = heads.rowsOf('a', n, file.read);
      const taken = seqs(rows.slice(0, n));
      leased.push(...taken);
      heads.take('a', taken.length);
      if (halfway === 0 && leased.length >= 250) {
        halfway = leased.length;
        heads.appended('a', row(501, 0));
      }
    }
    // The shallower link found halfway comes next, then the rest of the queue in order.
    expect(leased).toEqual([
      ...Array.from({ length: halfway }, (_, i) => i + 1),
      501,
      ...Array.from({ length: 500 - halfway }, (_, i) => halfway + i + 1),
    ]);
    expect(file.reads).toBe(1);
  });
});
