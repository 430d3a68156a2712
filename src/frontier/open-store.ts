import { CobwebError } from '../errors.js';
import { PostgresFrontier } from './postgres/postgres-frontier.js';
import { RemoteFrontier } from './remote/remote-frontier.js';
import { isSeenKind } from './sqlite/seen-gate.js';
import { SqliteFrontier } from './sqlite/sqlite-frontier.js';
import type { Frontier, FrontierSettings, LocalFrontier } from './types.js';
import { WorkbenchFrontier } from './workbench/workbench-frontier.js';

/** A store named on the command line (--store) is not one cobweb can open. */
export class StoreSpecError extends CobwebError {
  override name = 'StoreSpecError';
  readonly code = 'COBWEB_STORE_SPEC';
}

export interface OpenOptions {
  /** The store's clock (tests move it by hand). */
  now?: () => number;
  /** PostgreSQL: the crawl in the database (--crawl); default 'default'. */
  crawl?: string;
}

/** `postgres://USER[:PASSWORD]@HOST[:PORT]/DB`: the PostgreSQL store. */
export function isPostgresSpec(spec: string): boolean {
  return /^postgres(ql)?:\/\//i.test(spec);
}

/** A server's address as a spec: `cobweb://HOST:PORT`. */
const SERVER_SPEC = /^cobweb:\/\/(\[[^\]]+\]|[^:/]+):(\d{1,5})\/?$/;

/**
 * The frontier a spec names, for a crawling process: a store (see openFrontier), or
 * `cobweb://HOST:PORT`, a cobweb server (the token from COBWEB_TOKEN when it needs one).
 */
export async function openCrawlerFrontier(
  spec: string,
  settings: FrontierSettings,
  options: OpenOptions = {},
): Promise<Frontier> {
  const server = SERVER_SPEC.exec(spec);
  if (server === null) return openFrontier(spec, settings, options);
  const host = (server[1] as string).replace(/^\[|\]$/g, '');
  return new RemoteFrontier({
    host,
    port: Number(server[2]),
    token: process.env.COBWEB_TOKEN,
    name: 'bunny',
  });
}

/** `sqlite+KIND:FILE`: the embedded store with a seen set (memory, bloom, lmdb, drum) that this process holds. */
const SQLITE_WITH_SEEN = /^sqlite\+([a-z]+):(.+)$/;

/**
 * Opens the store a spec names: `sqlite:FILE` (or a plain file path), the embedded
 * store every crawling process on this machine may share; `sqlite+KIND:FILE`, the
 * same store with a seen set only the opening process holds; `workbench:DIR`, the
 * crawl in one process's memory with a journal in DIR; or `postgres://...`, a
 * PostgreSQL database that processes on many machines share.
 */
export async function openFrontier(
  spec: string,
  settings: FrontierSettings,
  options: OpenOptions = {},
): Promise<LocalFrontier> {
  if (isPostgresSpec(spec)) {
    return PostgresFrontier.open(spec, settings, {
      ...(options.now === undefined ? {} : { now: options.now }),
      ...(options.crawl === undefined ? {} : { crawl: options.crawl }),
    });
  }
  const withSeen = SQLITE_WITH_SEEN.exec(spec);
  if (withSeen !== null) {
    const kind = withSeen[1] as string;
    if (!isSeenKind(kind))
      throw new StoreSpecError(`unknown seen set "${kind}" in "${spec}": use memory, bloom, lmdb or drum`);
    return SqliteFrontier.open(withSeen[2] as string, settings, { now: options.now, seen: { kind } });
  }
  if (spec.startsWith('workbench:'))
    return WorkbenchFrontier.open(spec.slice('workbench:'.length), settings, { now: options.now });
  if (spec.startsWith('sqlite:'))
    return new SqliteFrontier(spec.slice('sqlite:'.length), settings, options.now);
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(spec)) {
    throw new StoreSpecError(
      `unknown store "${spec}": expected sqlite:FILE, workbench:DIR, postgres://USER@HOST/DB, or cobweb://HOST:PORT for a server`,
    );
  }
  return new SqliteFrontier(spec, settings, options.now);
}
