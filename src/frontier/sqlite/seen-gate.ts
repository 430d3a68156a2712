import { mkdirSync, rmSync } from 'node:fs';
import { join, resolve } from 'node:path';
import Database from 'better-sqlite3';
import { CobwebError } from '../../errors.js';
import { fileLockHeld, tryFileLock } from '../../file-lock.js';
import { openSeenSet, SEEN_KINDS, type SeenKind } from '../../seen/open.js';
import type { SeenSet } from '../../seen/types.js';
import { fingerprints } from '../../url/fingerprint.js';

/** The seen set a store keeps beside its file, and how it is sized. */
export interface StoreSeenOptions {
  kind: SeenKind;
  /** bloom's n; memory's starting size (at least the URLs the store holds). */
  capacity?: number;
  /** bloom's false-positive rate at `capacity`. */
  fpRate?: number;
  /** drum: fingerprints gathered per merge. */
  bufferSize?: number;
  /** drum: longest a check waits for its merge to start. */
  maxWaitMs?: number;
}

/** The store's own `seen` table (shared by every process on the file): the meta value when no set is kept beside it. */
export const TABLE_SEEN = 'table';

/** The folder beside a store file where its seen set keeps its files and its lock. */
export function seenDirOf(file: string): string {
  return `${resolve(file)}-seen`;
}

/** Files a strategy left in the folder, removed when a store switches to it from another (they are stale). */
const FILES_OF: Record<SeenKind, readonly string[]> = {
  memory: ['seen.memory'],
  bloom: ['seen.bloom'],
  lmdb: ['seen.lmdb', 'seen.lmdb-lock'],
  drum: ['seen.drum', 'seen.drum-journal', 'seen.drum-flushed', 'seen.drum.tmp'],
};

/**
 * drum's longest wait for a merge to start, in a store: short, because a crawl's
 * completions wait for their answers, and it costs little, since a merge that is
 * running makes the next batch gather meanwhile (the larger the set, the longer the
 * merge, the larger the batch).
 */
export const STORE_DRUM_WAIT_MS = 50;

/** URLs read from the store per insertNew() while rebuilding. */
const REPLAY_CHUNK = 1 << 20;

/** Longest that marks of committed rows wait for a flush while asks keep coming (see ask()). */
const MAX_UNFLUSHED_MS = 1000;

/** The store's seen set is held by another process. */
export class SeenSetBusyError extends CobwebError {
  override name = 'SeenSetBusyError';
  readonly code = 'COBWEB_SEEN_SET_BUSY';
}

/**
 * A store's seen set when it is not the store's own table: memory, bloom, lmdb or drum,
 * kept by one process (the one running the crawl or the server) beside the store file.
 *
 * The rule it keeps: a URL the set holds is always queued, done or recorded in the
 * store, whatever crashes. The order that gives it:
 *
 * 1. `ask()` marks the fingerprints and answers which are new (drum answers late);
 * 2. the store commits the rows of the new ones (the caller's transaction, which may
 *    be a group commit a turn of the event loop later);
 * 3. `committed()` says so; once no ask is left without its commit, the set is flushed,
 *    which makes the marks durable, and the last row number it covered is written to
 *    the store's meta (`seen_through`).
 *
 * A set's durable marks are exactly its flushed ones (src/seen's contract), so a kill
 * before 3 leaves the set without marks the store has: at open, the rows past
 * `seen_through` are fed to the set again, and nothing is queued twice. memory and bloom
 * live in memory only, so they are rebuilt from every row at each open.
 *
 * One process holds the set (an exclusive lock in its folder); the handles of one
 * process on one file share one gate.
 */
export class SeenGate {
  private users = 1;
  private flushing: Promise<void> = Promise.resolve();
  private failure: Error | null = null;
  /** Asks made whose rows have not committed (or failed) yet: a flush now would cover their marks. */
  private open = 0;
  /** Marks of committed rows not flushed yet: since when (null: none). */
  private unflushedSince: number | null = null;
  /** Asks held back until the open ones commit, so that a flush comes (see ask()). */
  private heldAsks: (() => void)[] = [];
  private idleWaiters: (() => void)[] = [];
  private closed: Promise<void> | null = null;

  /**
   * Whether the set answers from memory (memory, bloom): asking it costs a fingerprint
   * and a probe, less than the recent-URL cache's string set (link-inserts.ts).
   */
  get inMemory(): boolean {
    return this.kind === 'memory' || this.kind === 'bloom';
  }

  private constructor(
    readonly file: string,
    readonly kind: SeenKind,
    private readonly persistent: boolean,
    private readonly set: SeenSet,
    private readonly db: Database.Database,
    private readonly unlock: () => void,
  ) {}

