import { normalizePattern } from './robots-path.js';

/** One Allow or Disallow line, as the matcher uses it. */
export interface RobotsRule {
  readonly allow: boolean;
  /** The normalized pattern (robots-path.ts), `*` and a final `$` being wildcards. */
  readonly pattern: string;
}

/**
 * A compiled rule: its literal prefix (up to the first `*`, without a final `$`) and what must
 * follow it. Its specificity is the pattern's length in octets (a normalized pattern is ASCII),
 * `*` and `$` included, as in Google's matcher.
 */
class CompiledRule implements RobotsRule {
  readonly allow: boolean;
  readonly pattern: string;
  readonly prefix: string;
  /** The segments after the first `*` (null without `*`), each `*` between two of them. */
  readonly #rest: readonly string[] | null;
  readonly #anchored: boolean;

  constructor(allow: boolean, pattern: string) {
    this.allow = allow;
    this.pattern = pattern;
    this.#anchored = pattern.endsWith('$');
    const segments = (this.#anchored ? pattern.slice(0, -1) : pattern).split('*');
    this.prefix = segments[0] ?? '';
    this.#rest = segments.length > 1 ? segments.slice(1) : null;
  }

  /** Whether the rule matches `path`, which is known to start with its prefix. */
  matchesAfterPrefix(path: string): boolean {
    if (this.#rest === null) return !this.#anchored || path.length === this.prefix.length;
    return matchesSegments(path, this.prefix.length, this.#rest, this.#anchored);
  }
}

/**
 * Whether `path` from `position` on matches `*s1*s2*...*sn` (and ends there when `anchored`).
 * Taking the leftmost place for each segment but the last is always right: it leaves the most room
 * for what follows. Linear in the path per segment, unlike a backtracking matcher that a hostile
 * pattern like `/*a*a*a*a*b` could make exponential.
 */
function matchesSegments(
  path: string,
  start: number,
  segments: readonly string[],
  anchored: boolean,
): boolean {
  let position = start;
  const lastIndex = segments.length - 1;
  for (let i = 0; i < lastIndex; i++) {
    const segment = segments[i] ?? '';
    if (segment === '') continue;
    const found = path.indexOf(segment, position);
    if (found === -1) return false;
    position = found + segment.length;
  }
  const last = segments[lastIndex] ?? '';
  if (anchored) return path.length - last.length >= position && path.endsWith(last);
  return last === '' || path.indexOf(last, position) !== -1;
}

/**
 * The rules of the group that applies to us. The most specific matching rule decides, Allow
 * winning a tie (RFC 9309 section 2.2.2).
 *
 * A rule can only match a path that starts with its literal prefix, so rules sit in a map by
 * prefix and a path looks up its own prefixes, one per distinct prefix length: a path meets only
 * the rules that can match it, whatever their number. Most rules are plain prefixes and match as
 * soon as they are found.
 */
export class RuleList {
  /** Literal prefix -> the rules with it, most specific first, Allow first at equal specificity. */
  readonly #byPrefix = new Map<string, CompiledRule[]>();
  /** The distinct prefix lengths. */
  readonly #prefixLengths: number[];
  #size = 0;

  /** `lines` are the raw values of the group's lines; empty ones mean nothing and are dropped. */
  constructor(lines: ReadonlyArray<{ allow: boolean; value: string }>) {
    const rules = lines
      .filter((line) => line.value !== '')
      .map((line) => ({ allow: line.allow, pattern: normalizePattern(line.value) }));
    // An Allow rule less specific than every Disallow rule never changes an answer: wherever it
    // matches, no Disallow rule outranks it, so the path is allowed anyway. A group without Disallow
    // lines thus costs nothing to match.
    let leastDisallow = Number.POSITIVE_INFINITY;
    for (const rule of rules) if (!rule.allow) leastDisallow = Math.min(leastDisallow, rule.pattern.length);
    const seen = new Set<string>();
    for (const { allow, pattern } of rules) {
      // Duplicates never change an answer (RFC 9309 2.2.2 lets them be dropped).
      const key = (allow ? '+' : '-') + pattern;
      if ((allow && pattern.length < leastDisallow) || seen.has(key)) continue;
      seen.add(key);
      const rule = new CompiledRule(allow, pattern);
      const sharing = this.#byPrefix.get(rule.prefix);
      if (sharing === undefined) this.#byPrefix.set(rule.prefix, [rule]);
      else sharing.push(rule);
      this.#size++;
    }
    const lengths = new Set<number>();
    for (const [prefix, sharing] of this.#byPrefix) {
      sharing.sort(bySpecificity);
      lengths.add(prefix.length);
    }
    this.#prefixLengths = [...lengths];
  }

  get size(): number {
    return this.#size;
  }

  /** Every rule, in the order they rank: the first that matches decides. */
  get rules(): RobotsRule[] {
    return [...this.#byPrefix.values()].flat().sort(bySpecificity);
  }

  /** The rule that decides for a normalized path, or null when none matches (allowed). */
  decidingRule(path: string): RobotsRule | null {
    let best: CompiledRule | null = null;
    for (const length of this.#prefixLengths) {
      if (length > path.length) continue;
      const sharing = this.#byPrefix.get(length === path.length ? path : path.slice(0, length));
      if (sharing === undefined) continue;
      for (const rule of sharing) {
        // Sorted: once a rule cannot outrank the best so far, no later one of the list can.
        if (!outranks(rule, best)) break;
        if (rule.matchesAfterPrefix(path)) {
          best = rule;
          break;
        }
      }
    }
    return best;
  }
}

function outranks(rule: RobotsRule, current: RobotsRule | null): boolean {
  if (current === null) return true;
  if (rule.pattern.length !== current.pattern.length) return rule.pattern.length > current.pattern.length;
  return rule.allow && !current.allow;
}

function bySpecificity(a: RobotsRule, b: RobotsRule): number {
  if (a.pattern.length !== b.pattern.length) return b.pattern.length - a.pattern.length;
  if (a.allow !== b.allow) return a.allow ? -1 : 1;
  return 0;
}
