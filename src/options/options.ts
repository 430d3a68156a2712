import { CrawlOptionError } from '../errors.js';
import { shown } from './option-kinds.js';
import { OPTIONS, type OptionSpec } from './option-table.js';
import { defaultSeen, type SeenKindName } from './seen-default.js';

export type { CrawlProgress, CrawlSummary, LogLevel } from './reports.js';
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

/** Constants of the crawl that are not options. */
const FIXED = {
  maxHostBackoffMs: 10 * 60_000,
  robotsTtlMs: 24 * 60 * 60_000,
  /**
   * The least wait before an unreachable robots.txt is asked again (then doubling, up to
   * robotsTtlMs): a failing robots.txt closes its whole site, and every URL of the site
   * would otherwise ask again each --retry-delay.
   */
  robotsRetryMs: 60_000,
};

/** How long a crawl keeps an unreachable robots.txt before its first retry: --retry-delay, at least a minute. */
export function robotsRetryMsOf(o: { retryDelayMs: number }): number {
  return Math.max(o.retryDelayMs, FIXED.robotsRetryMs);
}

/** What an option is when not given (docs/options.md and --help say the same): the table's defaults. */
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
