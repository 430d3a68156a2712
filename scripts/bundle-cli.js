// Bundles the command line's own compiled modules (dist/cli/main.js and everything of
// dist/ it imports) into a few files in dist/cli-bundle/, one for what every command
// needs and one for each command's code, loaded when the command line names it. Node 20
// spends most of a one-page crawl's start-up resolving and loading modules one by one;
// the bundle makes that a handful. The worker threads and the built-in modules still
// load their own files from dist/, which the bundle finds beside it.
//
// esbuild comes with tsx, a dev dependency. Without it the build goes on, and
// bin/cobweb.js runs dist/cli/main.js as it is.
import { readFile, rm } from 'node:fs/promises';
import { dirname, join, relative, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const dist = join(root, 'dist');
const outdir = join(dist, 'cli-bundle');

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
 * In the bundle, import.meta.url is the bundle file's, one folder below dist/.
 */
const keepModuleUrls = {
  name: 'keep-module-urls',
  setup(build) {
    build.onLoad({ filter: /\.js$/ }, async (args) => {
      if (!args.path.startsWith(dist + sep)) return undefined;
      const own = relative(outdir, args.path).split(sep).join('/');
      const text = await readFile(args.path, 'utf8');
      return {
        contents: text.replaceAll('import.meta.url', `new URL(${JSON.stringify(own)}, import.meta.url).href`),
        loader: 'js',
      };
    });
  },
};

await rm(outdir, { recursive: true, force: true });
await esbuild.build({
  entryPoints: [join(dist, 'cli', 'main.js')],
  outdir,
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  // Packages load from node_modules as they would, but the HTML parser's: small ES
  // modules, many of them (htmlparser2, domhandler, domutils, entities).
  external: [
    'better-sqlite3',
    'commander',
    'lmdb',
    'pg',
    'pino',
    'prom-client',
    'tldts',
    'tough-cookie',
    'undici',
    'yaml',
  ],
  plugins: [keepModuleUrls],
  logLevel: 'warning',
});
