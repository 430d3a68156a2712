import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { bundleWorkers, cacheDir } from './helpers/bundled-child.js';

/**
 * Once per test run: the worker modules the tests start most, bundled, so that a
 * worker started from the sources does not load tsx and compile its modules first
 * (src/worker.ts). The test files' processes inherit the folder's name.
 */
export default async function setup(): Promise<() => void> {
  mkdirSync(cacheDir, { recursive: true });
  const dir = mkdtempSync(join(cacheDir, 'cobweb-test-workers-'));
  await bundleWorkers(dir);
  process.env.COBWEB_TEST_WORKERS = dir;
  return () => rmSync(dir, { recursive: true, force: true });
}
