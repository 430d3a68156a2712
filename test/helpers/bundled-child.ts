import { mkdirSync, readFileSync, rmSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { type BuildOptions, build, type Plugin } from 'esbuild';

const repoDir = resolve(import.meta.dirname, '..', '..');
/** Inside the repository, so that the bundle's imports of packages resolve from its node_modules. */
export const cacheDir = join(repoDir, 'node_modules', '.cache');
/**
 * The test run's folder (test/global-setup.ts), which goes when the run ends, even if a
 * test file's process is killed first; a file run on its own, without the setup, one of
 * its own.
 */
const outDir = () => process.env.COBWEB_TEST_WORKERS || join(cacheDir, 'cobweb-test-children');
const built = new Map<string, Promise<string[]>>();

/**
 * The arguments that start a TypeScript child script (a crash test's victim, a
 * crawling process of the contract suite) on bare node: `[script.mjs]`, its sources
 * bundled into one file the first time this test file asks. Started with `--import
 * tsx` instead, every child spent some 0.7 CPU seconds compiling and loading the
 * sources before its first line, and crash tests start dozens of them on a
 * suite that is bound by the CPU of two cores. The packages stay outside the bundle,
 * loaded as the script would load them; each module keeps its own import.meta.url, so
 * that what it finds beside itself (a worker thread's module) is found as from the
 * sources.
 */
export function bundledChild(tsPath: string): Promise<string[]> {
  let args = built.get(tsPath);
  if (args === undefined) {
    mkdirSync(outDir(), { recursive: true });
    const name = tsPath.split('/').at(-1)?.replace(/\.ts$/, '') ?? 'child';
    const out = join(outDir(), `child-${name}-${process.pid}-${built.size}.mjs`);
    process.once('exit', () => rmSync(out, { force: true }));
    args = build({ ...BUNDLE, entryPoints: [tsPath], outfile: out }).then(() => [out]);
    built.set(tsPath, args);
  }
  return args;
}

/**
 * The worker modules the tests start most (the drum seen set's, the parse pool's, the
 * WARC thread's), bundled into `dir` as NAME.mjs, for src/worker.ts to start from when
 * COBWEB_TEST_WORKERS names `dir`. The modules' thread loads modules the tests name, in
 * TypeScript: it keeps tsx.
 */
export async function bundleWorkers(dir: string): Promise<void> {
  const entries = ['src/seen/drum-worker.ts', 'src/bunny/parse-worker.ts', 'src/output/warc-worker.ts'];
  await build({
    ...BUNDLE,
    entryPoints: entries.map((e) => join(repoDir, e)),
    outdir: dir,
    outExtension: { '.js': '.mjs' },
    entryNames: '[name]',
  });
}

/** Each of the repository's own modules sees its source file as its import.meta.url and dirname. */
const ownModuleUrls: Plugin = {
  name: 'own-module-urls',
  setup(build) {
    build.onLoad({ filter: /\.ts$/ }, (args) => {
      if (!args.path.startsWith(repoDir) || args.path.includes('node_modules')) return undefined;
      const source = readFileSync(args.path, 'utf8')
        .replaceAll('import.meta.url', JSON.stringify(pathToFileURL(args.path).href))
        .replaceAll('import.meta.dirname', JSON.stringify(dirname(args.path)));
      return { contents: source, loader: 'ts' };
    });
  },
};

/** One ES module of the repository's own code for node 20, the packages loaded from node_modules as they are. */
const BUNDLE: BuildOptions = {
  bundle: true,
  platform: 'node',
  format: 'esm',
  target: 'node20',
  packages: 'external',
  plugins: [ownModuleUrls],
  logLevel: 'error',
};
