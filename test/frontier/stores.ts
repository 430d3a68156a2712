import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openFrontier } from '../../src/frontier/open-store.js';
import type { Frontier, FrontierAdmin, FrontierSettings, LocalFrontier } from '../../src/frontier/types.js';

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
}

/** A store the owner's calls (FrontierAdmin) may be missing from: a server's crawlers do not get them. */
export type AnyFrontier = Frontier & Partial<FrontierAdmin>;

export interface TestStore {
  /** What a child process passes to openFrontier() to reach the store. */
  spec: string;
  /** A handle on the store in this process, with these settings and this clock. */
  open(settings: Partial<FrontierSettings>, now?: () => number): Promise<AnyFrontier>;
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

export const TEST_SETTINGS: FrontierSettings = {
  perHost: 1,
  delayMs: 0,
  delayFactor: 0,
  maxDelayMs: 30_000,
  backoffMs: 1000,
  maxBackoffMs: 60_000,
  retireAfter: 3,
  key: 'host',
  maxPagesPerHost: Number.POSITIVE_INFINITY,
  leaseMs: 60_000,
  maxPages: Number.POSITIVE_INFINITY,
};

export function open(
  spec: string,
  settings: Partial<FrontierSettings>,
  now?: () => number,
): Promise<LocalFrontier> {
  return openFrontier(spec, { ...TEST_SETTINGS, ...settings }, now === undefined ? {} : { now });
}
