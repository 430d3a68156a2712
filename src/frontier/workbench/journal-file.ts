import { close, fdatasync, fstatSync, openSync, write } from 'node:fs';
import { promisify } from 'node:util';

const writeFd = promisify(write);
const syncFd = promisify(fdatasync);
const closeFd = promisify(close);

/**
 * One append-only journal file, written with group commit: lines appended while a write
 * and its fdatasync are under way wait together for the next one, so a busy store syncs
 * the disk once for many calls (one sync per group, as SQLite's group commit and
 * BUbiNG's journals do). append() resolves once its line is on the disk.
 */
export class JournalFile {
  private pending: string[] = [];
  private waiters: { resolve: () => void; reject: (err: Error) => void }[] = [];
  private flushing: Promise<void> | null = null;
  private failed: Error | null = null;
  /** Bytes in the file, those being written included. */
  bytes: number;

  private constructor(private readonly fd: number) {
    this.bytes = fstatSync(fd).size;
  }

  /** Opens `path` to append to, made if missing (at once: a snapshot switches files between two calls). */
  static open(path: string): JournalFile {
    return new JournalFile(openSync(path, 'a'));
  }

  append(line: string): Promise<void> {
    if (this.failed !== null) return Promise.reject(this.failed);
    this.pending.push(line);
    this.bytes += Buffer.byteLength(line) + 1;
    const done = new Promise<void>((resolve, reject) => this.waiters.push({ resolve, reject }));
    this.flushing ??= this.flush();
    return done;
  }

  /**
   * Lines not written yet are not: a snapshot holds what they say. Their callers are
   * answered once `kept` (the snapshot's own sync) resolves.
   */
  dropPending(kept: Promise<void>): void {
    const waiters = this.waiters;
    this.pending = [];
    this.waiters = [];
    kept.then(
      () => {
        for (const w of waiters) w.resolve();
      },
      (err: Error) => {
        for (const w of waiters) w.reject(err);
      },
    );
  }

  /** Waits for the write under way, then closes the file. */
  async close(): Promise<void> {
    while (this.flushing !== null) await this.flushing;
    await closeFd(this.fd);
  }

  private async flush(): Promise<void> {
    try {
      while (this.pending.length > 0) {
        const lines = this.pending;
        const waiters = this.waiters;
        this.pending = [];
        this.waiters = [];
        try {
          const data = Buffer.from(`${lines.join('\n')}\n`);
          for (let at = 0; at < data.length; ) {
            const { bytesWritten } = await writeFd(this.fd, data, at, data.length - at);
            at += bytesWritten;
          }
          await syncFd(this.fd);
        } catch (err) {
          // A journal that could not be written keeps nothing more: every later call fails.
          this.failed = err as Error;
          for (const w of [...waiters, ...this.waiters]) w.reject(this.failed);
          this.pending = [];
          this.waiters = [];
          return;
        }
        for (const w of waiters) w.resolve();
      }
    } finally {
      this.flushing = null;
    }
  }
}
