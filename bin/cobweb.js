#!/usr/bin/env -S MALLOC_ARENA_MAX=2 node --max-semi-space-size=4
// How node runs the crawler, for its memory: bounded by --concurrency, not by the pages
// crawled (docs/architecture.md, "Memory of a crawling process"). Only this line can set
// these, before node starts; `cobweb`, `npx cobweb` and the benchmark run it, and
// `node bin/cobweb.js` runs without them. Measured on the realistic web: the same CPU
// with or without them, and a 200,000-page crawl peaked at 293 MB with both, 364 without:
// - --max-semi-space-size=4: the crawl's thread keeps its young generation at 8 MiB,
//   not V8's 32: its garbage (pages, links, answers) dies young either way;
// - MALLOC_ARENA_MAX=2: the C library's allocator keeps two pools of memory, not one per
//   thread (about a dozen here: the threads of node, the parse worker, WARC, SQLite),
//   whose freed memory it kept apart and did not give back.
// The installed entry point: the compiled CLI lives in dist/ (built by `npm install` via
// `prepare`), bundled into dist/cli-bundle/ when the build had esbuild (it loads faster).
import { existsSync } from 'node:fs';
import { setFlagsFromString } from 'node:v8';

// undici parses HTTP with llhttp, a WebAssembly module. V8 recompiles its hot functions
// with its optimizing compiler on a background thread after a small budget, which a
// one-page crawl already spends, and the process cannot exit before that compile is
// over: 150 to 250 ms of a one-page crawl's 0.55 s, and a core kept busy. With a larger
// budget (set before undici loads) a short command never starts that compile, and a long
// crawl still gets it within its first pages.
setFlagsFromString('--wasm-tiering-budget=20000000');

const bundled = new URL('../dist/cli-bundle/main.js', import.meta.url);
const { main } = await import(existsSync(bundled) ? bundled.href : '../dist/cli/main.js');

/** Resolves once what was written to the stream so far is out of the process (a pipe may lag). */
const drained = (stream) => new Promise((resolve) => stream.write('', resolve));

// Once the command is over, the process exits at once: left to end by itself, it would
// first wait for V8's background work (compiling, collecting), which does nothing for
// the user and, on a busy machine, took a tenth of a second and more.
main(process.argv).then(
  async (code) => {
    await Promise.all([drained(process.stdout), drained(process.stderr)]);
    process.exit(code);
  },
  (err) => {
    process.stderr.write(`cobweb: ${err instanceof Error ? err.message : String(err)}\n`);
    process.exitCode = 1;
  },
);
