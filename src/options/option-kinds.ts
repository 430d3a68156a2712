import { isIP } from 'node:net';
import { CobwebError } from '../errors.js';
import { productTokenOf } from '../fetch/robots/robots-txt.js';
import { CRAWL_NAME, CRAWL_NAME_RULE } from '../protocol/types.js';

/**
 * The kinds of value an option takes. Each kind knows how to check a value given to
 * crawl(), how to read one from the command line and how to read one from a config
 * file, so the library, the CLI and the config file accept exactly the same things and
 * say the same thing when they do not. `T` is the option's type in CrawlOptions.
 */
export interface OptionKind<T> {
  /** What a valid value is, for messages: "a whole number of at least 1". */
  readonly expected: string;
  /** Whether a value given to crawl() is valid. */
  check(value: unknown): value is T;
  /**
   * Reads the command line's text (with the value so far, for repeatable flags); throws
   * OptionValueError when the text is not valid. Absent for switches and choices.
   */
  parse?(text: string, previous: T | undefined): T;
  /**
   * Reads a config file's value (JSON or YAML: strings, numbers, lists, objects); throws
   * OptionValueError when it is not valid. Absent: the value is taken as crawl() takes it.
   * A kind that no file can hold (a function) has `fromFile: null`.
   */
  fromFile?: ((value: unknown) => T) | null;
  /** The command line's only accepted words, when there is such a list. */
  readonly choices?: readonly string[];
  /** A flag without a value (--fresh); parse is not used. */
  readonly switch?: true;
  /** For a value check() refuses, what in it is wrong, when a kind can say more than `expected`. */
  problem?(value: unknown): string | null;
}

/** A value that does not fit its kind; the caller adds which option it was. */
export class OptionValueError extends CobwebError {
  override name = 'OptionValueError';
  readonly code = 'COBWEB_OPTION_VALUE';
}

function refuse(kind: { expected: string }, text: string): never {
  throw new OptionValueError(`expected ${kind.expected}, got "${text}"`);
}

/** A config file's value as the kind reads it (its fromFile, else crawl()'s check). */
export function readFileValue<T>(kind: OptionKind<T>, value: unknown): T {
  if (kind.fromFile === null) throw new OptionValueError('cannot be set in a config file');
  if (kind.fromFile !== undefined) return kind.fromFile(value);
  if (kind.check(value)) return value;
  throw new OptionValueError(`expected ${kind.expected}, got ${shown(value)}`);
}

/** A whole number of at least `min`; with `unlimited`, Infinity (the library's "no limit") too. */
export function whole(min: number, unlimited = false): OptionKind<number> {
  const kind: OptionKind<number> = {
    expected: `a whole number of at least ${min}`,
    check: (v): v is number =>
      typeof v === 'number' && ((Number.isSafeInteger(v) && v >= min) || (unlimited && v === Infinity)),
    parse(text) {
      const n = Number(text);
      if (!/^\d+$/.test(text.trim()) || !Number.isSafeInteger(n) || n < min) refuse(kind, text);
      return n;
    },
  };
  return kind;
}

export function atLeast(min: number): OptionKind<number> {
  const kind: OptionKind<number> = {
    expected: `a number of at least ${min}`,
    check: (v): v is number => typeof v === 'number' && Number.isFinite(v) && v >= min,
    parse(text) {
      const n = Number(text);
      if (text.trim() === '' || !Number.isFinite(n) || n < min) refuse(kind, text);
      return n;
    },
  };
  return kind;
}

const UNIT_MS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 };

/**
 * A length of time: crawl() takes milliseconds; the command line and a config file
 * take "90s", "2h", "500ms", "1d" (a config file may also give milliseconds as a number).
 */
export const duration: OptionKind<number> = {
  expected: 'a duration like 90s, 15m, 2h or 1d (ms, s, m, h, d)',
  check: (v): v is number => typeof v === 'number' && Number.isSafeInteger(v) && v > 0,
  parse(text) {
    const m = /^(\d+(?:\.\d+)?)(ms|s|m|h|d)$/.exec(text.trim());
    const ms = m === null ? Number.NaN : Math.round(Number(m[1]) * (UNIT_MS[m[2] as string] as number));
    if (!(ms > 0) || !Number.isSafeInteger(ms)) refuse(duration, text);
    return ms;
  },
  fromFile(value) {
    if (typeof value === 'string') return (duration.parse as (t: string) => number)(value);
    if (duration.check(value)) return value;
    throw new OptionValueError(`expected ${duration.expected}, got ${shown(value)}`);
  },
};

