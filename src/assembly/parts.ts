import { existsSync } from 'node:fs';
import { resolve as resolvePath } from 'node:path';
import { type LinkRules, linkRulesFrom } from '../bunny/links.js';
import { checkStore } from '../data-dir/data-dir.js';
import type { DataLayout } from '../data-dir/layout.js';
import { DataDirError, ModuleLoadError } from '../errors.js';
import { NotAStoreError } from '../frontier/sqlite/schema.js';
import type { StoreSeenOptions } from '../frontier/sqlite/seen-gate.js';
import { SqliteFrontier } from '../frontier/sqlite/sqlite-frontier.js';
import type { FrontierSettings } from '../frontier/types.js';
import { WorkbenchFrontier } from '../frontier/workbench/workbench-frontier.js';
import { BUILTIN_MODULES } from '../modules/builtin/index.js';
import { ModuleHost } from '../modules/module-host.js';
import type { LogLevel, Settings } from '../options/options.js';

// The parts every start-up puts together: the modules, the link rules, the embedded store.

/** canonicalize -> filter's rules, from the options: scope (around the seeds), filters, traps, limits. */
export function linkRulesOf(o: LinkOptionsOf, seeds: readonly string[]): LinkRules {
  return linkRulesFrom({
    filter: {
      scope: o.scope,
      seeds,
      include: o.include ?? [],
      exclude: o.exclude ?? [],
      skipExtensions: o.skipExtensions,
      skipSubstrings: o.skipSubstrings ?? [],
    },
    traps: {
      maxPathSegments: o.maxPathSegments,
      maxSegmentRepeats: o.maxSegmentRepeats,
      maxQueryParams: o.maxQueryParams,
    },
    maxDepth: o.maxDepth,
    maxRedirects: o.maxRedirects,
  });
}

type LinkOptionsOf = Pick<
  Settings,
  | 'scope'
  | 'include'
  | 'exclude'
  | 'skipExtensions'
  | 'maxPathSegments'
  | 'maxSegmentRepeats'
  | 'maxQueryParams'
  | 'maxDepth'
  | 'maxRedirects'
> & {
  /** A server's --skip-substring (the crawl command has none). */
  skipSubstrings?: readonly string[] | undefined;
};

/**
 * Starts loading the modules: the built-ins on the crawl's own thread, the others on the
 * modules' thread, and waits for their verdicts. One the user asked for that cannot be
 * loaded stops the crawl before it starts; a built-in that failed to load would be a
 * broken build, and is said as an error.
 */
export async function startModules(
  o: Pick<Settings, 'builtinModules' | 'modules' | 'moduleTimeoutMs'>,
  dataDir: string | null,
  log: (line: string, level: LogLevel) => void,
): Promise<ModuleHost> {
  const own = (o.modules ?? []).map((p) => (p.startsWith('file:') ? p : resolvePath(p)));
  const host = ModuleHost.start({
    paths: [...(o.builtinModules ? BUILTIN_MODULES : []), ...own],
    inline: BUILTIN_MODULES,
    dataDir,
    timeoutMs: o.moduleTimeoutMs,
    log,
  });
  // Waited for even with only the built-ins (they load on this thread, at once): the
  // data folder lists the names of the modules that write files there before it opens.
  const reports = await host.loaded;
  for (const r of reports.slice(0, reports.length - own.length)) {
    if (r.refused !== undefined) log(`built-in module ${r.path} cannot be loaded: ${r.refused}`, 'error');
  }
  const refused = reports.slice(reports.length - own.length).find((r) => r.refused !== undefined);
  if (refused !== undefined) {
    await host.close();
    throw new ModuleLoadError(
      `module ${refused.path} cannot be loaded: ${refused.refused}; fix it, or leave it out`,
    );
  }
  return host;
}

/**
 * The store, refused (DataDirError: the folder's fault, exit 2) when it is not a cobweb
 * store or one of another cobweb version. checkStore looks first, reading only: the
 * store's own check comes after SQLite has switched the file to WAL mode. Any other
 * failure, a full disk say, is not the command's fault and goes on as it is.
 */
export async function openStore(
  layout: DataLayout,
  seen: StoreSeenOptions,
  say: (line: string) => void,
  settings: ConstructorParameters<typeof SqliteFrontier>[1],
): Promise<SqliteFrontier> {
  checkStore(layout);
  refuseOtherStore(layout, 'sqlite');
  try {
    return await SqliteFrontier.open(layout.store, settings, { seen, say });
  } catch (err) {
    if (err instanceof NotAStoreError) throw new DataDirError(err.message);
    throw err;
  }
}

/** The workbench store of a server's data folder (`cobweb server --frontier workbench`). */
export async function openWorkbench(
  layout: DataLayout,
  settings: FrontierSettings,
): Promise<WorkbenchFrontier> {
  refuseOtherStore(layout, 'workbench');
  return WorkbenchFrontier.open(layout.workbench, settings);
}

/**
 * A data folder keeps the store it was crawled with: opening one kind where the other
 * holds a crawl is refused (DataDirError), saying how to go on.
 */
function refuseOtherStore(layout: DataLayout, opening: 'sqlite' | 'workbench'): void {
  if (opening === 'sqlite' && existsSync(layout.workbench))
    throw new DataDirError(
      `${layout.root} holds a crawl in a workbench store (workbench/): go on with cobweb server --frontier workbench, or start this one in another --data folder`,
    );
  if (opening === 'workbench' && existsSync(layout.store))
    throw new DataDirError(
      `${layout.root} holds a crawl in its SQLite store (frontier.db): go on with --frontier sqlite, or start this one in another --data folder`,
    );
}

/** The seen set the options ask for, as the store takes it. */
export function seenOf(o: Pick<Settings, 'seen' | 'seenCapacity' | 'seenFpRate'>): StoreSeenOptions {
  return { kind: o.seen, capacity: o.seenCapacity, fpRate: o.seenFpRate };
}
