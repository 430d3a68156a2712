#!/usr/bin/env node
// The installed entry point: the compiled CLI lives in dist/ (built by `npm install` via `prepare`).
import { main } from '../dist/cli/main.js';

main(process.argv).then(
  (code) => {
    process.exitCode = code;
  },
  (err) => {
    process.stderr.write(`cobweb: ${err instanceof Error ? err.message : String(err)}\n`);
    process.exitCode = 1;
  },
);
