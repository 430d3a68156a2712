import { mkdirSync, readFileSync, rmSync, unlinkSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';

/** Where everything of one crawl lives under --data. */
export interface DataLayout {
  root: string;
  store: string;
  pages: string;
  warc: string;
  /** Where modules' emitted records go, one file per module. */
  moduleData: string;
  lock: string;
}

export function layoutOf(dir: string): DataLayout {
  const root = resolve(dir);
  return {
    root,
    store: join(root, 'frontier.db'),
    pages: join(root, 'pages.jsonl'),
    warc: join(root, 'warc'),
    moduleData: join(root, 'data'),
    lock: join(root, 'cobweb.lock'),
  };
}

/** --fresh: the store and the outputs go; anything else the user put in the folder stays. */
export function clearCrawl(layout: DataLayout): void {
  for (const f of [layout.store, `${layout.store}-wal`, `${layout.store}-shm`, layout.pages]) {
    rmSync(f, { force: true });
  }
  rmSync(layout.warc, { recursive: true, force: true });
  rmSync(layout.moduleData, { recursive: true, force: true });
}

export class DataDirBusyError extends Error {}

/**
 * One crawl process per data folder: two writers would interleave pages.jsonl and fight
 * over the store. A lock left by a killed process (its pid is gone) is taken over, which
 * is what makes `kill -9` then the same command resume at once.
 */
export function lockDataDir(layout: DataLayout): () => void {
  mkdirSync(layout.root, { recursive: true });
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      writeFileSync(layout.lock, `${process.pid}\n`, { flag: 'wx' });
      return () => {
        try {
          if (readFileSync(layout.lock, 'utf8').trim() === String(process.pid)) unlinkSync(layout.lock);
        } catch {
          // already gone
        }
      };
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
      const holder = Number.parseInt(readFileSync(layout.lock, 'utf8'), 10);
      if (Number.isInteger(holder) && holder !== process.pid && isAlive(holder)) {
        throw new DataDirBusyError(
          `${layout.root} is in use by another cobweb process (pid ${holder}); wait for it, stop it, or use another --data folder`,
        );
      }
      rmSync(layout.lock, { force: true });
    }
  }
  throw new DataDirBusyError(`could not lock ${layout.root}; another cobweb may be starting there`);
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}
