/**
 * robots.txt per RFC 9309: parse once per origin for our product token, then answer isAllowed() per
 * URL. Pure: no I/O, never throws on any body. Only the group that applies to us is kept.
 */
import { forEachRobotsLine, type RobotsKey } from './robots-lines.js';
import { normalizeUrlPath } from './robots-path.js';
import { type RobotsRule, RuleList } from './robots-rules.js';

export type { RobotsRule } from './robots-rules.js';

/** The rules that apply to our product token, after merging its groups (or the `*` groups). */
export interface RobotsGroupRules {
  /** Normalized patterns, in the order they are tried: the first that matches decides. */
  readonly rules: readonly RobotsRule[];
  readonly crawlDelayMs: number | null;
}

export interface RobotsTxt {
  /** Whether our crawler may fetch this path+query ("/a/b?x=1"; percent-encoding as in the URL). */
  isAllowed(pathAndQuery: string): boolean;
  /** Crawl-delay of the group that applies to us, in ms, or null. */
  crawlDelayMs: number | null;
  /** Every Sitemap: URL in the file (absolute URLs as written), in order. */
  sitemaps: string[];
  /** What isAllowed() decides with, for logs and debugging. */
  readonly group: RobotsGroupRules;
}

/** Only the first 500 KiB are parsed (RFC 9309 section 2.5: the limit must be at least that). */
export const MAX_ROBOTS_BYTES = 500 * 1024;

/**
 * Parses `body` for the crawler named `productToken`, compared case-insensitively with the token
 * of each user-agent line. Bytes past MAX_ROBOTS_BYTES are ignored, and so is a line they cut.
 */
export function parseRobotsTxt(body: Uint8Array | string, productToken: string): RobotsTxt {
  const collector = new GroupCollector(productToken);
  forEachRobotsLine(withinParseLimit(body), (key, value) => collector.add(key, value));
  return collector.finish();
}

/** What an origin without usable robots.txt gets (404, 401, 403...). */
export function allowAll(): RobotsTxt {
  return new ParsedRobotsTxt(new RuleList([]), null, []);
}

/** What an origin whose robots.txt is unreachable gets (5xx, network failure). /robots.txt itself stays allowed. */
export function disallowAll(): RobotsTxt {
  return new ParsedRobotsTxt(new RuleList([{ allow: false, value: '/' }]), null, []);
}

/** The product token of a User-Agent string: 'cobweb' from 'cobweb/0.1.0 (+https://...)'. */
export function productTokenOf(userAgent: string): string {
  return leadingToken(userAgent.trimStart());
}

/** Whether `token` is a product token RFC 9309 section 2.2.1 allows: letters, `_` and `-`, at least one. */
export function isValidProductToken(token: string): boolean {
  return token !== '' && leadingToken(token) === token;
}

function leadingToken(text: string): string {
  let end = 0;
  while (end < text.length && isTokenChar(text.charCodeAt(end))) end++;
  return text.slice(0, end);
}

function isTokenChar(c: number): boolean {
  return (c >= 0x41 && c <= 0x5a) || (c >= 0x61 && c <= 0x7a) || c === 0x5f || c === 0x2d;
}

/** The part of a robots.txt body the parser reads, as text: what a crawl keeps of the file. */
export function parsedTextOf(body: Uint8Array | string): string {
  const bytes = withinParseLimit(body);
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('utf8');
}

function withinParseLimit(body: Uint8Array | string): Uint8Array {
  // Every character is at least one byte, so MAX_ROBOTS_BYTES + 1 characters hold all the bytes we
  // keep and the one after them, which says whether the last kept line is whole.
  const bytes = typeof body === 'string' ? Buffer.from(body.slice(0, MAX_ROBOTS_BYTES + 1)) : body;
  if (bytes.length <= MAX_ROBOTS_BYTES) return bytes;
  // A line cut in two could turn "Disallow: /private" into "Disallow: /priv": drop it whole.
  const next = bytes[MAX_ROBOTS_BYTES];
  const head = bytes.subarray(0, MAX_ROBOTS_BYTES);
  if (next === 0x0a || next === 0x0d) return head;
  return head.subarray(0, Math.max(head.lastIndexOf(0x0a), head.lastIndexOf(0x0d)) + 1);
}

interface RuleLine {
  allow: boolean;
  value: string;
}

/** What the lines of one kind of group add up to: ours, or the `*` ones. */
interface GroupMembers {
  rules: RuleLine[];
  crawlDelayMs: number | null;
}

/**
 * Follows the groups as the lines come and keeps the members of those that name us, or failing any,
 * of those that name `*`. A group is one or more user-agent lines and the members after them: a
 * user-agent line after a member starts the next group. Allow and Disallow are members, and so is
 * Crawl-delay, or the common "User-agent: x / Crawl-delay: n" groups would all run into one.
 * Sitemap and unknown lines are no members and do not end a group (RFC 9309 section 2.2.4).
 * Members before the first user-agent line belong to no group and are ignored.
 */
