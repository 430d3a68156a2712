import { mkdirSync, mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import type { TestProject } from 'vitest/node';
import { bundleWorkers, cacheDir } from './helpers/bundled-child.js';

/**
 * Once per test run: the worker modules the tests start most, bundled, so that a
 * worker started from the sources does not load tsx and compile its modules first
 * (src/worker.ts). The test files' processes inherit the folder's name. In watch mode
 * they are bundled again before each rerun, so a changed source is never run stale.
 */
export default async function setup(project: TestProject): Promise<() => void> {
  mkdirSync(cacheDir, { recursive: true });
  removeLeftovers();
  const dir = mkdtempSync(join(cacheDir, 'cobweb-test-workers-'));
  await bundleWorkers(dir);
  process.env.COBWEB_TEST_WORKERS = dir;
  project.onTestsRerun(() => bundleWorkers(dir));
  return () => rmSync(dir, { recursive: true, force: true });
}

/** The folders of runs killed before their teardown, a day old or more (a run going on now keeps its own). */
function removeLeftovers(): void {
  for (const name of readdirSync(cacheDir)) {
    if (!name.startsWith('cobweb-test-workers-')) continue;
    const path = join(cacheDir, name);
    if (Date.now() - statSync(path).mtimeMs > 86_400_000) rmSync(path, { recursive: true, force: true });
  }
}
