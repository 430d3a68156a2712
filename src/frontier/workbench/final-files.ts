import { closeSync, fstatSync, openSync, readdirSync, readSync, unlinkSync } from 'node:fs';
import { join } from 'node:path';
import { fingerprints } from '../../url/fingerprint.js';
import { writeAll } from '../../write-all.js';
import type { FinalUrls } from '../memory/changes.js';
import type { UrlEntry } from '../memory/url-entry.js';
import type { RecordId } from '../types.js';
import { type Change, entryOfChange, urlChange } from './change-log.js';
import { JournalReadError } from './kept-reader.js';

export const finalName = (g: number) => `final.${g}.jsonl`;
const FINAL_FILE = /^final\.(\d+)\.jsonl(\.tmp)?$/;

const STATES = [null, 'done', 'failed', 'refused'] as const;
type FinalState = 'done' | 'failed' | 'refused';
const CODE: Record<FinalState, number> = { done: 1, failed: 2, refused: 3 };

/** A final file written by a snapshot, to be synced and renamed before the snapshot counts. */
export interface WrittenFinals {
  fd: number;
  tmp: string;
  path: string;
}

/**
 * The URLs of a workbench store that are final (done, or failed or refused with their
 * record written), out of memory: each snapshot writes the ones that became final since
 * the last into final.G.jsonl (G its generation), one URL a line, and the engine lets
 * go of them. What stays in memory is a few bytes a URL, by id: which file holds its
 * current line and where, its state, and when it was fetched (--recrawl-after's look
 * for URLs come due needs no disk). So the store's memory follows the URLs it still
 * has work for, not every URL the crawl has met (BUbiNG and IRLbot keep theirs on disk
 * the same way). A URL queued again (requeue, a recrawl) is the engine's again; if it
 * ends once more, a later file holds its new line, and the current one is the one the
 * id points to.
 *
 * A final file counts once the snapshot of its generation does (the snapshot no longer
 * holds those URLs): an opening reads those of generations up to the newest snapshot's
 * and deletes later ones, which a crash left before their snapshot counted.
 */
export class FinalFiles implements FinalUrls {
  private gen = new Uint32Array(1024);
  private at = new Float64Array(1024);
  private state = new Uint8Array(1024);
  private fetched = new Float64Array(1024);
  private readonly fds = new Map<number, number>();
  private readonly tally = { done: 0, failed: 0, refused: 0 };
  /** The highest URL id in the files. */
  lastId = 0;

  private constructor(private readonly dir: string) {}

  /**
   * Reads the final files of `dir` up to generation `upTo` (an opening store's newest
   * snapshot), each whole: what each URL's current line is, and the fingerprints of
   * their URLs for the seen set. `tidy`: later files and half-written ones are deleted.
   */
  static open(dir: string, upTo: number, tidy: boolean): { files: FinalFiles; fingerprints: BigUint64Array } {
    const files = new FinalFiles(dir);
    const generations: number[] = [];
    for (const name of readdirSync(dir)) {
      const m = FINAL_FILE.exec(name);
      if (m === null) continue;
      const g = Number(m[1]);
      if (g > upTo || m[2] !== undefined) {
        if (tidy) unlinkSync(join(dir, name));
      } else generations.push(g);
    }
    generations.sort((a, b) => a - b);
    const urls: string[] = [];
    let prints = new BigUint64Array(0);
    const flushPrints = () => {
      const more = fingerprints(urls);
      const grown = new BigUint64Array(prints.length + more.length);
      grown.set(prints);
      grown.set(more, prints.length);
      prints = grown;
      urls.length = 0;
    };
    try {
      for (const g of generations) {
        const path = join(dir, finalName(g));
        const fd = openSync(path, 'r');
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
      }
      flushPrints();
    } catch (err) {
      files.close();
      throw err;
    }
    return { files, fingerprints: prints };
  }

  stateOf(id: RecordId): FinalState | null {
    return id < this.state.length ? (STATES[this.state[id] as number] ?? null) : null;
  }

  read(id: RecordId): UrlEntry {
    const g = id < this.gen.length ? (this.gen[id] as number) : 0;
    const fd = this.fds.get(g);
    if (g === 0 || fd === undefined) throw new Error(`URL ${id} is not in the final files`);
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
        if (this.gen[e.id] === g) visit(e);
        start = end + 1;
      }
    }
  }

  counts(): { done: number; failed: number; refused: number } {
    return { ...this.tally };
  }

  /**
   * Writes the URLs a snapshot of generation `g` lets go of to final.g.jsonl.tmp, and
   * points their ids at it (the file stays open: it is read by its descriptor, through
   * the rename). The caller syncs and renames it before the snapshot's rename.
   */
  write(g: number, entries: readonly UrlEntry[]): WrittenFinals | null {
    if (entries.length === 0) return null;
    const path = join(this.dir, finalName(g));
    const tmp = `${path}.tmp`;
    const fd = openSync(tmp, 'w+');
    this.fds.set(g, fd);
    let offset = 0;
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
    return { fd, tmp, path };
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
    this.gen[id] = g;
    this.at[id] = at;
    this.state[id] = CODE[s];
    this.fetched[id] = e.previous?.fetchedAt ?? Number.POSITIVE_INFINITY;
    this.lastId = Math.max(this.lastId, id);
  }

  private grow(id: number): void {
    let size = this.state.length;
    while (size <= id) size *= 2;
    const gen = new Uint32Array(size);
    gen.set(this.gen);
    this.gen = gen;
    const at = new Float64Array(size);
    at.set(this.at);
    this.at = at;
    const state = new Uint8Array(size);
    state.set(this.state);
    this.state = state;
    const fetched = new Float64Array(size);
    fetched.set(this.fetched);
    this.fetched = fetched;
  }
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