class GroupCollector {
  readonly #token: string;
  readonly #sitemaps: string[] = [];
  readonly #seenSitemaps = new Set<string>();
  readonly #ours: GroupMembers = { rules: [], crawlDelayMs: null };
  readonly #global: GroupMembers = { rules: [], crawlDelayMs: null };
  #foundOurGroup = false;

  #inGroup = false;
  #groupHasMembers = false;
  #groupIsOurs = false;
  #groupIsGlobal = false;
  /** Where the current group's members go, known at its first member; null when the group is not for us. */
  #target: GroupMembers | null = null;

  constructor(productToken: string) {
    this.#token = productToken.toLowerCase();
  }

  add(key: RobotsKey, value: string): void {
    switch (key) {
      case 'user-agent':
        this.#userAgent(value);
        break;
      case 'allow':
      case 'disallow':
        this.#member()?.rules.push({ allow: key === 'allow', value });
        break;
      case 'crawl-delay':
        this.#crawlDelay(value);
        break;
      case 'sitemap':
        this.#sitemap(value);
        break;
      case 'unknown':
        break;
    }
  }

  finish(): RobotsTxt {
    const members = this.#foundOurGroup ? this.#ours : this.#global;
    return new ParsedRobotsTxt(new RuleList(members.rules), members.crawlDelayMs, this.#sitemaps);
  }

  #userAgent(value: string): void {
    if (!this.#inGroup || this.#groupHasMembers) {
      this.#inGroup = true;
      this.#groupHasMembers = false;
      this.#groupIsOurs = false;
      this.#groupIsGlobal = false;
      this.#target = null;
    }
    if (isGlobalAgent(value)) {
      this.#groupIsGlobal = true;
    } else if (this.#token !== '' && leadingToken(value).toLowerCase() === this.#token) {
      // The line's token is cut at the first character a product token cannot have, as Google does:
      // "Googlebot/2.1" and "Googlebot Images" are both read as "Googlebot".
      this.#groupIsOurs = true;
      this.#foundOurGroup = true;
    }
  }

  /** Marks the current group as having members and says where they go; null to drop them. */
  #member(): GroupMembers | null {
    if (!this.#inGroup) return null;
    if (!this.#groupHasMembers) {
      this.#groupHasMembers = true;
      this.#target = this.#groupIsOurs ? this.#ours : this.#groupIsGlobal ? this.#global : null;
    }
    return this.#target;
  }

  #crawlDelay(value: string): void {
    const target = this.#member();
    const ms = crawlDelayMsOf(value);
    // Of several delays that apply (merged groups) the longest wins: the politer reading.
    if (target !== null && ms !== null) target.crawlDelayMs = Math.max(target.crawlDelayMs ?? 0, ms);
  }

  #sitemap(value: string): void {
    if (this.#seenSitemaps.has(value) || !isAbsoluteHttpUrl(value)) return;
    this.#seenSitemaps.add(value);
    this.#sitemaps.push(value);
  }
}

/** `*`, also when followed by a space and more (Google reads "* # all bots" style lines as global). */
function isGlobalAgent(value: string): boolean {
  if (value.charCodeAt(0) !== 0x2a) return false;
  if (value.length === 1) return true;
  const next = value.charCodeAt(1);
  return next === 0x20 || (next >= 0x09 && next <= 0x0d);
}

const DECIMAL_SECONDS = /^(?:\d+(?:\.\d*)?|\.\d+)$/;

function crawlDelayMsOf(value: string): number | null {
  if (!DECIMAL_SECONDS.test(value)) return null;
  const ms = Math.round(Number(value) * 1000);
  return Number.isFinite(ms) ? ms : null;
}

function isAbsoluteHttpUrl(value: string): boolean {
  const url = URL.parse(value);
  return url !== null && (url.protocol === 'http:' || url.protocol === 'https:');
}

class ParsedRobotsTxt implements RobotsTxt {
  readonly #rules: RuleList;
  readonly crawlDelayMs: number | null;
  readonly sitemaps: string[];

  constructor(rules: RuleList, crawlDelayMs: number | null, sitemaps: string[]) {
    this.#rules = rules;
    this.crawlDelayMs = crawlDelayMs;
    this.sitemaps = sitemaps;
  }

  isAllowed(pathAndQuery: string): boolean {
    if (this.#rules.size === 0 || isRobotsTxtItself(pathAndQuery)) return true;
    const path = normalizeUrlPath(pathAndQuery === '' ? '/' : pathAndQuery);
    return this.#rules.decidingRule(path)?.allow ?? true;
  }

  get group(): RobotsGroupRules {
    return { rules: this.#rules.rules, crawlDelayMs: this.crawlDelayMs };
  }
}

/** RFC 9309 section 2.2.2: "The /robots.txt URI is implicitly allowed." */
function isRobotsTxtItself(pathAndQuery: string): boolean {
  return (
    pathAndQuery.startsWith('/robots.txt') &&
    (pathAndQuery.length === 11 || pathAndQuery.charCodeAt(11) === 0x3f)
  );
}
