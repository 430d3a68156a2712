import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { MemoryFrontier } from '../../src/frontier/memory/memory-frontier.js';
import { openFrontier } from '../../src/frontier/open-store.js';
import { RemoteFrontier } from '../../src/frontier/remote/remote-frontier.js';
import type { Frontier, FrontierAdmin, FrontierSettings, LocalFrontier } from '../../src/frontier/types.js';
import { WorkbenchFrontier } from '../../src/frontier/workbench/workbench-frontier.js';
import { TEST_SETTINGS } from '../helpers/frontier-settings.js';
import { type PgCluster, postgresUnavailable, startPostgres } from '../helpers/postgres.js';
import { type InProcessServer, startTestServer } from '../helpers/server.js';

/**
 * Every store the contract suite runs against. A kind makes a fresh, empty store for
 * one test and names it with a spec string that openFrontier() (in this process or in
 * a child) understands; the suite itself knows nothing else of the store.
 */
export interface StoreKind {
  name: string;
  /** Why the kind cannot run on this machine, or null. */
  unavailable(): Promise<string | null>;
  /** A fresh store for one test; `dispose` removes it. */
  create(): Promise<TestStore>;
  /** Why only one process at a time may open it (the "several processes" tests do not apply). */
  oneProcess?: string;
  /** Why it keeps nothing once closed (the tests of what a store opened again holds do not apply). */
  forgetsOnClose?: string;
  /** Stops what the kind started for all its stores (after the suite). */
  teardown?(): Promise<void>;
}

/** A store the owner's calls (FrontierAdmin) may be missing from: a server's crawlers do not get them. */
export type AnyFrontier = Frontier & Partial<FrontierAdmin>;

export interface TestStore {
  /** What a child process passes to openFrontier() to reach the store. */
  spec: string;
  /** A handle on the store in this process, with these settings and this clock. */
  open(settings: Partial<FrontierSettings>, now?: () => number): Promise<AnyFrontier>;
  /**
   * The owner's handle on the store behind a handle `open` gave, where that one lacks the
   * owner's calls: a server's own store, behind its remote crawlers.
   */
  owner?(): LocalFrontier;
  dispose(): Promise<void>;
}

export const STORE_KINDS: StoreKind[] = [
  {
    name: 'sqlite',
    async unavailable() {
      return null;
    },
    async create() {
      const dir = mkdtempSync(join(tmpdir(), 'cobweb-store-'));
      const spec = `sqlite:${join(dir, 'frontier.db')}`;
      return {
        spec,
        open: (settings, now) => open(spec, settings, now),
        dispose: async () => rmSync(dir, { recursive: true, force: true }),
      };
    },
  },
];

/**
 * The reference store (src/frontier/memory): one object in this process, durable never.
 * Every handle the test opens is that one object, with the settings and clock of the
 * first open; it has no spec a child process could open.
 */
STORE_KINDS.push({
  name: 'memory',
  oneProcess: 'it lives in the memory of the process that made it',
  forgetsOnClose: 'it lives in memory only',
  async unavailable() {
    return null;
  },
  async create() {
    let store: MemoryFrontier | null = null;
    return {
      spec: 'memory:',
      async open(settings, now) {
        store ??= new MemoryFrontier({ ...TEST_SETTINGS, ...settings }, now);
        return store;
      },
      async dispose() {
        await store?.close();
      },
    };
  },
});

/**
 * A cobweb server on a SQLite store, in this process, reached over TCP like a bunny
 * reaches it: the store the test asks for is the server's, with the test's settings and
 * clock (taken at the first open; the server's store keeps them).
 */
