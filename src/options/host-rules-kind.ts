import { HOST_RULE_KEYS, type HostRule, type HostRules } from '../frontier/policy/host-rules.js';
import { headerMap, type OptionKind, OptionValueError, readFileValue, shown, whole } from './option-kinds.js';

/** What each key of a host section takes: the same kinds as the crawl's own options. */
const RULE_KINDS: { readonly [K in keyof HostRule]-?: OptionKind<NonNullable<HostRule[K]>> } = {
  delayMs: whole(0),
  perHost: whole(1),
  maxPages: whole(1),
  headers: headerMap,
};

const KEY = /^(\*|\*?[a-z0-9*[\].:-]+)$/i;

/** Why a host section is not valid (naming its key), or null. */
function sectionProblem(name: string, section: unknown, read: boolean): string | null {
  if (!KEY.test(name)) return `"${name}" is not a host or a pattern like *.example.com`;
  if (typeof section !== 'object' || section === null || Array.isArray(section)) {
    return `${name} must be a section of ${HOST_RULE_KEYS.join(', ')}`;
  }
  for (const [key, value] of Object.entries(section)) {
    if (!(HOST_RULE_KEYS as readonly string[]).includes(key)) {
      return `${name}.${key} is not a host setting (${HOST_RULE_KEYS.join(', ')})`;
    }
    const kind = RULE_KINDS[key as keyof HostRule] as OptionKind<unknown>;
    if (read) {
      try {
        readFileValue(kind, value);
      } catch (err) {
        if (err instanceof OptionValueError) return `${name}.${key}: ${err.message}`;
        throw err;
      }
    } else if (!kind.check(value)) {
      return `${name}.${key} must be ${kind.expected}, got ${shown(value)}`;
    }
  }
  return null;
}

/** `hosts`: per-host sections, by host or pattern, each of delayMs, perHost, maxPages, headers. */
export const hostRules: OptionKind<HostRules> & { problem(value: unknown): string | null } = {
  expected: `per-host sections like { "*.example.com": { delayMs: 2000 } } (keys: ${HOST_RULE_KEYS.join(', ')})`,
  check: (v): v is HostRules => hostRules.problem(v) === null,
  problem(value) {
    if (typeof value !== 'object' || value === null || Array.isArray(value)) return 'not an object';
    for (const [name, section] of Object.entries(value)) {
      const problem = sectionProblem(name, section, false);
      if (problem !== null) return problem;
    }
    return null;
  },
  fromFile(value) {
    if (typeof value !== 'object' || value === null || Array.isArray(value)) {
      throw new OptionValueError(`expected ${hostRules.expected}, got ${shown(value)}`);
    }
    const out: Record<string, HostRule> = {};
    for (const [name, section] of Object.entries(value)) {
      const problem = sectionProblem(name, section, true);
      if (problem !== null) throw new OptionValueError(problem);
      const rule: Record<string, unknown> = {};
      for (const [key, v] of Object.entries(section as object)) {
        rule[key] = readFileValue(RULE_KINDS[key as keyof HostRule] as OptionKind<unknown>, v);
      }
      out[name.toLowerCase()] = rule as HostRule;
    }
    return out;
  },
};
