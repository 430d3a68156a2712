import { closeSync, fstatSync, ftruncateSync, openSync, readdirSync, readSync, unlinkSync } from 'node:fs';
import { join } from 'node:path';
import { fingerprints } from '../../url/fingerprint.js';
import { writeAll } from '../../write-all.js';
import type { UrlsOnDisk } from '../memory/changes.js';
import { keyOf, type UrlEntry } from '../memory/url-entry.js';
import type { RecordId } from '../types.js';
import { type Change, entryOfChange, urlChange } from './change-log.js';
import { syncFd } from './journal-file.js';
import { JournalReadError } from './kept-reader.js';

export const urlsName = (g: number) => `urls.${g}.jsonl`;
const URL_FILE = /^urls\.(\d+)\.jsonl$/;

const STATES = [null, 'done', 'failed', 'refused', 'queued'] as const;
type KeptState = 'done' | 'failed' | 'refused' | 'queued';
const CODE: Record<KeptState, number> = { done: 1, failed: 2, refused: 3, queued: 4 };

/** A queued URL read from a file at opening: its host, and its place in the host's queue (keyOf). */
export interface QueuedOnDisk {
  id: RecordId;
  host: string;
  key: number;
}

/**
 * The URLs of a workbench store kept out of memory, in append-only files, urls.G.jsonl
 * (G the journal's generation), one URL a line. Two kinds go there, every few MB of
 * journal and at each snapshot, and the engine lets go of them:
 * - the URLs whose work is over (done, or failed or refused with their record written);
 * - the queued URLs of each host past its first HEAD_IN_MEMORY, none (the engine keeps
 *   their places in the host's queue, 8 bytes a URL, and reads the first back before it
 *   leases: the per-host disk queues of BUbiNG's workbench and IRLbot).
 * What stays in memory is a few bytes a URL, by id: which file holds its current line
 * and where, its state, and when it was fetched (--recrawl-after's look for URLs come due
 * needs no disk). So the store's memory follows the URLs it is working on, not every URL
 * the crawl has met or queued. A URL taken back (read back to be leased, queued again by
 * requeue or a recrawl) is the engine's again; if it leaves once more, a later line holds
 * its new state, and the current one is the one its id points to.
 *
 * A line says no more than the journal: the URL's line in the journal or the snapshot
 * came first. So an opening reads every URL file first, each line in order, and then the
 * snapshot and the journals, whose record of a URL wins (it is the engine's again; a
 * change of one read back to be leased reads its line here: KeptReader). A snapshot drops
 * the URLs that went to a file, so the file is synced before the snapshot counts; a file
 * none of whose lines is current any more is deleted once a snapshot made after that
 * counts (removable()).
 */
export class UrlFiles implements UrlsOnDisk {
  /** Each URL's file: its generation + 1 (0: not in the files). */
  private gen = new Uint32Array(1024);
  private at = new Float64Array(1024);
  private state = new Uint8Array(1024);
  private fetched = new Float64Array(1024);
  private readonly fds = new Map<number, number>();
  /** Each file's length, where its next line goes. */
  private readonly lengths = new Map<number, number>();
  /** Each file's current lines. */
  private readonly current = new Map<number, number>();
  private readonly tally = { done: 0, failed: 0, refused: 0, queued: 0 };
  /** The queued URLs read at opening, until the engine has placed them. */
  private queuedRead: Map<RecordId, QueuedOnDisk> | null = null;
  /** The highest URL id in the files. */
  lastId = 0;

  private constructor(private readonly dir: string) {}

