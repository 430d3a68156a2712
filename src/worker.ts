import { createRequire } from 'node:module';
import { pathToFileURL } from 'node:url';
import { Worker } from 'node:worker_threads';

/**
 * Starts a worker thread on one of cobweb's own modules, given as a URL relative to
 * the caller (`new URL('./x-worker.js', import.meta.url)`).
 *
 * From dist/ that is plain JavaScript. The tests run the TypeScript sources, where the
 * sibling file is `x-worker.ts` and Node 20 cannot load it: `--import tsx` in a
 * worker's execArgv does not reach the worker's entry module, so the worker is started
 * from a two-line bootstrap that registers tsx (a dev dependency) first.
 */
export function startWorker(moduleUrl: URL, workerData: unknown): Worker {
  if (!import.meta.url.endsWith('.ts')) return new Worker(moduleUrl, { workerData });
  const source = new URL(moduleUrl.href.replace(/\.js$/, '.ts'));
  const tsxApi = pathToFileURL(
    createRequire(import.meta.url)
      .resolve('tsx/esm/api')
      .replace(/\.cjs$/, '.mjs'),
  );
  const bootstrap = `import(${JSON.stringify(tsxApi.href)})
    .then((tsx) => { tsx.register(); return import(${JSON.stringify(source.href)}); })
    .catch((err) => { console.error(err); process.exit(1); });`;
  return new Worker(bootstrap, { eval: true, workerData });
}
