#!/bin/sh
//bin/true 2>/dev/null; export MALLOC_ARENA_MAX="${MALLOC_ARENA_MAX:-2}"; exec node --max-semi-space-size=8 "$0" "$@"
// The two lines above are read by sh and by node. sh runs the second (//bin/true is
// /bin/true, or nothing where there is none: its errors go nowhere) and so starts node
// on this file with the settings below, which only a process's start can set, 3 to 4 ms
// later than node alone; node takes the line for a comment. An `env -S` first line
// would say it more plainly, but BusyBox's env (Alpine, the node:alpine images) has no
// -S and would start nothing. `cobweb`, `npx cobweb` and the benchmark run them;
// `node bin/cobweb.js` runs without them. They are for memory, which --concurrency
// bounds, not the pages crawled (docs/architecture.md, "Memory of a crawling process").
// Measured on the realistic web: the same CPU with or without them, and a 200,000-page
// crawl peaked at 293 MB with both, 364 without:
// - --max-semi-space-size=8: the crawl's thread keeps its young generation at 16 MiB,
//   not V8's 32: most of its garbage (pages, links, answers) dies young either way. At
//   4 MiB its 64 fetches in flight outlived each collection more often and were copied:
//   on the small web its thread took some 3% more CPU, on the realistic the same.
//   The flag is cleared below once this thread's heap is made: V8 lets a flag set
//   override the young generation each worker thread asks for (src/worker.ts);
// - MALLOC_ARENA_MAX=2 (unless set already): the C library's allocator keeps two pools
//   of memory, not one per thread (about a dozen here: node's, the parse worker, WARC,
//   SQLite), each keeping what was freed in it.
// The installed entry point: the compiled CLI lives in dist/ (built by `npm install` via
// `prepare`), bundled into dist/cli-bundle/main.cjs when the build had esbuild (it loads
// faster, and is compiled with the code V8 kept from the last start: src/cli/code-cache.ts).
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { setFlagsFromString } from 'node:v8';

// undici parses HTTP with llhttp, a WebAssembly module. V8 recompiles its hot functions
// with its optimizing compiler on a background thread after a small budget, which a
// one-page crawl already spends, and the process cannot exit before that compile is
// over: 150 to 250 ms of a one-page crawl's 0.55 s, and a core kept busy. With a larger
// budget (set before undici loads) a short command never starts that compile, and a long
// crawl still gets it within its first pages.
setFlagsFromString('--wasm-tiering-budget=20000000');

// The semi-space flag above sized this thread's heap, made already; cleared, it leaves
// each worker thread the young generation it asks for (the parse workers 24 MiB, the
// WARC thread 6), which the flag would otherwise override with its own.
setFlagsFromString('--max-semi-space-size=0');

// After each full collection V8 lets a heap's old generation grow to some multiple of
// what survived, up to 4 on a busy thread, before it collects again. The crawl's thread
// and the parse workers keep little (some 20 MB each) and promote much that dies soon:
// on the realistic web their old generations held 50 MB each, two thirds of it garbage
// waiting. Twice what survived bounds that: the crawl's peak RSS fell from 249 to 205
// MB for some 2% more CPU (V8 reads the factor at each collection, in every thread).
setFlagsFromString('--heap-growing-percent=100');

const bundle = fileURLToPath(new URL('../dist/cli-bundle/main.cjs', import.meta.url));
let main;
let saveCodeCache = () => {};
if (existsSync(bundle)) {
  const { loadBundle } = await import('../dist/cli/code-cache.js');
  const loaded = loadBundle(bundle, process.argv);
  // import() inside the bundle has no loader of its own (see src/modules/import-module.ts).
  loaded.exports.setModuleImporter((url) => import(url));
  main = loaded.exports.main;
  saveCodeCache = loaded.save;
  // A long command's cache is taken a second in, before V8 drops its start's bytecode.
  loaded.saveAfter(1000);
} else {
  ({ main } = await import('../dist/cli/main.js'));
}

/** Resolves once what was written to the stream so far is out of the process (a pipe may lag). */
const drained = (stream) => new Promise((resolve) => stream.write('', resolve));

// Once the command is over, the process exits at once: left to end by itself, it would
// first wait for V8's background work (compiling, collecting), which does nothing for
// the user and, on a busy machine, took a tenth of a second and more.
main(process.argv).then(
  async (code) => {
    saveCodeCache();
    await Promise.all([drained(process.stdout), drained(process.stderr)]);
    process.exit(code);
  },
  (err) => {
    process.stderr.write(`cobweb: ${err instanceof Error ? err.message : String(err)}\n`);
    process.exitCode = 1;
  },
);
