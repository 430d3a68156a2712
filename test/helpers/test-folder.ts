import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach } from 'vitest';
import { routes, serve, type TestServer } from './http.js';

export interface FolderAndSites {
  /** This test's folder (a new one for every test). */
  readonly dir: string;
  /** A routes() site on a loopback address, closed after the test. */
  site(address: string, table: Parameters<typeof routes>[0]): Promise<TestServer>;
}

/**
 * A fresh folder per test and sites closed after it: what the crawl harness and the
 * server-process harness both stand on. `before` runs first at each test's end (say,
 * to stop processes still using the folder). Call once at the top level of a test file.
 */
export function folderAndSites(name: string, before?: () => void): FolderAndSites {
  let dir = '';
  const sites: TestServer[] = [];
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), `cobweb-${name}-`));
  });
  afterEach(async () => {
    before?.();
    for (const s of sites.splice(0)) await s.close();
    rmSync(dir, { recursive: true, force: true });
  });
  return {
    get dir() {
      return dir;
    },
    async site(address, table) {
      const s = await serve(address, routes(table));
      sites.push(s);
      return s;
    },
  };
}