  /**
   * Reads the URL files of `dir`, each whole, in the order of their generations: what
   * each URL's current line is, and the fingerprints of their URLs for the seen set. A
   * last line a kill tore is not read; `tidy` (an opening store) cuts it off.
   */
  static open(dir: string, tidy: boolean): { files: UrlFiles; fingerprints: BigUint64Array } {
    const files = new UrlFiles(dir);
    const generations: number[] = [];
    for (const name of readdirSync(dir)) {
      const m = URL_FILE.exec(name);
      if (m !== null) generations.push(Number(m[1]));
    }
    generations.sort((a, b) => a - b);
    const urls: string[] = [];
    const parts: BigUint64Array[] = [];
    const flushPrints = () => {
      parts.push(fingerprints(urls));
      urls.length = 0;
    };
    const queued = new Map<RecordId, QueuedOnDisk>();
    const hosts = new Map<string, string>();
    try {
      for (const g of generations) {
        const path = join(dir, urlsName(g));
        const fd = openSync(path, tidy ? 'a+' : 'r');
        files.fds.set(g, fd);
        files.current.set(g, 0);
        const data = readWhole(fd);
        let start = 0;
        let n = 0;
        for (let end = data.indexOf(10); end !== -1; end = data.indexOf(10, start)) {
          n++;
          const e = parseLine(data.toString('utf8', start, end), `${path} line ${n}`);
          files.place(e, g, start);
          if (e.state === 'queued') {
            const host = hosts.get(e.host) ?? e.host;
            hosts.set(host, host);
            queued.set(e.id, { id: e.id, host, key: keyOf(e) });
          }
          urls.push(e.url);
          if (urls.length >= 65_536) flushPrints();
          start = end + 1;
        }
        if (tidy && start < data.length) ftruncateSync(fd, start);
        files.lengths.set(g, start);
      }
      flushPrints();
    } catch (err) {
      files.close();
      throw err;
    }
    files.queuedRead = queued;
    const prints = new BigUint64Array(parts.reduce((n, p) => n + p.length, 0));
    let at = 0;
    for (const p of parts) {
      prints.set(p, at);
      at += p.length;
    }
    return { files, fingerprints: prints };
  }

  stateOf(id: RecordId): KeptState | null {
    return id < this.state.length ? (STATES[this.state[id] as number] ?? null) : null;
  }

  read(id: RecordId): UrlEntry {
    const g = (id < this.gen.length ? (this.gen[id] as number) : 0) - 1;
    const fd = this.fds.get(g);
    if (g < 0 || fd === undefined) throw new Error(`URL ${id} is not in the URL files`);
    const at = this.at[id] as number;
    for (let size = 1024; ; size *= 4) {
      const buf = Buffer.allocUnsafe(size);
      const got = readSync(fd, buf, 0, size, at);
      const end = buf.indexOf(10);
      if (end !== -1 && end < got) return parseLine(buf.toString('utf8', 0, end), `${urlsName(g)} at ${at}`);
      if (got < size) throw new JournalReadError(`${urlsName(g)} at ${at}: a line with no end`);
    }
  }

  takeBack(id: RecordId): void {
    const s = this.stateOf(id);
    if (s === null) return;
    this.tally[s]--;
    this.uncount(id);
    this.gen[id] = 0;
    this.state[id] = 0;
  }

  /**
   * The queued URLs read at opening that are still the files' (no snapshot or journal
   * line took them back), once: the engine puts their places in their hosts' queues.
   */
  takeQueuedRead(): QueuedOnDisk[] {
    const out: QueuedOnDisk[] = [];
    for (const q of this.queuedRead?.values() ?? []) if (this.state[q.id] === CODE.queued) out.push(q);
    this.queuedRead = null;
    return out;
  }

  doneBy(cutoff: number): RecordId[] {
    const ids: RecordId[] = [];
    for (let id = 1; id <= this.lastId; id++)
      if (this.state[id] === CODE.done && (this.fetched[id] as number) <= cutoff) ids.push(id);
    return ids;
  }

  each(visit: (e: UrlEntry) => void): void {
    for (const [g, fd] of [...this.fds].sort((a, b) => a[0] - b[0])) {
      const data = readWhole(fd);
      let start = 0;
      for (let end = data.indexOf(10); end !== -1; end = data.indexOf(10, start)) {
        const e = parseLine(data.toString('utf8', start, end), urlsName(g));
        if (this.gen[e.id] === g + 1 && this.at[e.id] === start) visit(e);
        start = end + 1;
      }
    }
  }

  counts(): { done: number; failed: number; refused: number; queued: number } {
    return { ...this.tally };
  }