/** Text that must not be empty: a shell command (--on-pass), a folder or file name. */
function nonEmpty(expected: string): OptionKind<string> {
  const kind: OptionKind<string> = {
    expected,
    check: (v): v is string => typeof v === 'string' && v.trim() !== '',
    parse(text) {
      if (text.trim() === '') refuse(kind, text);
      return text;
    },
  };
  return kind;
}

/** A shell command (--on-pass): any text but an empty one. */
export const command = nonEmpty('a shell command (not empty)');

/** A folder name: never empty (an empty --data would mean the current folder without saying so). */
export const folder = nonEmpty('a folder name (not empty)');

/** A file name (--cookies, --log-file, --ca-file): never empty. */
export const file = nonEmpty('a file name (not empty)');

/** A number strictly between 0 and 1 (a rate, like --seen-fp-rate). */
export const fraction: OptionKind<number> = {
  expected: 'a number between 0 and 1, like 0.001',
  check: (v): v is number => typeof v === 'number' && v > 0 && v < 1,
  parse(text) {
    const n = Number(text);
    if (text.trim() === '' || !(n > 0 && n < 1)) refuse(fraction, text);
    return n;
  },
};

export function oneOf<const C extends string>(choices: readonly C[]): OptionKind<C> {
  return {
    expected: `one of ${choices.join(', ')}`,
    check: (v): v is C => typeof v === 'string' && (choices as readonly string[]).includes(v),
    choices,
  };
}

export const onOff: OptionKind<boolean> = {
  expected: 'true or false',
  check: (v): v is boolean => typeof v === 'boolean',
  switch: true,
};

/** A User-Agent: its first word is the product token robots.txt rules are matched against. */
export const userAgent: OptionKind<string> = {
  expected:
    'a User-Agent whose first word is a robots.txt product token (letters, "-", "_"), like "mybot/1.0"',
  check: (v): v is string => typeof v === 'string' && productTokenOf(v) !== '',
  parse(text) {
    if (productTokenOf(text) === '') refuse(userAgent, text);
    return text;
  },
};

/** A list a config file gives as its items, each read as one repeated flag would be. */
function listFromFile<T>(kind: OptionKind<T>, empty: T): (value: unknown) => T {
  return (value) => {
    const parse = kind.parse as (text: string, previous: T | undefined) => T;
    if (!Array.isArray(value) || !value.every((v) => typeof v === 'string')) {
      throw new OptionValueError(`expected a list of strings, got ${shown(value)}`);
    }
    let out: T | undefined;
    for (const item of value) out = parse(item, out);
    return out ?? empty;
  };
}

/** Repeatable regular expressions (--include, --exclude); a config file lists their sources. */
export const regexList: OptionKind<readonly RegExp[]> = {
  expected: 'a list of regular expressions',
  check: (v): v is readonly RegExp[] => Array.isArray(v) && v.every((r) => r instanceof RegExp),
  parse(text, previous) {
    try {
      return [...(previous ?? []), new RegExp(text)];
    } catch (err) {
      throw new OptionValueError(`not a valid regular expression: ${(err as Error).message}`);
    }
  },
  fromFile: (value) => listFromFile(regexList, [])(value),
};

/** Repeatable file names (--module). */
export const fileList: OptionKind<readonly string[]> = {
  expected: 'a list of file names, none empty',
  check: (v): v is readonly string[] =>
    Array.isArray(v) && v.every((s) => typeof s === 'string' && s.trim() !== ''),
  parse(text, previous) {
    if (text.trim() === '') refuse(fileList, text);
    return [...(previous ?? []), text];
  },
};

/** Repeatable host names (--http-allow-host): a name or an address, no scheme, port or path. */
export const hostNameList: OptionKind<readonly string[]> = {
  expected: 'a list of host names, like ["crawler.example.com"] (no scheme, port or path)',
  check: (v): v is readonly string[] =>
    Array.isArray(v) && v.every((s) => typeof s === 'string' && /^[\w.-]+$|^\[?[0-9a-f:.]+\]?$/i.test(s)),
  parse(text, previous) {
    const name = text.trim().toLowerCase();
    if (!hostNameList.check([name])) refuse(hostNameList, text);
    return [...(previous ?? []), name.replace(/^\[|\]$/g, '')];
  },
  fromFile: (value) => listFromFile(hostNameList, [])(value),
};

