#!/usr/bin/env node
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
