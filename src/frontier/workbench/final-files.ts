import { closeSync, fstatSync, ftruncateSync, openSync, readdirSync, readSync } from 'node:fs';
import { join } from 'node:path';
import { fingerprints } from '../../url/fingerprint.js';
import { writeAll } from '../../write-all.js';
import type { FinalUrls } from '../memory/changes.js';
import type { UrlEntry } from '../memory/url-entry.js';
import type { RecordId } from '../types.js';
import { type Change, entryOfChange, urlChange } from './change-log.js';
import { syncFd } from './journal-file.js';
import { JournalReadError } from './kept-reader.js';

export const finalName = (g: number) => `final.${g}.jsonl`;
const FINAL_FILE = /^final\.(\d+)\.jsonl$/;

const STATES = [null, 'done', 'failed', 'refused'] as const;
type FinalState = 'done' | 'failed' | 'refused';
const CODE: Record<FinalState, number> = { done: 1, failed: 2, refused: 3 };

/**
 * The URLs of a workbench store that are final (done, or failed or refused with their
 * record written), out of memory: every few MB of journal, and at each snapshot, the
 * ones that became final since are appended to final.G.jsonl (G the journal's
 * generation), one URL a line, and the engine lets go of them. What stays in memory is a
 * few bytes a URL, by id: which file holds its current line and where, its state, and
 * when it was fetched (--recrawl-after's look for URLs come due needs no disk). So the
 * store's memory follows the URLs it still has work for, not every URL the crawl has met
 * (BUbiNG and IRLbot keep theirs on disk the same way). A URL queued again (requeue, a
 * recrawl) is the engine's again; if it ends once more, a later line holds its new state,
 * and the current one is the one its id points to.
 *
 * A line says no more than the journal: the URL became final in a call of this
 * generation's journal, or was final in its snapshot. So an opening reads every final
 * file first, each line in order, and then the snapshot and the journals, whose record
 * of a URL wins (it is the engine's again): a line written just before a kill, whose
 * call's journal line was not, changes nothing. A snapshot drops the URLs that went to
 * a final file, so the file is synced before the snapshot counts.
 */
export class FinalFiles implements FinalUrls {
  /** Each URL's file: its generation + 1 (0: not in the files). */
  private gen = new Uint32Array(1024);
  private at = new Float64Array(1024);
  private state = new Uint8Array(1024);
  private fetched = new Float64Array(1024);
  private readonly fds = new Map<number, number>();
  /** Each file's length, where its next line goes. */
  private readonly lengths = new Map<number, number>();
  private readonly tally = { done: 0, failed: 0, refused: 0 };
  /** The highest URL id in the files. */
  lastId = 0;

  private constructor(private readonly dir: string) {}

  /**
   * Reads the final files of `dir`, each whole, in the order of their generations: what
   * each URL's current line is, and the fingerprints of their URLs for the seen set. A
   * last line a kill tore is not read; `tidy` (an opening store) cuts it off.
   */
  static open(dir: string, tidy: boolean): { files: FinalFiles; fingerprints: BigUint64Array } {
    const files = new FinalFiles(dir);
    const generations: number[] = [];
    for (const name of readdirSync(dir)) {
      const m = FINAL_FILE.exec(name);
      if (m !== null) generations.push(Number(m[1]));
    }
    generations.sort((a, b) => a - b);
    const urls: string[] = [];
    const parts: BigUint64Array[] = [];
    const flushPrints = () => {
      parts.push(fingerprints(urls));
      urls.length = 0;
    };
    try {
      for (const g of generations) {
        const path = join(dir, finalName(g));
        const fd = openSync(path, tidy ? 'a+' : 'r');
        files.fds.set(g, fd);
        const data = readWhole(fd);
        let start = 0;
        let n = 0;
        for (let end = data.indexOf(10); end !== -1; end = data.indexOf(10, start)) {
          n++;
          const e = parseLine(data.toString('utf8', start, end), `${path} line ${n}`);
          files.place(e, g, start);
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
    const prints = new BigUint64Array(parts.reduce((n, p) => n + p.length, 0));
    let at = 0;
    for (const p of parts) {
      prints.set(p, at);
      at += p.length;
    }
    return { files, fingerprints: prints };
  }

  stateOf(id: RecordId): FinalState | null {
    return id < this.state.length ? (STATES[this.state[id] as number] ?? null) : null;
  }

  read(id: RecordId): UrlEntry {
    const g = (id < this.gen.length ? (this.gen[id] as number) : 0) - 1;
    const fd = this.fds.get(g);
    if (g < 0 || fd === undefined) throw new Error(`URL ${id} is not in the final files`);
    const at = this.at[id] as number;
    for (let size = 1024; ; size *= 4) {
      const buf = Buffer.allocUnsafe(size);
      const got = readSync(fd, buf, 0, size, at);
      const end = buf.indexOf(10);
      if (end !== -1 && end < got) return parseLine(buf.toString('utf8', 0, end), `${finalName(g)} at ${at}`);
      if (got < size) throw new JournalReadError(`${finalName(g)} at ${at}: a line with no end`);
    }
  }

  takeBack(id: RecordId): void {
    const s = this.stateOf(id);
    if (s === null) return;
    this.tally[s]--;
    this.gen[id] = 0;
    this.state[id] = 0;
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
        const e = parseLine(data.toString('utf8', start, end), finalName(g));
        if (this.gen[e.id] === g + 1) visit(e);
        start = end + 1;
      }
    }
  }

  counts(): { done: number; failed: number; refused: number } {
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
      fd = openSync(join(this.dir, finalName(g)), 'a+');
      this.fds.set(g, fd);
      this.lengths.set(g, fstatSync(fd).size);
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

  close(): void {
    for (const fd of this.fds.values()) closeSync(fd);
    this.fds.clear();
  }

  /** URL `e`'s current line is in generation g's file at byte `at`. */
  private place(e: UrlEntry, g: number, at: number): void {
    const id = e.id;
    if (id >= this.state.length) this.grow(id);
    const before = this.stateOf(id);
    if (before !== null) this.tally[before]--;
    const s = e.state as FinalState;
    if (CODE[s] === undefined) throw new JournalReadError(`URL ${id} in a final file is ${e.state}`);
    this.tally[s]++;
    this.gen[id] = g + 1;
    this.at[id] = at;
    this.state[id] = CODE[s];
    this.fetched[id] = e.previous?.fetchedAt ?? Number.POSITIVE_INFINITY;
    this.lastId = Math.max(this.lastId, id);
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
