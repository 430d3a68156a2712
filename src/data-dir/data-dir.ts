import {
  accessSync,
  closeSync,
  constants,
  openSync,
  readdirSync,
  readSync,
  rmdirSync,
  rmSync,
  statSync,
} from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { userInfo } from 'node:os';
import { dirname, join } from 'node:path';
import Database from 'better-sqlite3';
import { DataDirBusyError, DataDirError } from '../errors.js';
import { tryFileLock } from '../file-lock.js';
import { MODULE_NAME } from '../modules/api.js';
import { CRAWLS_FOLDER, type DataLayout } from './layout.js';
import { readMarker } from './marker.js';

/**
 * What a run killed between taking the lock and writing the marker can leave, and the
 * folders of named crawls (crawls/, made by `cobweb crawl --crawl NAME` in a new folder):
 * still an empty folder for the default crawl.
 */
const NOT_YET_A_CRAWL = new Set(['cobweb.lock', 'cobweb.lock-journal', CRAWLS_FOLDER]);

/** WARC files as WarcWriter names them (prefix 'cobweb'). */
const OWN_WARC = /^cobweb-\d{17}-\d{5,}-\d+\.warc\.gz$/;

/**
 * Whether `--data` may be used, before anything in it is touched: a folder that does not
 * exist yet, an empty one, or one with cobweb's marker, which must be one this cobweb
 * reads (readMarker). A file, a path under a file, a folder holding anything else, or a
 * cobweb.json that is not a readable marker is refused (DataDirError): cobweb neither
 * mixes its files into a folder it did not make nor deletes from one.
 */
export function checkDataDir(layout: DataLayout): 'new' | 'cobweb' {
  let entries: string[];
  try {
    if (!statSync(layout.root).isDirectory()) {
      throw new DataDirError(
        `--data ${layout.root} is a file, not a folder; give --data a new folder, or one cobweb made`,
      );
    }
    entries = readdirSync(layout.root);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') {
      checkWritable(layout.root, existingAbove(layout.root));
      return 'new';
    }
    if (code === 'ENOTDIR') {
      throw new DataDirError(
        `--data ${layout.root} is under ${fileAbove(layout.root)}, a file, not a folder; give --data a new folder, or one cobweb made`,
      );
    }
    throw err;
  }
  checkWritable(layout.root, layout.root);
  if (entries.includes('cobweb.json')) {
    readMarker(layout);
    return 'cobweb';
  }
  if (entries.every((e) => NOT_YET_A_CRAWL.has(e))) return 'new';
  throw new DataDirError(
    `--data ${layout.root} is not empty and has no cobweb.json, so cobweb did not make it; give --data a new or empty folder`,
  );
}

/**
 * Whether cobweb may make and write files in `folder` (the --data folder, or for one not
 * made yet the folder it would be made in), asked before anything is written: a folder on
 * a read-only file system, or one this user may not write, would otherwise fail deep
 * inside the store with a message that names neither.
 */
function checkWritable(root: string, folder: string): void {
  try {
    accessSync(folder, constants.W_OK | constants.X_OK);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    const made = folder === root ? '' : ` (it would be made in ${folder})`;
    const why =
      code === 'EROFS'
        ? 'is on a read-only file system'
        : code === 'EACCES' || code === 'EPERM'
          ? `cannot be written by this user (${userInfo().username})`
          : `cannot be written (${(err as Error).message})`;
    throw new DataDirError(`--data ${root}${made} ${why}; give --data a folder cobweb may write to`);
  }
}

/** The nearest folder above a path that does not exist yet: where mkdir would make it. */
function existingAbove(path: string): string {
  for (let at = dirname(path); ; at = dirname(at)) {
    try {
      statSync(at);
      return at;
    } catch {
      if (at === dirname(at)) return at;
    }
  }
}

/** The file a path runs into (stat said ENOTDIR): the nearest folder above it that is not one. */
function fileAbove(path: string): string {
  for (let at = dirname(path); at !== dirname(at); at = dirname(at)) {
    try {
      if (!statSync(at).isDirectory()) return at;
    } catch {
      // further up, then
    }
  }
  return path;
}

/** Folders locked by this process: POSIX locks do not conflict within one process. */
const lockedHere = new Set<string>();

/** Tries to take a lock before saying the folder is busy: two crawls starting at the same moment can both miss once. */
const LOCK_TRIES = 5;
const LOCK_RETRY_MS = 20;