  /**
   * Appends the URLs the engine let go of to generation g's file and points their ids at
   * their lines (the file stays open: it is read by its descriptor).
   */
  append(g: number, entries: readonly UrlEntry[]): void {
    if (entries.length === 0) return;
    let fd = this.fds.get(g);
    if (fd === undefined) {
      fd = openSync(join(this.dir, urlsName(g)), 'a+');
      this.fds.set(g, fd);
      this.lengths.set(g, fstatSync(fd).size);
      this.current.set(g, 0);
    }
    let offset = this.lengths.get(g) as number;
    let lines: string[] = [];
    let bytes = 0;
    const flush = () => {
      writeAll(fd, Buffer.from(lines.join('')));
      lines = [];
      bytes = 0;
    };
    for (const e of entries) {
      const line = `${JSON.stringify(urlChange(e))}\n`;
      this.place(e, g, offset);
      offset += Buffer.byteLength(line);
      lines.push(line);
      bytes += line.length;
      if (bytes >= 1 << 20) flush();
    }
    flush();
    this.lengths.set(g, offset);
  }

  /** Resolves once generation g's file is on the disk (before a snapshot that dropped its URLs counts). */
  async sync(g: number): Promise<void> {
    const fd = this.fds.get(g);
    if (fd !== undefined) await syncFd(fd);
  }

  /**
   * The generations up to `g` whose files hold no current line: every URL they held was
   * taken back, so a snapshot made now holds it (or a later file does), and the files can
   * go once that snapshot counts (remove()).
   */
  removable(g: number): number[] {
    return [...this.current].filter(([f, n]) => f <= g && n === 0).map(([f]) => f);
  }

  /** Deletes the files of `generations` (removable() when the snapshot was made: none became current since). */
  remove(generations: readonly number[]): void {
    for (const g of generations) {
      const fd = this.fds.get(g);
      if (fd === undefined || this.current.get(g) !== 0) continue;
      closeSync(fd);
      this.fds.delete(g);
      this.lengths.delete(g);
      this.current.delete(g);
      try {
        unlinkSync(join(this.dir, urlsName(g)));
      } catch {
        // Gone already: the next opening reads what is there.
      }
    }
  }

  close(): void {
    for (const fd of this.fds.values()) closeSync(fd);
    this.fds.clear();
  }

  /** URL `e`'s current line is in generation g's file at byte `at`. */
  private place(e: UrlEntry, g: number, at: number): void {
    const id = e.id;
    if (id >= this.state.length) this.grow(id);
    const before = this.stateOf(id);
    if (before !== null) {
      this.tally[before]--;
      this.uncount(id);
    }
    const s = e.state as KeptState;
    if (CODE[s] === undefined) throw new JournalReadError(`URL ${id} in a URL file is ${e.state}`);
    this.tally[s]++;
    this.gen[id] = g + 1;
    this.at[id] = at;
    this.state[id] = CODE[s];
    this.fetched[id] = e.previous?.fetchedAt ?? Number.POSITIVE_INFINITY;
    this.current.set(g, (this.current.get(g) ?? 0) + 1);
    this.lastId = Math.max(this.lastId, id);
  }

  /** URL `id`'s line is no longer current: its file counts one fewer. */
  private uncount(id: RecordId): void {
    const g = (this.gen[id] as number) - 1;
    const n = this.current.get(g);
    if (n !== undefined) this.current.set(g, n - 1);
  }

  private grow(id: number): void {
    let size = this.state.length;
    while (size <= id) size *= 2;
    this.gen = widened(this.gen, new Uint32Array(size));
    this.at = widened(this.at, new Float64Array(size));
    this.state = widened(this.state, new Uint8Array(size));
    this.fetched = widened(this.fetched, new Float64Array(size));
  }
}

/** `to`, a longer array of the same kind, holding `from` at its start. */
function widened<A extends Uint8Array | Uint32Array | Float64Array>(from: A, to: A): A {
  to.set(from);
  return to;
}

/** A file's bytes, read by position (its descriptor's own position is not used). */
function readWhole(fd: number): Buffer {
  const size = fstatSync(fd).size;
  const data = Buffer.allocUnsafe(size);
  for (let at = 0; at < size; ) {
    const got = readSync(fd, data, at, size - at, at);
    if (got === 0) return data.subarray(0, at);
    at += got;
  }
  return data;
}

function parseLine(text: string, where: string): UrlEntry {
  let c: Change;
  try {
    c = JSON.parse(text) as Change;
  } catch {
    throw new JournalReadError(`${where}: not a line of JSON`);
  }
  if (!Array.isArray(c) || c[0] !== 'u') throw new JournalReadError(`${where}: not a URL`);
  return entryOfChange(c);
}