  /**
   * The gate of this process for `file`, opened (and reconciled with the store) on first
   * use. `say` hears what a resumed store changed: another strategy, a rebuild.
   */
  static async acquire(
    file: string,
    options: StoreSeenOptions,
    say: (line: string) => void,
  ): Promise<SeenGate> {
    const key = resolve(file);
    const open = GATES.get(key);
    if (open !== undefined) {
      const gate = await open;
      if (gate.kind !== options.kind) {
        throw new Error(
          `${file} is open in this process with the ${gate.kind} seen set; close it before opening it with ${options.kind}`,
        );
      }
      gate.users++;
      return gate;
    }
    const opening = SeenGate.open(key, options, say);
    GATES.set(key, opening);
    try {
      return await opening;
    } catch (err) {
      GATES.delete(key);
      throw err;
    }
  }

  private static async open(
    file: string,
    options: StoreSeenOptions,
    say: (line: string) => void,
  ): Promise<SeenGate> {
    const dir = seenDirOf(file);
    mkdirSync(dir, { recursive: true });
    const unlock = lockSeenDir(dir, file);
    const db = new Database(file);
    try {
      db.pragma('busy_timeout = 10000');
      const meta = (key: string) =>
        (db.prepare(`SELECT value FROM meta WHERE key = ?`).pluck().get(key) as string | undefined) ?? null;
      const before = meta('seen') ?? TABLE_SEEN;
      const rows = db.prepare(`SELECT count(*) FROM urls`).pluck().get() as number;
      const { kind } = options;
      const persistent = kind === 'lmdb' || kind === 'drum';
      if (before !== kind) {
        // What this strategy left from an earlier run is older than the store: start it empty.
        for (const name of FILES_OF[kind]) rmSync(join(dir, name), { force: true, recursive: true });
      }
      if (before !== kind && rows > 0) {
        say(
          `the store's seen set was ${before === TABLE_SEEN ? 'its own table' : before}; this run uses ${kind}: it is filled from the store's ${rows} ${rows === 1 ? 'URL' : 'URLs'}`,
        );
      }
      if (kind === 'bloom' && options.capacity !== undefined && rows > options.capacity) {
        say(
          `warning: --seen-capacity ${options.capacity} is below the ${rows} URLs the store holds: the bloom filter will lose far more than --seen-fp-rate of new URLs`,
        );
      }
      const set = await openSeenSet(kind, {
        ...(persistent ? { dir } : {}),
        capacity:
          kind === 'memory'
            ? Math.max(options.capacity ?? 0, Math.ceil(rows * 1.25), 1024)
            : options.capacity,
        fpRate: options.fpRate,
        bufferSize: options.bufferSize,
        maxWaitMs: options.maxWaitMs ?? STORE_DRUM_WAIT_MS,
      });
      // Rows past what the set is known to hold (all of them unless it kept its files).
      const through = persistent && before === kind ? Number(meta('seen_through') ?? 0) : 0;
      const gate = new SeenGate(file, kind, persistent, set, db, unlock);
      await gate.replay(through);
      db.prepare(`INSERT OR REPLACE INTO meta (key, value) VALUES ('seen', ?)`).run(kind);
      return gate;
    } catch (err) {
      db.close();
      unlock();
      throw err;
    }
  }

  /** Feeds the rows past `after` to the set, then flushes them and notes how far it holds. */
  private async replay(after: number): Promise<void> {
    const page = this.db.prepare(`SELECT seq, url FROM urls WHERE seq > ? ORDER BY seq LIMIT ?`);
    let last = after;
    for (;;) {
      const rows = page.all(last, REPLAY_CHUNK) as { seq: number; url: string }[];
      if (rows.length === 0) break;
      const asked = this.set.insertNew(fingerprints(rows.map((r) => r.url)));
      // drum would wait for a full buffer or its timer: the store is all there is to read.
      if ('mergeNow' in this.set) await (this.set as { mergeNow(): Promise<void> }).mergeNow();
      await asked;
      last = (rows[rows.length - 1] as { seq: number }).seq;
    }
    await this.set.flush();
    this.noteThrough(last);
  }

  /**
   * Which of the URLs are new, marking them seen. Every ask is followed by committed()
   * or failed() once the caller's transaction with its rows is over, even when nothing
   * was new.
   *
   * While calls keep coming, some ask is always open and the set would never flush: once
   * its committed marks have waited MAX_UNFLUSHED_MS, new asks wait until the open ones
   * have committed and the flush is made, so what a kill makes the next open replay
   * stays bounded.
   */
  async ask(urls: readonly string[]): Promise<boolean[]> {
    if (this.failure !== null) throw this.failure;
    if (
      this.unflushedSince !== null &&
      this.open > 0 &&
      Date.now() - this.unflushedSince > MAX_UNFLUSHED_MS
    ) {
      await new Promise<void>((resolve) => this.heldAsks.push(resolve));
      if (this.failure !== null) throw this.failure;
    }
    this.open++;
    if (urls.length === 0) return [];
    try {
      return await this.set.insertNew(fingerprints(urls));
    } catch (err) {
      this.settled();
      throw err;
    }
  }