/**
 * One crawl per data folder: two writers would interleave pages.jsonl and fight over
 * the store. The lock is on `cobweb.lock` (file-lock.ts: dropped with the process,
 * however it ends). Resolves to the function releasing it.
 */
export async function lockDataDir(layout: DataLayout): Promise<() => void> {
  const busy = () =>
    new DataDirBusyError(
      `--data ${layout.root} is in use by another cobweb crawl; wait for it to end, stop it, or use another --data folder`,
    );
  if (lockedHere.has(layout.root)) throw busy();
  try {
    await mkdir(layout.root, { recursive: true });
  } catch (err) {
    throw new DataDirError(`--data ${layout.root} cannot be made: ${(err as Error).message}`);
  }
  for (let attempt = 1; ; attempt++) {
    const release = tryFileLock(layout.lock);
    if (release === null) {
      if (attempt === LOCK_TRIES) throw busy();
      await new Promise((r) => setTimeout(r, LOCK_RETRY_MS));
      continue;
    }
    lockedHere.add(layout.root);
    return () => {
      lockedHere.delete(layout.root);
      release();
    };
  }
}

/**
 * --fresh: deletes what cobweb wrote (the store, pages.jsonl, report.html, its WARC files, and the
 * modules' outputs the marker lists: `moduleData`), only in a folder with cobweb's
 * marker, and only under the lock. Anything else in the folder, or in warc/ and data/,
 * stays, a `.jsonl` of the user's in data/ too.
 */
export function clearCrawl(layout: DataLayout, moduleData: readonly string[]): void {
  if (checkDataDir(layout) !== 'cobweb') return;
  const store = [layout.store, `${layout.store}-wal`, `${layout.store}-shm`];
  for (const f of [
    ...store,
    layout.pages,
    layout.refused,
    layout.sites,
    `${layout.sites}-wal`,
    `${layout.sites}-shm`,
    layout.oldSites,
    layout.log,
    layout.passes,
    layout.report,
  ]) {
    rmSync(f, { force: true });
  }
  // The store's seen set (src/frontier/sqlite/seen-gate.ts): its files and its lock.
  rmSync(`${layout.store}-seen`, { recursive: true, force: true });
  rmSync(layout.workbench, { recursive: true, force: true });
  removeOwn(layout.warc, (name) => OWN_WARC.test(name));
  // A name from the marker is only ever a plain file name in data/ (a hand-edited one included).
  const own = new Set(moduleData.filter((n) => MODULE_NAME.test(n)).map((n) => `${n}.jsonl`));
  removeOwn(layout.moduleData, (name) => own.has(name));
}

function removeOwn(dir: string, own: (name: string) => boolean): void {
  let entries: string[];
  try {
    entries = readdirSync(dir);
  } catch {
    return; // not there: nothing to delete
  }
  for (const name of entries) if (own(name)) rmSync(join(dir, name), { force: true });
  try {
    rmdirSync(dir); // only if nothing else is left in it
  } catch {
    // someone else's files are in it: it stays
  }
}

const SQLITE_HEADER = 'SQLite format 3\0';

/**
 * A frontier.db that is not a cobweb store (another program's database, a damaged or
 * truncated file) is refused with its path, before the store opens it and writes to it.
 */
export function checkStore(layout: DataLayout): void {
  let size: number;
  try {
    size = statSync(layout.store).size;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return;
    throw err;
  }
  const notOurs = (why: string) =>
    new DataDirError(
      `${layout.store} is not a cobweb store (${why}); move it out of the way, or start over with --fresh`,
    );
  if (size === 0) return; // created, killed before the first commit: SQLite fills it in
  const head = Buffer.alloc(SQLITE_HEADER.length);
  const fd = openSync(layout.store, 'r');
  try {
    readSync(fd, head, 0, head.length, 0);
  } finally {
    closeSync(fd);
  }
  if (head.toString('latin1') !== SQLITE_HEADER) throw notOurs('not an SQLite database');
  let db: Database.Database | null = null;
  try {
    db = new Database(layout.store, { fileMustExist: true, timeout: 0 });
    const tables = new Set(
      (db.prepare(`SELECT name FROM sqlite_master WHERE type = 'table'`).all() as { name: string }[]).map(
        (t) => t.name,
      ),
    );
    if (!tables.has('meta') || !tables.has('urls')) throw notOurs('an SQLite database without its tables');
  } catch (err) {
    if (err instanceof DataDirError) throw err;
    throw notOurs((err as Error).message);
  } finally {
    db?.close();
  }
}
