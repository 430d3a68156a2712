import type { SeenStats } from '../frontier/types.js';
import type { ModuleStats } from '../modules/api.js';
import { CrawlOptionError } from './errors.js';
import type { LinkSettings } from './marker.js';
import { shown } from './option-kinds.js';
import { OPTIONS, type OptionSpec } from './option-table.js';
import type { RunCounts } from './run-counts.js';
import { defaultSeen, type SeenKindName } from './seen-default.js';

export { OPTIONS };

/** The options the table has, each optional, of the type its kind checks. */
export type OptionValues = { [K in keyof OptionTable]?: ValueOf<K> | undefined };

/** Everything `cobweb crawl` and `crawl()` accept (option-table.ts says what each is). Only `seeds` is required. */
export interface CrawlOptions extends OptionValues {
  seeds: readonly string[];
}

type OptionTable = typeof OPTIONS;
/** An option's type, as its kind checks it. */
export type ValueOf<K extends keyof OptionTable> = OptionTable[K] extends OptionSpec<infer T> ? T : never;
/** The options that have a default. */
type DefaultedKey = {
  [K in keyof OptionTable]: OptionTable[K] extends { default: unknown } ? K : never;
}[keyof OptionTable];

/**
 * 'error': something failed; 'warning': something the user may not want; 'info': the
 * crawl's lifecycle, module logs and the like; 'debug': each fetch, retry, back-off, refusal.
 */
export type LogLevel = 'error' | 'warning' | 'info' | 'debug';

export interface CrawlProgress {
  /** In the store, this run and earlier runs on the same folder: URLs that got a response (any status). */
  done: number;
  /** In the store: URLs given up on without a response (a robots.txt answering 5xx included). */
  failed: number;
  queued: number;
  inFlight: number;
  /** In the store: URLs not fetched because the crawl's rules (filters, too long) or robots.txt refused them. */
  rejected: number;
  /** URLs that got an HTTP response this run, whatever the status. */
  fetchedThisRun: number;
  /** This run: 4xx and 5xx responses, and URLs that failed without one (the summary's "errors"). */
  errorsThisRun: number;
  elapsedMs: number;
  pagesPerSec: number;
  /** The store's seen set: its kind and size, and a bloom filter's estimated false-positive rate as it fills. */
  seen?: SeenStats;
}

export interface CrawlSummary extends CrawlProgress {
  /** Per module (and the library's onPage): calls, errors, timeouts, pages skipped, mean time. */
  modules: ModuleStats[];
  data: string;
  pagesFile: string;
  warcFiles: readonly string[];
  /**
   * Why the crawl ended; 'passes': --passes N were done, and more is queued for the next
   * run; 'console': stopped from the console's Stop; 'max-time': --max-time ran out.
   */
  stoppedBy: 'finished' | 'max-pages' | 'max-time' | 'signal' | 'passes' | 'console';
  /** This run's URLs by outcome: fetched by status class, failed, refused by robots.txt, refused by reason. */
  thisRun: RunCounts;
  /** The options deciding which URLs are followed that differ from the last run on this folder (cobweb.json). */
  changedSettings: (keyof LinkSettings)[];
}

/** Constants of the crawl that are not options. */
const FIXED = {
  maxHostBackoffMs: 10 * 60_000,
  robotsTtlMs: 24 * 60 * 60_000,
  /** A lease outlives any fetch (total timeout + margin); only the server's remote bunnies can lose one. */
  leaseMs: 5 * 60_000,
};

/** What an option is when not given (the README and --help say the same): the table's defaults. */
export const OPTION_DEFAULTS = Object.fromEntries(
  Object.entries(OPTIONS).flatMap(([key, spec]) => ('default' in spec ? [[key, spec.default]] : [])),
) as { [K in DefaultedKey]: ValueOf<K> };

/** The option defaults and the crawl's constants. */
export const DEFAULTS = { ...OPTION_DEFAULTS, ...FIXED };

/** Options with their defaults filled in: what a crawl runs with. */
export type Settings = CrawlOptions & typeof DEFAULTS & { seen: SeenKindName };

/** The options given, over the defaults (an option given as undefined takes its default). */
export function withDefaults(options: CrawlOptions): Settings {
  const given = Object.fromEntries(Object.entries(options).filter(([, v]) => v !== undefined));
  return {
    ...DEFAULTS,
    ...given,
    seen: options.seen ?? defaultSeen(options),
    seeds: options.seeds,
  } as Settings;
}

/**
 * Checks what was given to crawl() against the option table: an unknown key or a value
 * of the wrong kind is a CrawlOptionError naming the option. `undefined` means "not given".
 */
export function checkCrawlOptions(options: unknown): asserts options is CrawlOptions {
  if (typeof options !== 'object' || options === null) {
    throw new CrawlOptionError(`crawl() takes an options object, like { seeds: ['https://example.com/'] }`);
  }
  const rules: Record<string, OptionSpec<unknown> | undefined> = OPTIONS;
  for (const [key, value] of Object.entries(options)) {
    if (key === 'seeds') {
      if (!Array.isArray(value) || !value.every((s) => typeof s === 'string')) {
        throw new CrawlOptionError(`seeds must be a list of URLs, got ${shown(value)}`);
      }
      continue;
    }
    const rule = Object.hasOwn(rules, key) ? rules[key] : undefined;
    if (rule === undefined) {
      const near = nearestOption(key);
      throw new CrawlOptionError(
        `unknown option "${key}"${near === null ? '' : `; did you mean "${near}"?`} (see CrawlOptions)`,
      );
    }
    if (value !== undefined && !rule.kind.check(value)) {
      const problem = rule.kind.problem?.(value) ?? null;
      throw new CrawlOptionError(
        `${key} must be ${rule.kind.expected}, got ${shown(value)}${problem === null ? '' : `: ${problem}`}`,
      );
    }
  }
  if (!('seeds' in options)) {
    throw new CrawlOptionError(`seeds is missing: crawl({ seeds: ['https://example.com/'] })`);
  }
}

/** The known option closest to a misspelt one, if any is close. */
export function nearestOption(key: string): string | null {
  let best: string | null = null;
  let bestDistance = 3;
  for (const name of ['seeds', ...Object.keys(OPTIONS)]) {
    const d = editDistance(key.toLowerCase(), name.toLowerCase());
    if (d < bestDistance) {
      best = name;
      bestDistance = d;
    }
  }
  return best;
}

function editDistance(a: string, b: string): number {
  let row = Array.from({ length: b.length + 1 }, (_, i) => i);
  for (let i = 1; i <= a.length; i++) {
    const next = [i];
    for (let j = 1; j <= b.length; j++) {
      next[j] = Math.min(
        (row[j] ?? 0) + 1,
        (next[j - 1] ?? 0) + 1,
        (row[j - 1] ?? 0) + (a[i - 1] === b[j - 1] ? 0 : 1),
      );
    }
    row = next;
  }
  return row[b.length] ?? 0;
}