  /**
   * The rows of an ask's new URLs (if any) are committed. When no ask is left open,
   * every mark the set holds has its row: the flush is made now, before anything else
   * can be asked.
   */
  committed(anyNew = true): void {
    if (anyNew && this.unflushedSince === null) this.unflushedSince = Date.now();
    this.settled();
  }

  /**
   * The commit of an ask's rows failed. If it had new URLs, the set holds marks the
   * store lacks: it is never flushed again by this process (the next open replays from
   * the last good flush), and every later ask() fails, so that no URL is taken for seen
   * and dropped.
   */
  failed(err: unknown, anyNew = true): void {
    if (anyNew) {
      this.failure ??= new Error(
        `the store could not write links its ${this.kind} seen set had marked (${err instanceof Error ? err.message : String(err)}); reopen the store to go on`,
      );
    }
    this.settled();
  }

  /** One ask is over; the last one open lets the flush (and the asks held for it) go. */
  private settled(): void {
    this.open--;
    if (this.open > 0) return;
    if (this.unflushedSince !== null && this.failure === null) {
      this.unflushedSince = null;
      void this.flushNow();
    }
    for (const go of this.heldAsks.splice(0)) go();
    for (const go of this.idleWaiters.splice(0)) go();
  }

  /** Resolves once no ask is open (every answer given has its commit, or its failure). */
  private whenIdle(): Promise<void> {
    if (this.open === 0) return Promise.resolve();
    return new Promise((resolve) => this.idleWaiters.push(resolve));
  }

  private flushNow(): Promise<void> {
    // memory and bloom keep nothing on disk (they are filled from the rows at each open):
    // there is nothing to flush, nor a row number worth noting.
    if (this.failure !== null || !this.persistent) return this.flushing;
    // Every row up to here was committed after its ask() was answered: the flush covers it.
    const through = (this.db.prepare(`SELECT max(seq) FROM urls`).pluck().get() as number | null) ?? 0;
    const flushed = this.set.flush();
    this.flushing = this.flushing
      .then(() => flushed)
      .then(() => this.noteThrough(through))
      .catch((err: unknown) => this.failed(err));
    return this.flushing;
  }

  private noteThrough(seq: number): void {
    this.db.prepare(`INSERT OR REPLACE INTO meta (key, value) VALUES ('seen_through', ?)`).run(String(seq));
  }

  /** Fingerprints the set holds (bloom: an estimate). */
  get size(): number {
    return this.set.size;
  }

  /** The set's own figures, when it has them (bloom's fill and estimated rate). */
  stats(): Record<string, unknown> | null {
    const s = this.set as { stats?: () => object };
    return typeof s.stats === 'function' ? { ...s.stats() } : null;
  }

  /**
   * The boundary of a crawl pass: every ask() made before it has its answer (drum merges
   * what waits at once; the others answer at once), the rows of those answers have
   * committed, and the set is flushed, with `seen_through` noted: at the boundary the
   * set on disk covers every URL of the store, so a kill there replays nothing.
   */
  async settle(): Promise<void> {
    if ('mergeNow' in this.set) await (this.set as { mergeNow(): Promise<void> }).mergeNow();
    // The commits of the answers given so far run first (as in close()).
    await this.whenIdle();
    await this.flushNow();
    if (this.failure !== null) throw this.failure;
  }

  /** One handle lets go; the last one flushes and closes the set. */
  release(): Promise<void> {
    if (--this.users > 0) return Promise.resolve();
    this.closed ??= this.close();
    return this.closed;
  }

  private async close(): Promise<void> {
    GATES.delete(this.file);
    try {
      // Let the commits of the answers given so far run before the last flush.
      await this.whenIdle();
      await this.flushNow();
      // After a failed commit the set holds marks the store lacks, and closing it would
      // flush them: it is left to end with the process, and the next open replays.
      if (this.failure === null) await this.set.close();
    } finally {
      this.db.close();
      this.unlock();
    }
  }
}

/** This process's gates, by store file. */
const GATES = new Map<string, Promise<SeenGate>>();

/** The file in a seen set's folder whose lock says which process holds the set. */
const SEEN_LOCK = 'seen.lock';

/**
 * One process holds a store's seen set: a lock on `seen.lock` in its folder (file-lock.ts),
 * which the system drops with the process however it ends.
 */
function lockSeenDir(dir: string, file: string): () => void {
  const release = tryFileLock(join(dir, SEEN_LOCK));
  if (release === null) {
    throw new SeenSetBusyError(
      `the seen set of ${file} is held by another process (the crawl or server using it); stop it, or reach the crawl through its server`,
    );
  }
  return release;
}

/** Whether another process holds the store's seen set now (its lock is taken). */
export function seenSetHeld(file: string): boolean {
  // POSIX locks do not conflict within one process: this process's own gates first.
  if (GATES.has(resolve(file))) return true;
  return fileLockHeld(join(seenDirOf(file), SEEN_LOCK));
}

export function isSeenKind(value: string): value is SeenKind {
  return (SEEN_KINDS as readonly string[]).includes(value);
}
