import {
  closeSync,
  createReadStream,
  mkdirSync,
  openSync,
  readdirSync,
  readFileSync,
  renameSync,
  statSync,
  truncateSync,
  unlinkSync,
} from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { DataDirBusyError } from '../../errors.js';
import { tryFileLock } from '../../file-lock.js';
import { fsyncDir } from '../../seen/files.js';
import { writeAll } from '../../write-all.js';
import { MemoryFrontier } from '../memory/memory-frontier.js';
import type { FrontierSettings } from '../types.js';
import { type Change, ChangeLog, snapshotChanges } from './change-log.js';
import { JournalFile, syncFd } from './journal-file.js';
import { KeptReader } from './kept-reader.js';
import { UrlFiles } from './url-files.js';

export interface WorkbenchOptions {
  now?: () => number;
  /** The journal is folded into a new snapshot once it is this big (or twice the last snapshot). */
  compactAtBytes?: number;
}

const LOCK = 'workbench.lock';
const DEFAULT_COMPACT_AT = 64 * 1024 * 1024;
/** The URLs whose work is over and the queued ones leave memory for a URL file once this much journal was written since they last did. */
const MOVE_OUT_EVERY = 8 * 1024 * 1024;
/** Changes per snapshot line: lines of a few hundred KB. */
const SNAPSHOT_LINE = 2000;

const snapshotName = (g: number) => `snapshot.${g}.jsonl`;
const journalName = (g: number) => `journal.${g}.jsonl`;

/**
 * The workbench store: the crawl in the memory of one process (the in-memory engine of
 * ../memory, with its heaps of ready hosts), kept on disk the way the fast frontiers
 * keep theirs (BUbiNG's workbench, IRLbot): every call's changes are one line of a
 * journal, written with group commit (journal-file.ts: a call answers once its line is
 * written; the disk is synced within 200 ms), and the journal is folded into a snapshot
 * of the whole state once it has grown past twice the last one (and 64 MiB). Opening
 * reads the newest snapshot and the journals after it: the state of the last call that
 * answered, or a later one.
 * Leases live on through a restart and run out by the clock, as in the SQLite store.
 *
 * A folder holds the newest snapshot, snapshot.g.jsonl (none for 0), and the journals
 * after it, journal.g.jsonl and, while a snapshot is made, journal.(g+1).jsonl.
 * One process at a time (workbench.lock); its seen set is in memory, made again from
 * the URLs on opening. For a cobweb server, whose one process owns the crawl.
 */
export class WorkbenchFrontier extends MemoryFrontier {
  private journal: JournalFile;
  private generation: number;
  private snapshotBytes: number;
  private readonly compactAt: number;
  /** The journal's length when URLs last left memory. */
  private movedAt = 0;
  /** How much journal between two moves of URLs out of memory (a quarter of a snapshot's for a store that snapshots sooner). */
  private readonly moveEvery: number;
  /** The files of generations a snapshot replaced, being deleted. */
  private removals: Promise<void> = Promise.resolve();

  private constructor(
    private readonly dir: string,
    settings: FrontierSettings,
    options: WorkbenchOptions,
    private readonly unlock: () => void,
    log: ChangeLog,
    found: { generation: number; snapshotBytes: number },
    private readonly urlFiles: UrlFiles,
  ) {
    super(settings, options.now, log, urlFiles);
    this.generation = found.generation;
    this.snapshotBytes = found.snapshotBytes;
    this.compactAt = options.compactAtBytes ?? DEFAULT_COMPACT_AT;
    this.moveEvery = Math.min(MOVE_OUT_EVERY, Math.max(1, Math.floor(this.compactAt / 4)));
    this.journal = JournalFile.open(join(dir, journalName(this.generation)));
  }

  static async open(
    dir: string,
    settings: FrontierSettings,
    options: WorkbenchOptions = {},
  ): Promise<WorkbenchFrontier> {
    mkdirSync(dir, { recursive: true });
    const unlock = tryFileLock(join(dir, LOCK));
    if (unlock === null)
      throw new DataDirBusyError(
        `another process has the workbench store ${dir} open; stop it, or use another folder`,
      );
    let store: WorkbenchFrontier | null = null;
    let found: Awaited<ReturnType<typeof readFolder>> | null = null;
    try {
      found = await readFolder(dir, true);
      const kept = found.reader.kept();
      const log = new ChangeLog((line) => (store as WorkbenchFrontier).keep(line), {
        lastId: kept.lastId,
        counters: kept.counters,
      });
      store = new WorkbenchFrontier(dir, settings, options, unlock, log, found, found.urls);
      await store.restore(kept);
      return store;
    } catch (err) {
      await store?.journal.close().catch(() => {});
      found?.urls.close();
      unlock();
      throw err;
    }
  }

  private closing: Promise<void> | null = null;

  override close(): Promise<void> {
    this.closing ??= this.closeOnce();
    return this.closing;
  }

  private async closeOnce(): Promise<void> {
    await super.close();
    await this.journal.close();
    await this.removals;
    this.urlFiles.close();
    this.unlock();
  }

  /**
   * Folds the journal into a snapshot now, as a call of its own between two others
   * (the URLs whose work is over leave memory for a final file), rather than once the
   * journal has grown enough. Resolves once the snapshot is on the disk and counts.
   */
  async snapshotNow(): Promise<void> {
    await this.serial(() => this.compact());
    await this.removals;
  }

  /** One call's line: to the journal, or, once the journal has grown enough, into a snapshot. */
  private keep(line: string): Promise<void> {
    const kept = this.journal.append(line);
    if (this.journal.bytes >= Math.max(this.compactAt, 2 * this.snapshotBytes)) this.compact();
    else if (this.journal.bytes - this.movedAt >= this.moveEvery) this.moveOut();
    return kept;
  }