/** --skip-ext "jpg,png,zip": lowercase, dots and spaces dropped; "" turns the filter off. */
export const extensionList: OptionKind<readonly string[]> = {
  expected: 'a list of file extensions, like ["jpg", "zip"]',
  check: (v): v is readonly string[] => Array.isArray(v) && v.every((s) => typeof s === 'string'),
  parse: (text) =>
    text
      .split(',')
      .map((e) => e.trim().replace(/^\./, '').toLowerCase())
      .filter((e) => e !== ''),
};

/**
 * A --resolve host: a name, or a wildcard `*.suffix` (any host ending in `.suffix`); a
 * `*` anywhere else, or a bare `*.`, is a mistake.
 */
function isResolveHost(host: string): boolean {
  const name = host.startsWith('*.') ? host.slice(2) : host;
  return name !== '' && !name.includes('*') && !name.includes(':');
}

/**
 * --resolve HOST:PORT:ADDR, like curl's; ADDR may be an IPv6 address, bracketed or not.
 * HOST may be `*.suffix` for every host under it (an exact HOST wins; see src/fetch/resolve-map.ts).
 */
export const resolveMap: OptionKind<ReadonlyMap<string, string>> = {
  expected:
    'HOST:PORT:ADDR with an IP address, like example.com:443:127.0.0.2; HOST may be *.example.com for every host under it',
  check: (v): v is ReadonlyMap<string, string> =>
    v instanceof Map &&
    [...v].every(
      ([key, addr]) =>
        typeof key === 'string' &&
        /^[^:]+:\d{1,5}$/.test(key) &&
        isResolveHost(key.slice(0, key.lastIndexOf(':'))) &&
        typeof addr === 'string' &&
        isIP(addr) !== 0,
    ),
  parse(text, previous) {
    const first = text.indexOf(':');
    const second = first === -1 ? -1 : text.indexOf(':', first + 1);
    const host = text.slice(0, first).toLowerCase();
    const port = text.slice(first + 1, second);
    let addr = text.slice(second + 1);
    if (addr.startsWith('[') && addr.endsWith(']')) addr = addr.slice(1, -1);
    if (
      first <= 0 ||
      second === -1 ||
      !isResolveHost(host) ||
      !/^\d{1,5}$/.test(port) ||
      Number(port) > 65535 ||
      isIP(addr) === 0
    ) {
      refuse(resolveMap, text);
    }
    const next = new Map(previous ?? []);
    next.set(`${host}:${port}`, addr);
    return next;
  },
  fromFile: (value) => listFromFile(resolveMap, new Map())(value),
};

/** Header names as RFC 9110 spells a token. */
const TOKEN = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
/** Headers the fetcher writes itself, or that would break the exchange. */
const OWN_HEADERS = new Set([
  'host',
  'connection',
  'content-length',
  'transfer-encoding',
  'user-agent',
  'accept-encoding',
  'te',
  'upgrade',
  'keep-alive',
  'proxy-authorization',
  'if-none-match',
  'if-modified-since',
]);

/** Why a header may not be sent as given, or null when it may. */
export function headerProblem(name: string, value: unknown): string | null {
  if (!TOKEN.test(name)) return `"${name}" is not a header name`;
  if (OWN_HEADERS.has(name.toLowerCase())) {
    return name.toLowerCase() === 'user-agent'
      ? 'User-Agent is set with --user-agent (userAgent)'
      : `${name} is the crawler's to send`;
  }
  if (typeof value !== 'string' || /[\r\n\0]/.test(value))
    return `the value of ${name} must be one line of text`;
  return null;
}

