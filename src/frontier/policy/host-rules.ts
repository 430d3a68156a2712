/**
 * Per-host sections of a config file (`hosts:`): settings that hold for one host, or for
 * every host a pattern matches, instead of the crawl's. The stores apply `delayMs`,
 * `perHost` and `maxPages` (politeness and the host budget); the fetcher sends `headers`.
 */
export interface HostRule {
  /** Least gap in ms between two request starts to the host. */
  delayMs?: number;
  /** Fetches in flight to the host at once. */
  perHost?: number;
  /** URLs of the host the crawl takes at most (like --max-pages-per-host). */
  maxPages?: number;
  /** Request headers sent to the host, over the crawl's own. */
  headers?: Readonly<Record<string, string>>;
}

/** By host ("example.com", "example.com:8080") or pattern ("*.example.com"). */
export type HostRules = Readonly<Record<string, HostRule>>;

/** The keys a host section may have. */
export const HOST_RULE_KEYS = ['delayMs', 'perHost', 'maxPages', 'headers'] as const;

/**
 * Whether a section's key names a host key (host[:port], as the store keys hosts). A key
 * with a port matches that port only; one without matches every port. `*` matches any
 * run of characters: "*.example.com" is every subdomain, not example.com itself.
 */
export function hostMatches(key: string, host: string): boolean {
  const withPort = /:\d+$/.test(key) && !key.endsWith(']');
  const target = withPort ? host : host.replace(/:\d+$/, '');
  const pattern = key.toLowerCase();
  if (!pattern.includes('*')) return pattern === target;
  const source = pattern
    .split('*')
    .map((part) => part.replace(/[.+?^${}()|[\]\\]/g, '\\$&'))
    .join('.*');
  return new RegExp(`^${source}$`).test(target);
}

/** The section that holds for a host: one naming it exactly, else the first pattern that matches it. */
export function ruleFor(rules: HostRules | undefined, host: string): HostRule | null {
  if (rules === undefined) return null;
  const keys = Object.keys(rules);
  const exact = keys.find((k) => !k.includes('*') && hostMatches(k, host));
  const key = exact ?? keys.find((k) => k.includes('*') && hostMatches(k, host));
  return key === undefined ? null : (rules[key] ?? null);
}

/**
 * The most fetches in flight one host may have: the crawl's --per-host, or a section's
 * above it. A fetcher's connections to one origin must allow as many, or the fetches a
 * store hands out for a host at once wait for one another's connection.
 */
export function mostPerHost(perHost: number, rules: HostRules | undefined): number {
  let most = perHost;
  for (const rule of Object.values(rules ?? {})) most = Math.max(most, rule.perHost ?? 0);
  return most;
}

/**
 * The crawl's settings as they hold for one politeness budget (a host's key; an address's
 * budget, 'ip:ADDRESS', has no section): its section's delay, per-host limit and budget
 * over the crawl's.
 */
export function settingsForHost<
  S extends { delayMs: number; perHost: number; maxPagesPerHost?: number; hosts?: HostRules | undefined },
>(settings: S, host: string): S {
  const rule = ruleFor(settings.hosts, host);
  if (rule === null) return settings;
  return {
    ...settings,
    ...(rule.delayMs === undefined ? {} : { delayMs: rule.delayMs }),
    ...(rule.perHost === undefined ? {} : { perHost: rule.perHost }),
    ...(rule.maxPages === undefined ? {} : { maxPagesPerHost: rule.maxPages }),
  };
}