  /**
   * URLs leave memory for this generation's URL file, between two calls: those whose work
   * is over, and the queued ones (MemoryFrontier.takeQueueTails; a pass over the URLs and
   * the hosts in memory: a few ms for 10^5), every few MB of journal, so that they do not wait
   * in memory for the next snapshot, which comes the more rarely the more URLs are queued.
   */
  private moveOut(): void {
    const out = this.takeFinal();
    for (const e of this.takeQueueTails()) out.push(e);
    this.urlFiles.append(this.generation, out);
    this.movedAt = this.journal.bytes;
  }

  /**
   * Starts generation g+1: the URLs that became final or were queued since URLs last
   * left memory go to urls.g.jsonl (url-files.ts), the rest of the state to
   * snapshot.(g+1).jsonl.tmp, and the calls from now on go to journal.(g+1). It runs
   * between two calls (from a call's commit), so the state is one call's end, and blocks
   * the process while it turns the state into JSON (about a second per 10^6 URLs in
   * memory), which the journal's growth to twice the snapshot pays for. The disk syncs
   * (the final file's, then the snapshot's), the rename that makes the snapshot count and
   * the removal of generation g's snapshot and journal happen after, while calls go on:
   * until the rename, an opening reads snapshot g and journals g and g+1, which hold the
   * same.
   */
  private compact(): void {
    const next = this.generation + 1;
    this.moveOut();
    // Files none of whose lines is current: what they held is in this snapshot, or in a later file.
    const removable = this.urlFiles.removable(this.generation);
    const tmp = join(this.dir, `${snapshotName(next)}.tmp`);
    const fd = openSync(tmp, 'w');
    let bytes = 0;
    try {
      let batch: Change[] = [];
      const flush = () => {
        const data = Buffer.from(`${JSON.stringify(batch)}\n`);
        writeAll(fd, data);
        bytes += data.length;
        batch = [];
      };
      for (const c of snapshotChanges(this.keptState())) {
        batch.push(c);
        if (batch.length >= SNAPSHOT_LINE) flush();
      }
      if (batch.length > 0) flush();
    } catch (err) {
      closeSync(fd);
      throw err;
    }
    const old = this.journal;
    const previous = this.generation;
    this.journal = JournalFile.open(join(this.dir, journalName(next)), old.drained());
    this.generation = next;
    this.movedAt = 0;
    this.snapshotBytes = bytes;
    const dir = this.dir;
    // After the generation before: snapshots count in the order they were made.
    this.removals = this.removals.then(async () => {
      try {
        await this.urlFiles.sync(previous);
        await syncFd(fd);
        renameSync(tmp, join(dir, snapshotName(next)));
        fsyncDir(dir);
        await old.close();
        removeGeneration(dir, previous);
        this.urlFiles.remove(removable);
      } catch {
        // Left as it is: the next opening reads what counts and deletes the rest.
      } finally {
        closeSync(fd);
      }
    });
  }
}

/**
 * What a workbench folder holds: the newest snapshot and the journals after it, read in
 * order, up to the last newline of each (a line a crash tore is not a call that
 * answered). `tidy` (an opening store): the torn bytes are cut off, and the files of
 * older generations and a snapshot left half written are deleted; else nothing is
 * touched. Answers the generation to go on with: the last journal's.
 */
export async function readFolder(
  dir: string,
  tidy: boolean,
): Promise<{ reader: KeptReader; generation: number; snapshotBytes: number; urls: UrlFiles }> {
  const names = readdirSync(dir);
  let snapshot = 0;
  for (const n of names) {
    const m = /^snapshot\.(\d+)\.jsonl$/.exec(n);
    if (m !== null) snapshot = Math.max(snapshot, Number(m[1]));
  }
  const journals: number[] = [];
  for (const n of names) {
    const m = /^(snapshot|journal)\.(\d+)\.jsonl(\.tmp)?$/.exec(n);
    if (m === null) continue;
    const g = Number(m[2]);
    if (g < snapshot || m[3] !== undefined) {
      if (tidy) unlinkSync(join(dir, n));
    } else if (m[1] === 'journal') journals.push(g);
  }
  journals.sort((a, b) => a - b);
  const opened = UrlFiles.open(dir, tidy);
  const reader = new KeptReader(opened.files, opened.fingerprints, opened.files.lastId);
  let snapshotBytes = 0;
  if (snapshot > 0) {
    const file = join(dir, snapshotName(snapshot));
    snapshotBytes = statSync(file).size;
    let n = 0;
    const lines = createInterface({ input: createReadStream(file), crlfDelay: Number.POSITIVE_INFINITY });
    for await (const line of lines) reader.line(line, `${file} line ${++n}`);
  }
  for (const g of journals) {
    const file = join(dir, journalName(g));
    const data = readFileSync(file);
    const end = data.lastIndexOf(10) + 1;
    if (tidy && end < data.length) truncateSync(file, end);
    const text = data.subarray(0, end).toString('utf8');
    let n = 0;
    for (const line of text.split('\n')) if (line.length > 0) reader.line(line, `${file} line ${++n}`);
  }
  return { reader, generation: Math.max(snapshot, ...journals), snapshotBytes, urls: opened.files };
}

function removeGeneration(dir: string, g: number): void {
  for (const name of [journalName(g), snapshotName(g)]) {
    try {
      unlinkSync(join(dir, name));
    } catch {
      // Gone already, or never made (generation 0 has no snapshot).
    }
  }
}