/** Request headers: --header 'Name: value' (repeatable); crawl() and a config file take { Name: value }. */
export const headerMap: OptionKind<Readonly<Record<string, string>>> = {
  expected: 'request headers like { "Accept-Language": "en" } ("Name: value" on the command line)',
  check: (v): v is Readonly<Record<string, string>> =>
    typeof v === 'object' &&
    v !== null &&
    !Array.isArray(v) &&
    Object.entries(v).every(([name, value]) => headerProblem(name, value) === null),
  parse(text, previous) {
    const colon = text.indexOf(':');
    const name = text.slice(0, colon).trim();
    const value = text.slice(colon + 1).trim();
    if (colon <= 0) refuse(headerMap, text);
    const problem = headerProblem(name, value);
    if (problem !== null) throw new OptionValueError(problem);
    return { ...(previous ?? {}), [name]: value };
  },
  fromFile(value) {
    if (Array.isArray(value)) return listFromFile(headerMap, {})(value);
    if (typeof value === 'object' && value !== null) {
      for (const [name, v] of Object.entries(value)) {
        const problem = headerProblem(name, v);
        if (problem !== null) throw new OptionValueError(problem);
      }
      return { ...(value as Record<string, string>) };
    }
    throw new OptionValueError(`expected ${headerMap.expected}, got ${shown(value)}`);
  },
};

/** An http:// or https:// proxy's URL (--proxy); user and password in it are sent to the proxy. */
export const proxyUrl: OptionKind<string> = {
  expected: 'an http:// or https:// proxy URL, like http://127.0.0.1:3128',
  check: (v): v is string => {
    if (typeof v !== 'string') return false;
    const u = URL.parse(v);
    return u !== null && (u.protocol === 'http:' || u.protocol === 'https:') && u.hostname !== '';
  },
  parse(text) {
    if (!proxyUrl.check(text.trim())) refuse(proxyUrl, text);
    return text.trim();
  },
};

/** HOST:PORT (an IPv6 host in brackets), or PORT alone for 127.0.0.1:PORT; null when it is neither. */
export function parseHostPort(text: string): { host: string; port: number } | null {
  const m = /^(?:(\[[^\]]+\]|[^:[\]]+):)?(\d{1,5})$/.exec(text.trim());
  if (m === null || Number(m[2]) > 65535) return null;
  return { host: (m[1] ?? '127.0.0.1').replace(/^\[|\]$/g, ''), port: Number(m[2]) };
}

/** --http HOST:PORT: where the console listens (port 0: any free one). */
export const listenAddress: OptionKind<string> = {
  expected: 'HOST:PORT, like 127.0.0.1:8080 (port 0 picks a free one)',
  check: (v): v is string => typeof v === 'string' && parseHostPort(v) !== null,
  parse(text) {
    if (parseHostPort(text) === null) refuse(listenAddress, text);
    return text.trim();
  },
};

/** A shared store's connection string (--store): PostgreSQL's. */
export const storeUrl: OptionKind<string> = {
  expected: 'a PostgreSQL connection string, like postgres://USER@HOST/DB',
  check: (v): v is string => typeof v === 'string' && /^postgres(ql)?:\/\/\S+$/i.test(v),
  parse(text) {
    if (!storeUrl.check(text.trim())) refuse(storeUrl, text);
    return text.trim();
  },
};

/** A crawl's name (--crawl): a folder's on a server (crawls/NAME), a row's in PostgreSQL. */
export const crawlName: OptionKind<string> = {
  expected: `a name of ${CRAWL_NAME_RULE}`,
  check: (v): v is string => typeof v === 'string' && CRAWL_NAME.test(v),
  parse(text) {
    if (!crawlName.check(text)) refuse(crawlName, text);
    return text;
  },
};

/** A function of the caller's (onPage, onLog, ...): only crawl() can be given one. */
export function callback<F extends (...args: never[]) => unknown>(): OptionKind<F> {
  return { expected: 'a function', check: (v): v is F => typeof v === 'function', fromFile: null };
}

export const abortSignal: OptionKind<AbortSignal> = {
  expected: 'an AbortSignal',
  check: (v): v is AbortSignal => v instanceof AbortSignal,
  fromFile: null,
};

/** A value as a message shows it: strings quoted, objects named by their kind. */
export function shown(value: unknown): string {
  if (typeof value === 'string') return JSON.stringify(value);
  if (typeof value === 'function') return 'a function';
  if (Array.isArray(value)) return 'an array';
  if (value === null) return 'null';
  if (typeof value === 'object') return `a ${value.constructor?.name ?? 'object'}`;
  return String(value);
}
