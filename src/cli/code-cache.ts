// Loads the command line's bundle (a CommonJS file made by scripts/bundle-cli.js) with
// V8's code cache: the bytecode compiled for it in an earlier start, kept in a file
// beside it. Node.js 20 has no compile cache of its own (module.enableCompileCache came
// with 22), and compiling the bundle's code at every start was a tenth of a one-page
// crawl. Only bin/cobweb.js uses this; it stays out of the bundle it loads.

import { isAscii } from 'node:buffer';
import {
  closeSync,
  mkdirSync,
  openSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  writeSync,
} from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { Script } from 'node:vm';

/** The line the build puts first in the bundle: a digest of everything after it. */
const STAMP = /^\/\/ cobweb bundle ([0-9a-f]{16,64})\n/;

export type CacheUse = 'used' | 'rejected' | 'absent' | 'off';

export interface LoadedBundle<T> {
  exports: T;
  /**
   * What the code cache did at this start: 'used'; 'rejected' by V8 (another node, other
   * flags: compiled anew); 'absent'; 'off' (the bundle carries no stamp).
   */
  cache: CacheUse;
  /** The cache file this start reads and writes (null when 'off'). */
  cacheFile: string | null;
  /**
   * Keeps the code compiled so far for the next start, unless this start used the cache
   * or saved it already. Call it when the command is over: the cache then holds what the
   * command ran, not only what loading ran. Never throws: a folder that cannot be written
   * means no cache.
   */
  save(): void;
  /**
   * Saves after `ms` unless the command is over by then (an unref'd timer): a long
   * command's cache is taken while the code its start ran is still compiled. V8 drops
   * the bytecode of functions a long run no longer calls, and a cache made at the end of
   * a 20-second crawl held 609 KB against a one-page crawl's 975, and started a one-page
   * crawl 40 ms slower (336 ms against 295, 15 interleaved starts).
   */
  saveAfter(ms: number): void;
}

/**
 * Runs a CommonJS bundle as require() would, compiled with the code cache kept for this
 * bundle, this node and this command. A cache is V8's to check: it refuses one made by
 * another V8 or with other flags. It does not compare the source, only its length, so the
 * cache file is named by the bundle's digest: a rebuilt bundle never meets an old cache.
 */
export function loadBundle<T>(file: string, argv: readonly string[]): LoadedBundle<T> {
  const bytes = readFileSync(file);
  // The build writes the bundle in ASCII: read as Latin-1 it is the same text, as a
  // one-byte string, decoded faster than UTF-8 is.
  const source = bytes.toString(isAscii(bytes) ? 'latin1' : 'utf8');
  const stamp = STAMP.exec(source)?.[1];
  const cacheFile = stamp === undefined ? null : join(dirname(file), 'cache', cacheName(stamp, argv));
  let cached: Buffer | undefined;
  if (cacheFile !== null) {
    try {
      cached = readFileSync(cacheFile);
    } catch {
      cached = undefined;
    }
  }
  const wrapped = `(function (exports, require, module, __filename, __dirname) {${source}\n})`;
  const script = new Script(wrapped, { filename: file, cachedData: cached });
  const module = { exports: {} as T };
  const run = script.runInThisContext() as (...args: unknown[]) => void;
  run.call(module.exports, module.exports, createRequire(file), module, file, dirname(file));
  const cache: CacheUse =
    cacheFile === null
      ? 'off'
      : cached === undefined
        ? 'absent'
        : script.cachedDataRejected
          ? 'rejected'
          : 'used';
  // What is left to save: nothing when this start used the cache or keeps none.
  let toSave = cache === 'used' ? null : cacheFile;
  const save = () => {
    if (toSave === null) return;
    const file = toSave;
    toSave = null;
    writeAtomically(file, () => script.createCachedData());
    pruneOthers(file);
  };
  return {
    exports: module.exports,
    cache,
    cacheFile,
    save,
    saveAfter: (ms) => {
      if (toSave !== null) setTimeout(save, ms).unref();
    },
  };
}

/**
 * One cache per bundle, node, machine kind, command and set of node flags: the code a
 * crawl compiles is not what --help compiles, and a cache made under other flags would be
 * refused (and then written over) at every other start.
 */
function cacheName(stamp: string, argv: readonly string[]): string {
  const command = /^[a-z]{1,20}$/.test(argv[2] ?? '') ? argv[2] : '-';
  const flags = `${process.execArgv.join(' ')}|${process.env.NODE_OPTIONS ?? ''}`;
  return `${stamp.slice(0, 16)}-${process.version}-${process.arch}-${command}-${fnv1a(flags)}.bin`;
}

/** FNV-1a, 32 bits, in hex: a short name for a set of flags, not a defence against anyone. */
function fnv1a(text: string): string {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h.toString(16).padStart(8, '0');
}

/**
 * Written beside and renamed into place, so two starts at once never read half a file.
 * The data is made only once the file could be opened: where nothing can be written (a
 * package installed by another user), a start spends nothing on it.
 */
function writeAtomically(file: string, data: () => Buffer): void {
  const temporary = `${file}.${process.pid}.tmp`;
  try {
    mkdirSync(dirname(file), { recursive: true });
    const fd = openSync(temporary, 'w');
    try {
      writeSync(fd, data());
    } finally {
      closeSync(fd);
    }
    renameSync(temporary, file);
  } catch {
    try {
      rmSync(temporary, { force: true });
    } catch {
      // Nothing was written, or nothing can be: the next start compiles anew.
    }
  }
}

/**
 * Forgets the caches of other bundles and other nodes, which no start will use again
 * (an upgrade of either leaves them behind): the folder holds at most one file per
 * command and set of flags. Another start's file being written is left alone.
 */
function pruneOthers(kept: string): void {
  const folder = dirname(kept);
  const name = kept.slice(folder.length + 1);
  const current = name.slice(0, name.indexOf(`-${process.arch}-`));
  try {
    for (const other of readdirSync(folder)) {
      if (!other.startsWith(current) && other.endsWith('.bin')) rmSync(join(folder, other), { force: true });
    }
  } catch {
    // A folder that cannot be read or cleaned keeps its files: they are only unused.
  }
}
