// Bundles the command line's own compiled modules (dist/cli/main.js and everything of
// dist/ it imports) into one CommonJS file, dist/cli-bundle/main.cjs. Node 20 spends much
// of a one-page crawl's start-up resolving and loading ES modules one by one; the bundle
// makes that one file, and bin/cobweb.js compiles it with V8's code cache
// (src/cli/code-cache.ts), which Node 20 has for scripts but not for ES modules. Each
// command's code still runs only when the command line names it (esbuild keeps an
// import() of a bundled module lazy). The worker threads and the built-in modules still
// load their own files from dist/, which the bundle finds beside it.
//
// esbuild comes with tsx, a dev dependency. Without it the build goes on, and
// bin/cobweb.js runs dist/cli/main.js as it is.
import { createHash } from 'node:crypto';
import { readFile, rm, writeFile } from 'node:fs/promises';
import { dirname, join, relative, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const dist = join(root, 'dist');
const outdir = join(dist, 'cli-bundle');
const outfile = join(outdir, 'main.cjs');

let esbuild;
try {
  esbuild = await import('esbuild');
} catch {
  console.warn('bundle-cli: esbuild is not installed; the command runs from dist/cli/main.js');
  process.exit(0);
}

/**
 * Each module's import.meta.url, as it would be in dist/: the worker threads, the
 * built-in modules, the console's assets and package.json are found relative to it.
 * A CommonJS file has no import.meta; ownUrl (put in after the build, below) makes the
 * URL from the bundle's own folder.
 */
const keepModuleUrls = {
  name: 'keep-module-urls',
  setup(build) {
    build.onLoad({ filter: /\.js$/ }, async (args) => {
      if (!args.path.startsWith(dist + sep)) return undefined;
      const own = relative(outdir, args.path).split(sep).join('/');
      const text = await readFile(args.path, 'utf8');
      return {
        contents: text.replaceAll('import.meta.url', `__cobwebOwnUrl(${JSON.stringify(own)})`),
        loader: 'js',
      };
    });
  },
};

/**
 * undici's HTTP/1.1 client loads its HTTP/2 one at its start, and with it Node.js's
 * http2 module: 10 ms of a one-page crawl, for a protocol spoken only with --http2 to a
 * server that offers it. In the bundle, client.js loads it at its first HTTP/2
 * connection. The line is undici's (pinned): the build stops if it is no longer there.
 */
const UNDICI_H2_LINE = "const connectH2 = require('./client-h2.js')";
const lazyHttp2 = {
  name: 'lazy-http2',
  setup(build) {
    build.onLoad({ filter: /undici[\\/]lib[\\/]dispatcher[\\/]client\.js$/ }, async (args) => {
      const text = await readFile(args.path, 'utf8');
      if (!text.includes(UNDICI_H2_LINE))
        throw new Error(`bundle-cli: ${args.path} no longer has the line "${UNDICI_H2_LINE}"`);
      const lazy = [
        'let clientH2',
        "const connectH2 = (...args) => (clientH2 ??= require('./client-h2.js'))(...args)",
      ].join('\n');
      return { contents: text.replace(UNDICI_H2_LINE, lazy), loader: 'js' };
    });
  },
};

const ownUrl = [
  'var __cobwebOwnUrl = (own) =>',
  '  require("node:url").pathToFileURL(require("node:path").join(__dirname, own)).href;',
].join('\n');

await rm(outdir, { recursive: true, force: true });
await esbuild.build({
  entryPoints: [join(dist, 'cli', 'main.js')],
  outfile,
  bundle: true,
  format: 'cjs',
  platform: 'node',
  target: 'node20',
  // Packages load from node_modules as they would, but those every crawl loads at its
  // start, whose compiled code the cache then keeps too: the HTML parser's (small ES
  // modules, many of them: htmlparser2, domhandler, domutils, entities), commander, and
  // the parts of undici the fetcher takes file by file (src/fetch/undici-parts.ts). Loaded
  // from node_modules, these two took 45 ms of a one-page crawl; bundled (and the bundle
  // read as ASCII), the crawl starts 20 ms sooner.
  // playwright-core too: large, and loaded only by a crawl that renders (src/render).
  external: [
    'better-sqlite3',
    'lmdb',
    'pg',
    'pino',
    'playwright-core',
    'prom-client',
    'tldts',
    'tough-cookie',
    'yaml',
  ],
  plugins: [keepModuleUrls, lazyHttp2],
  logLevel: 'warning',
});

// ownUrl goes after the "use strict" that esbuild puts first (the modules were ES
// modules, strict): a banner would go before it and leave the whole file sloppy.
const built = await readFile(outfile, 'utf8');
const strict = '"use strict";\n';
if (!built.startsWith(strict))
  throw new Error('bundle-cli: esbuild no longer starts the bundle with "use strict"');
// esbuild writes strings and names in ASCII, but comments as they were: escaped here
// too (a comment means the same either way), the bundle is ASCII, and bin/cobweb.js reads
// it into a one-byte string, twice as fast as UTF-8 and half the memory.
const code = `${strict}${ownUrl}\n${built.slice(strict.length)}`.replace(
  /[\u0080-\uffff]/g,
  (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`,
);
// The first line names the bundle by its digest: code cached for one bundle is never
// offered to another (V8 checks a cache against the source's length only).
const digest = createHash('sha256').update(code).digest('hex').slice(0, 32);
await writeFile(outfile, `// cobweb bundle ${digest}\n${code}`);
