import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { pathToFileURL } from 'node:url';
import type * as WorkerThreads from 'node:worker_threads';
import type { ResourceLimits, Worker } from 'node:worker_threads';

/**
 * A worker's young generation when its caller names none, in MiB (three semi-spaces of
 * 4 MiB). Left to itself V8 grows a worker's to 48 MiB; the threads that name none (the
 * modules' thread, drum's) make garbage that dies young. `bin/cobweb.js` starts node
 * with a larger semi-space for the crawl's own thread, then clears that flag, since a
 * flag set would override every worker's own limit.
 */
const DEFAULT_YOUNG_GENERATION_MB = 12;

/**
 * Starts a worker thread on one of cobweb's own modules, given as a URL relative to
 * the caller (`new URL('./x-worker.js', import.meta.url)`).
 *
 * From dist/ that is plain JavaScript. The tests run the TypeScript sources, where the
 * sibling file is `x-worker.ts` and Node 20 cannot load it: `--import tsx` in a
 * worker's execArgv does not reach the worker's entry module, so the worker is started
 * from a two-line bootstrap that registers tsx (a dev dependency) first. That costs a
 * thread some 0.45 CPU seconds before its first line; a test run bundles the workers
 * it starts most once (test/global-setup.ts) and names their folder in
 * COBWEB_TEST_WORKERS, where a worker with a bundle starts from it.
 */
export function startWorker(moduleUrl: URL, workerData: unknown, resourceLimits?: ResourceLimits): Worker {
  // Loaded at the first thread, not at start: a short crawl starts none (0.7 ms).
  const { Worker } = createRequire(import.meta.url)('node:worker_threads') as typeof WorkerThreads;
  const limits = {
    resourceLimits: { maxYoungGenerationSizeMb: DEFAULT_YOUNG_GENERATION_MB, ...resourceLimits },
  };
  if (!import.meta.url.endsWith('.ts')) return new Worker(moduleUrl, { workerData, ...limits });
  const source = new URL(moduleUrl.href.replace(/\.js$/, '.ts'));
  const bundled = bundledWorker(source);
  if (bundled !== null) return new Worker(bundled, { workerData, ...limits });
  const tsxApi = pathToFileURL(
    createRequire(import.meta.url)
      .resolve('tsx/esm/api')
      .replace(/\.cjs$/, '.mjs'),
  );
  const bootstrap = `import(${JSON.stringify(tsxApi.href)})
    .then((tsx) => { tsx.register(); return import(${JSON.stringify(source.href)}); })
    .catch((err) => { console.error(err); process.exit(1); });`;
  return new Worker(bootstrap, { eval: true, workerData, ...limits });
}

/** The bundle a test run made of the worker module `source` (a .ts file), if any. */
function bundledWorker(source: URL): URL | null {
  const dir = process.env.COBWEB_TEST_WORKERS;
  if (dir === undefined || dir === '') return null;
  const name = source.pathname.split('/').at(-1)?.replace(/\.ts$/, '.mjs') ?? '';
  const file = `${dir}/${name}`;
  return existsSync(file) ? pathToFileURL(file) : null;
}

/** Where one buffer sits inside a packed batch. */
export interface Span {
  offset: number;
  length: number;
}

/**
 * Copies buffers into one fresh ArrayBuffer, to be moved (transferred) to a thread in
 * one piece. Posting Buffers one by one costs far more: each small Buffer is a window
 * on an 8 KiB pool, and structured cloning copies the whole pool every time.
 */
export function packBuffers(buffers: readonly Uint8Array[]): { packed: ArrayBuffer; spans: Span[] } {
  let size = 0;
  for (const b of buffers) size += b.length;
  const packed = new Uint8Array(size);
  const spans: Span[] = [];
  let offset = 0;
  for (const b of buffers) {
    packed.set(b, offset);
    spans.push({ offset, length: b.length });
    offset += b.length;
  }
  return { packed: packed.buffer, spans };
}

/** The buffers to move with a message, each once (naming one twice throws). */
export function transferOf(items: readonly { buffer: ArrayBuffer }[]): ArrayBuffer[] {
  return [...new Set(items.map((item) => item.buffer))];
}

/** A view (no copy) of one span of a packed batch, as a Buffer. */
export function unpack(packed: ArrayBuffer, span: Span): Buffer {
  return Buffer.from(packed, span.offset, span.length);
}
