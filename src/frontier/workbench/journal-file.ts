import { close, fdatasync, fstatSync, openSync } from 'node:fs';
import { promisify } from 'node:util';
import { writeAll } from '../../write-all.js';

/** fdatasync(2), off the event loop. */
export const syncFd = promisify(fdatasync);
const closeFd = promisify(close);

/** How often lines written since the last sync are synced to the disk. */
const SYNC_EVERY_MS = 200;

/**
 * One append-only journal file, written with group commit: the lines appended in one run
 * of synchronous work (the write comes a microtask later) go to the file in one write,
 * so a busy store makes one write for many calls. append() resolves once its line is
 * written to the file (it is in the kernel's hands: a killed process loses nothing), and
 * the lines written are synced to the disk together at most SYNC_EVERY_MS later, on close
 * and before a snapshot replaces the file: the SQLite store's guarantee (WAL,
 * synchronous = NORMAL), where an OS crash or a power cut may lose the last moment's
 * calls, without a disk sync in every call's wait.
 */
export class JournalFile {
  private pending: string[] = [];
  private waiters: { resolve: () => void; reject: (err: Error) => void }[] = [];
  private flushing: Promise<void> | null = null;
  private failed: Error | null = null;
  /** Written and not synced yet. */
  private unsynced = false;
  private syncTimer: NodeJS.Timeout | null = null;
  /** Bytes in the file, those being written included. */
  bytes: number;

  private constructor(
    private readonly fd: number,
    /** Nothing is written before this resolves (the journal before it has written its lines). */
    private readonly after: Promise<void>,
  ) {
    this.bytes = fstatSync(fd).size;
  }

  /**
   * Opens `path` to append to, made if missing (at once: a snapshot switches files
   * between two calls). `after`: its lines wait for it, so that no line of this file is
   * on the disk before the lines of the journal it follows.
   */
  static open(path: string, after: Promise<void> = Promise.resolve()): JournalFile {
    return new JournalFile(openSync(path, 'a'), after);
  }

  /** Resolves once every line appended so far is written (or its write failed). */
  async drained(): Promise<void> {
    while (this.flushing !== null) await this.flushing;
  }

  append(line: string): Promise<void> {
    if (this.failed !== null) return Promise.reject(this.failed);
    this.pending.push(line);
    this.bytes += Buffer.byteLength(line) + 1;
    const done = new Promise<void>((resolve, reject) => this.waiters.push({ resolve, reject }));
    this.flushing ??= this.flush();
    return done;
  }

  /** Waits for the write under way, syncs what was written, then closes the file. */
  async close(): Promise<void> {
    while (this.flushing !== null) await this.flushing;
    if (this.syncTimer !== null) clearTimeout(this.syncTimer);
    this.syncTimer = null;
    if (this.unsynced && this.failed === null) await syncFd(this.fd);
    await closeFd(this.fd);
  }

  private scheduleSync(): void {
    this.unsynced = true;
    this.syncTimer ??= setTimeout(() => {
      this.syncTimer = null;
      this.unsynced = false;
      syncFd(this.fd).catch((err: Error) => {
        this.failed ??= err;
      });
    }, SYNC_EVERY_MS).unref();
  }

  private async flush(): Promise<void> {
    try {
      // Every line appended until the journal before this one has written its lines (at
      // once, for the first journal: the rest of this turn's synchronous work) goes in
      // this one write; a line appended after it starts the next.
      await this.after;
      const lines = this.pending;
      const waiters = this.waiters;
      this.pending = [];
      this.waiters = [];
      try {
        // On this thread: a write to the page cache costs some 6 µs here, where handing
        // it to libuv's pool and taking its answer back cost 40 (24 of them this thread's).
        writeAll(this.fd, `${lines.join('\n')}\n`);
      } catch (err) {
        // A journal that could not be written keeps nothing more: every later call fails.
        this.failed = err as Error;
        for (const w of waiters) w.reject(this.failed);
        return;
      }
      this.scheduleSync();
      for (const w of waiters) w.resolve();
    } finally {
      this.flushing = null;
    }
  }
}
