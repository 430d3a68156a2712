import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';

// The launcher's bundle loader (bin/cobweb.js): what it runs must be the bundle as it is
// now, whatever the cache folder holds, and a cache it cannot write costs nothing. Each
// start is a process of its own, as a command's is: V8 also keeps what it compiled in
// memory, and within one process would not look at the cache file at all.
const LOADER = join(import.meta.dirname, '../../dist/cli/code-cache.js');
let dir: string;
const argv = ['node', 'cobweb', 'crawl'];

interface Start {
  cache: string;
  cacheFile: string | null;
  answer: number;
  strict: boolean;
}

/**
 * Loads the bundle in a new node, as bin/cobweb.js does, and saves its cache if `save`.
 * With `runFor`, the command runs that long (bounded) or until its cache file is there,
 * saving it only through saveAfter(saveAfterMs), then ends as a command does.
 */
function loadBundle(
  file: string,
  args: string[],
  save = false,
  running?: { runFor: number; saveAfterMs: number },
): Start {
  // A script file, not -e: node's flags name the cache, and -e's text is one of them.
  const script = join(dir, 'start.mjs');
  writeFileSync(
    script,
    `import { existsSync } from 'node:fs';
    const { loadBundle } = await import(${JSON.stringify(LOADER)});
    const [file, args, save, running] = JSON.parse(process.argv[2]);
    const loaded = loadBundle(file, args);
    if (save) loaded.save();
    if (running) {
      loaded.saveAfter(running.saveAfterMs);
      const until = Date.now() + running.runFor;
      while (Date.now() < until && !existsSync(loaded.cacheFile)) await new Promise((r) => setTimeout(r, 20));
    }
    const { answer, strict } = loaded.exports;
    console.log(JSON.stringify({ cache: loaded.cache, cacheFile: loaded.cacheFile, answer: answer(), strict }));`,
  );
  const r = spawnSync(process.execPath, [script, JSON.stringify([file, args, save, running ?? null])], {
    encoding: 'utf8',
  });
  if (r.status !== 0) throw new Error(r.stderr);
  return JSON.parse(r.stdout) as Start;
}

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'cobweb-code-cache-'));
});

afterEach(() => {
  rmSync(dir, { recursive: true, force: true });
});

/** A CommonJS bundle as the build makes it: the stamp line first. */
function writeBundle(stamp: string | null, answer: number): string {
  const file = join(dir, 'main.cjs');
  const body = `"use strict";\nexports.answer = () => ${answer};\nexports.strict = (function () { return this === undefined; })();\n`;
  writeFileSync(file, stamp === null ? body : `// cobweb bundle ${stamp}\n${body}`);
  return file;
}

describe('loadBundle', () => {
  it('compiles without a cache, keeps one when told, and uses it at the next start', () => {
    const file = writeBundle('0123456789abcdef0123', 42);

    const first = loadBundle(file, argv, true);
    expect(first.cache).toBe('absent');
    expect(first.answer).toBe(42);
    expect(first.strict).toBe(true);
    expect(readdirSync(join(dir, 'cache'))).toHaveLength(1);

    const second = loadBundle(file, argv);
    expect(second.cache).toBe('used');
    expect(second.answer).toBe(42);
    expect(second.cacheFile).toBe(first.cacheFile);
  });

  it('keeps the cache of a command still running once its time comes, and holds no short one open for it', () => {
    const file = writeBundle('0123456789abcdef0123', 5);

    // A command that ends first leaves no cache behind, and is not kept waiting.
    const short = loadBundle(file, argv, false, { runFor: 0, saveAfterMs: 600_000 });
    expect(short.cache).toBe('absent');
    expect(readdirSync(dir)).not.toContain('cache');

    // One still running saves it without being told again, and the next start uses it.
    const long = loadBundle(file, argv, false, { runFor: 20_000, saveAfterMs: 50 });
    expect(long.cache).toBe('absent');
    expect(readdirSync(join(dir, 'cache'))).toHaveLength(1);
    expect(loadBundle(file, argv).cache).toBe('used');
  });

  it('runs a damaged cache file as no cache, and writes a good one over it', () => {
    const file = writeBundle('0123456789abcdef0123', 7);
    const made = loadBundle(file, argv);
    mkdirSync(join(dir, 'cache'), { recursive: true });
    writeFileSync(made.cacheFile as string, 'not V8 code at all');

    const damaged = loadBundle(file, argv, true);
    expect(damaged.cache).toBe('rejected');
    expect(damaged.answer).toBe(7);

    expect(loadBundle(file, argv).cache).toBe('used');
  });

  it('never offers a rebuilt bundle the code of the one before, even at the same length', () => {
    loadBundle(writeBundle('0123456789abcdef0123', 1), argv, true);

    const rebuilt = loadBundle(writeBundle('fedcba98765432100123', 2), argv);

    expect(rebuilt.cache).toBe('absent');
    expect(rebuilt.answer).toBe(2);
  });

  it('keeps one cache per command', () => {
    const file = writeBundle('0123456789abcdef0123', 3);
    loadBundle(file, argv, true);

    expect(loadBundle(file, ['node', 'cobweb', 'server']).cache).toBe('absent');
    expect(loadBundle(file, argv).cache).toBe('used');
  });

  it('keeps no cache for a bundle without a stamp', () => {
    const loaded = loadBundle(writeBundle(null, 5), argv, true);

    expect(loaded.cache).toBe('off');
    expect(loaded.answer).toBe(5);
    expect(readdirSync(dir).sort()).toEqual(['main.cjs', 'start.mjs']);
  });

  it('goes on without a cache where it cannot write one', () => {
    const file = writeBundle('0123456789abcdef0123', 9);
    writeFileSync(join(dir, 'cache'), 'a file where the cache folder would be');
    const saved = loadBundle(file, argv, true);

    expect(saved.answer).toBe(9);
    expect(loadBundle(file, argv).cache).toBe('absent');
  });

  it("forgets the caches of other bundles when it writes one, and keeps the other commands'", () => {
    const old = loadBundle(writeBundle('0123456789abcdef0123', 1), argv, true);
    const file = writeBundle('fedcba98765432100123', 2);
    const server = loadBundle(file, ['node', 'cobweb', 'server'], true);

    const crawl = loadBundle(file, argv, true);

    const kept = readdirSync(join(dir, 'cache')).map((name) => join(dir, 'cache', name));
    expect(kept.sort()).toEqual([crawl.cacheFile, server.cacheFile].sort());
    expect(kept).not.toContain(old.cacheFile);
  });
});
