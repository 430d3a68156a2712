import type { WebProfile } from './web/options.js';

/** The webs `npm run bench` crawls, in this order. */
const WEB_PROFILES_BENCHED: readonly WebProfile[] = ['realistic', 'link-heavy', 'small'];

/** The contenders a round can run; BENCH_CONTENDERS picks some (baseline needs BENCH_BASELINE_ROOT). */
export const CONTENDERS = [
  'raw',
  'cobweb',
  'bare',
  'http',
  'baseline',
  'cluster',
  'workbench',
  'variant',
] as const;
export type Contender = (typeof CONTENDERS)[number];

export interface BenchSettings {
  /**
   * The webs crawled, one table each: 'realistic' (documentation-like pages), 'link-heavy'
   * (the same with one table of contents every page of a site shares) and 'small'.
   */
  profiles: WebProfile[];
  contenders: Contender[];
  hosts: string[];
  pagesPerHost: number;
  pageBytes: number;
  seed: number;
  /** Requests in flight, for both the raw loop and cobweb. */
  concurrency: number;
  /** cobweb --per-host. */
  perHost: number;
  /** Upper bound for each measured child; it is killed after this. */
  timeoutSeconds: number;
  /** Raw loop and cobweb run alternately this many times; the table shows the median round. */
  rounds: number;
  /** Keep cobweb's data folder for inspection instead of deleting it. */
  keepData: boolean;
  /** Where bin/cobweb.js and dist/ live; another checkout or build can be measured on the same web. */
  cobwebRoot: string | undefined;
  /** Another checkout or build measured in the same rounds, beside this one (a before/after). */
  baselineRoot: string | undefined;
  /** The baseline as a server with this many bunnies (0: a crawl), to compare clusters build against build. */
  baselineBunnies: number;
  /** cobweb flags measured in the same rounds against the defaults (the variant contender); none: no variant. */
  variantArgs: string[];
  /** One-page crawls timed for the start-up figure (0: none). */
  startupRounds: number;
}

/** Benchmark settings; every one can be overridden by an environment variable to run smaller. */
export function readSettings(env: NodeJS.ProcessEnv = process.env): BenchSettings {
  const hostCount = intFrom(env, 'BENCH_HOSTS', 8, 1, 200);
  return {
    profiles: listFrom(env, 'BENCH_PROFILES', [...WEB_PROFILES_BENCHED], WEB_PROFILES_BENCHED),
    contenders: listFrom(env, 'BENCH_CONTENDERS', [...CONTENDERS], CONTENDERS),
    // 127.0.0.1 is left to everything else on the machine; the sites start at .2.
    hosts: Array.from({ length: hostCount }, (_, i) => `127.0.0.${i + 2}`),
    pagesPerHost: intFrom(env, 'BENCH_PAGES_PER_HOST', 2500, 1, 1_000_000),
    // The small web's page size; realistic pages have sizes of their own (5 to 150 KB).
    pageBytes: intFrom(env, 'BENCH_PAGE_BYTES', 3000, 100, 10_000_000),
    seed: intFrom(env, 'BENCH_SEED', 1, 0, 2 ** 31),
    concurrency: intFrom(env, 'BENCH_CONCURRENCY', 64, 1, 10_000),
    perHost: intFrom(env, 'BENCH_PER_HOST', 8, 1, 10_000),
    timeoutSeconds: intFrom(env, 'BENCH_TIMEOUT_SECONDS', 900, 1, 86_400),
    rounds: intFrom(env, 'BENCH_ROUNDS', 3, 1, 100),
    keepData: env.BENCH_KEEP_DATA === '1',
    cobwebRoot: env.BENCH_COBWEB_ROOT || undefined,
    baselineRoot: env.BENCH_BASELINE_ROOT || undefined,
    baselineBunnies: intFrom(env, 'BENCH_BASELINE_BUNNIES', 0, 0, 16),
    startupRounds: intFrom(env, 'BENCH_STARTUP_ROUNDS', 7, 0, 100),
    variantArgs: (env.BENCH_VARIANT_ARGS ?? '').split(/\s+/).filter((arg) => arg !== ''),
  };
}

function intFrom(env: NodeJS.ProcessEnv, name: string, fallback: number, min: number, max: number): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < min || value > max) {
    throw new RangeError(`${name} must be an integer in [${min}, ${max}], got '${raw}'`);
  }
  return value;
}

function listFrom<T extends string>(
  env: NodeJS.ProcessEnv,
  name: string,
  fallback: T[],
  allowed: readonly T[],
): T[] {
  const raw = env[name];
  if (raw === undefined || raw.trim() === '') return fallback;
  const items = raw.split(',').map((item) => item.trim());
  for (const item of items) {
    if (!(allowed as readonly string[]).includes(item)) {
      throw new RangeError(`${name}: '${item}' is not one of ${allowed.join(', ')}`);
    }
  }
  return items as T[];
}