const remoteKind: StoreKind = {
  name: 'remote',
  async unavailable() {
    return null;
  },
  async create() {
    let running: InProcessServer | null = null;
    const remotes: RemoteFrontier[] = [];
    const port = () => {
      if (running === null) throw new Error('open the remote store before asking for its spec');
      return running.port;
    };
    return {
      get spec() {
        return `cobweb://127.0.0.1:${port()}`;
      },
      async open(settings, now) {
        running ??= await startTestServer({
          settings: { ...TEST_SETTINGS, ...settings },
          ...(now === undefined ? {} : { now }),
        });
        const f = new RemoteFrontier({ host: '127.0.0.1', port: port() });
        remotes.push(f);
        return f;
      },
      owner() {
        if (running === null) throw new Error('open the remote store before asking for its owner');
        return running.store;
      },
      async dispose() {
        for (const f of remotes) await f.close();
        await running?.dispose();
      },
    };
  },
};

STORE_KINDS.push(remoteKind);

// The embedded store with each seen set it can hold beside its file (sqlite+KIND:FILE).
for (const seen of ['memory', 'bloom', 'lmdb', 'drum']) {
  STORE_KINDS.push({
    name: `sqlite+${seen}`,
    oneProcess: `its ${seen} seen set is held by the one process that opened the store`,
    async unavailable() {
      return null;
    },
    async create() {
      const dir = mkdtempSync(join(tmpdir(), `cobweb-store-${seen}-`));
      const spec = `sqlite+${seen}:${join(dir, 'frontier.db')}`;
      return {
        spec,
        open: (settings, now) => open(spec, settings, now),
        dispose: async () => rmSync(dir, { recursive: true, force: true }),
      };
    },
  });
}

/**
 * The workbench store (src/frontier/workbench): one process's memory and a journal in a
 * folder. The handles a test opens are one object until it is closed; opened again, it
 * reads its folder back. Once by its spec (a snapshot every 64 MiB of journal: none in
 * a test), once folding its journal into a snapshot every 2 KB, so that URLs leave
 * memory for the final files in nearly every call and the owner's calls (findStored,
 * requeue, recrawls) find them there.
 */
for (const compactAtBytes of [undefined, 1]) {
  STORE_KINDS.push({
    name: compactAtBytes === undefined ? 'workbench' : 'workbench, compacting',
    oneProcess: 'it lives in the memory of the process that opened it',
    async unavailable() {
      return null;
    },
    async create() {
      const dir = mkdtempSync(join(tmpdir(), 'cobweb-store-workbench-'));
      const spec = `workbench:${join(dir, 'workbench')}`;
      let current: AnyFrontier | null = null;
      return {
        spec,
        async open(settings, now) {
          if (current !== null) return current;
          const f =
            compactAtBytes === undefined
              ? await open(spec, settings, now)
              : await WorkbenchFrontier.open(
                  join(dir, 'workbench'),
                  { ...TEST_SETTINGS, ...settings },
                  { compactAtBytes, ...(now === undefined ? {} : { now }) },
                );
          const close = f.close.bind(f);
          f.close = async () => {
            if (current === f) current = null;
            await close();
          };
          current = f;
          return f;
        },
        async dispose() {
          await current?.close();
          rmSync(dir, { recursive: true, force: true });
        },
      };
    },
  });
}

/**
 * PostgreSQL: one throwaway cluster for the suite (started at the first store), a new
 * database for every test; child processes open it by its connection string.
 */
let cluster: Promise<PgCluster> | null = null;
STORE_KINDS.push({
  name: 'postgres',
  async unavailable() {
    return postgresUnavailable();
  },
  async create() {
    cluster ??= startPostgres();
    const spec = await (await cluster).createDatabase();
    const handles: LocalFrontier[] = [];
    return {
      spec,
      async open(settings, now) {
        const f = await open(spec, settings, now);
        handles.push(f);
        return f;
      },
      async dispose() {
        for (const f of handles) await f.close();
      },
    };
  },
  async teardown() {
    const running = cluster;
    cluster = null;
    await (await running)?.stop();
  },
});

export { TEST_SETTINGS };

export function open(
  spec: string,
  settings: Partial<FrontierSettings>,
  now?: () => number,
): Promise<LocalFrontier> {
  return openFrontier(spec, { ...TEST_SETTINGS, ...settings }, now === undefined ? {} : { now });
}
