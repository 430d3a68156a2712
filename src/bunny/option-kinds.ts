import { isIP } from 'node:net';
import { productTokenOf } from '../fetch/robots/robots-txt.js';
import { CRAWL_NAME, CRAWL_NAME_RULE } from '../protocol/types.js';

/**
 * The kinds of value an option takes. Each kind knows how to check a value given to
 * crawl() and how to read one from the command line, so the library and the CLI
 * accept exactly the same things and say the same thing when they do not.
 */
export interface OptionKind {
  /** What a valid value is, for messages: "a whole number of at least 1". */
  readonly expected: string;
  /** Whether a value given to crawl() is valid. */
  check(value: unknown): boolean;
  /**
   * Reads the command line's text (with the value so far, for repeatable flags); throws
   * OptionValueError when the text is not valid. Absent for options only the library has.
   */
  parse?(text: string, previous: unknown): unknown;
  /** The command line's only accepted words, when there is such a list. */
  readonly choices?: readonly string[];
  /** A flag without a value (--fresh); parse is not used. */
  readonly switch?: true;
}

/** A value that does not fit its kind; the caller adds which option it was. */
export class OptionValueError extends Error {}

function refuse(kind: { expected: string }, text: string): never {
  throw new OptionValueError(`expected ${kind.expected}, got "${text}"`);
}

/** A whole number of at least `min`; with `unlimited`, Infinity (the library's "no limit") too. */
export function whole(min: number, unlimited = false): OptionKind {
  const kind: OptionKind = {
    expected: `a whole number of at least ${min}`,
    check: (v) =>
      typeof v === 'number' && ((Number.isSafeInteger(v) && v >= min) || (unlimited && v === Infinity)),
    parse(text) {
      const n = Number(text);
      if (!/^\d+$/.test(text.trim()) || !Number.isSafeInteger(n) || n < min) refuse(kind, text);
      return n;
    },
  };
  return kind;
}

export function atLeast(min: number): OptionKind {
  const kind: OptionKind = {
    expected: `a number of at least ${min}`,
    check: (v) => typeof v === 'number' && Number.isFinite(v) && v >= min,
    parse(text) {
      const n = Number(text);
      if (text.trim() === '' || !Number.isFinite(n) || n < min) refuse(kind, text);
      return n;
    },
  };
  return kind;
}

/** A shell command (--on-pass): any text but an empty one. */
export const command: OptionKind = {
  expected: 'a shell command (not empty)',
  check: (v) => typeof v === 'string' && v.trim() !== '',
  parse(text) {
    if (text.trim() === '') refuse(command, text);
    return text;
  },
};

/** A number strictly between 0 and 1 (a rate, like --seen-fp-rate). */
export const fraction: OptionKind = {
  expected: 'a number between 0 and 1, like 0.001',
  check: (v) => typeof v === 'number' && v > 0 && v < 1,
  parse(text) {
    const n = Number(text);
    if (text.trim() === '' || !(n > 0 && n < 1)) refuse(fraction, text);
    return n;
  },
};

export function oneOf(choices: readonly string[]): OptionKind {
  return {
    expected: `one of ${choices.join(', ')}`,
    check: (v) => typeof v === 'string' && choices.includes(v),
    choices,
  };
}

export const onOff: OptionKind = {
  expected: 'true or false',
  check: (v) => typeof v === 'boolean',
  switch: true,
};

/** A folder name: never empty (an empty --data would mean the current folder without saying so). */
export const folder: OptionKind = {
  expected: 'a folder name (not empty)',
  check: (v) => typeof v === 'string' && v.trim() !== '',
  parse(text) {
    if (text.trim() === '') refuse(folder, text);
    return text;
  },
};

/** A User-Agent: its first word is the product token robots.txt rules are matched against. */
export const userAgent: OptionKind = {
  expected:
    'a User-Agent whose first word is a robots.txt product token (letters, "-", "_"), like "mybot/1.0"',
  check: (v) => typeof v === 'string' && productTokenOf(v) !== '',
  parse(text) {
    if (productTokenOf(text) === '') refuse(userAgent, text);
    return text;
  },
};

/** Repeatable regular expressions (--include, --exclude). */
export const regexList: OptionKind = {
  expected: 'a list of regular expressions',
  check: (v) => Array.isArray(v) && v.every((r) => r instanceof RegExp),
  parse(text, previous) {
    try {
      return [...((previous as RegExp[] | undefined) ?? []), new RegExp(text)];
    } catch (err) {
      throw new OptionValueError(`not a valid regular expression: ${(err as Error).message}`);
    }
  },
};

/** Repeatable file names (--module). */
export const fileList: OptionKind = {
  expected: 'a list of file names, none empty',
  check: (v) => Array.isArray(v) && v.every((s) => typeof s === 'string' && s.trim() !== ''),
  parse(text, previous) {
    if (text.trim() === '') refuse(fileList, text);
    return [...((previous as string[] | undefined) ?? []), text];
  },
};

/** --skip-ext "jpg,png,zip": lowercase, dots and spaces dropped; "" turns the filter off. */
export const extensionList: OptionKind = {
  expected: 'a list of file extensions, like ["jpg", "zip"]',
  check: (v) => Array.isArray(v) && v.every((s) => typeof s === 'string'),
  parse: (text) =>
    text
      .split(',')
      .map((e) => e.trim().replace(/^\./, '').toLowerCase())
      .filter((e) => e !== ''),
};

/** --resolve HOST:PORT:ADDR, like curl's; ADDR may be an IPv6 address, bracketed or not. */
export const resolveMap: OptionKind = {
  expected: 'HOST:PORT:ADDR with an IP address, like example.com:443:127.0.0.2',
  check: (v) =>
    v instanceof Map &&
    [...v].every(
      ([key, addr]) =>
        typeof key === 'string' &&
        /^[^:]+:\d{1,5}$/.test(key) &&
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
    if (first <= 0 || second === -1 || !/^\d{1,5}$/.test(port) || Number(port) > 65535 || isIP(addr) === 0) {
      refuse(resolveMap, text);
    }
    const next = new Map((previous as Map<string, string> | undefined) ?? []);
    next.set(`${host}:${port}`, addr);
    return next;
  },
};

/** HOST:PORT (an IPv6 host in brackets), or PORT alone for 127.0.0.1:PORT; null when it is neither. */
export function parseHostPort(text: string): { host: string; port: number } | null {
  const m = /^(?:(\[[^\]]+\]|[^:[\]]+):)?(\d{1,5})$/.exec(text.trim());
  if (m === null || Number(m[2]) > 65535) return null;
  return { host: (m[1] ?? '127.0.0.1').replace(/^\[|\]$/g, ''), port: Number(m[2]) };
}

/** --http HOST:PORT: where the console listens (port 0: any free one). */
export const listenAddress: OptionKind = {
  expected: 'HOST:PORT, like 127.0.0.1:8080 (port 0 picks a free one)',
  check: (v) => typeof v === 'string' && parseHostPort(v) !== null,
  parse(text) {
    if (parseHostPort(text) === null) refuse(listenAddress, text);
    return text.trim();
  },
};

/** A shared store's connection string (--store): PostgreSQL's. */
export const storeUrl: OptionKind = {
  expected: 'a PostgreSQL connection string, like postgres://USER@HOST/DB',
  check: (v) => typeof v === 'string' && /^postgres(ql)?:\/\/\S+$/i.test(v),
  parse(text) {
    if (!storeUrl.check(text.trim())) refuse(storeUrl, text);
    return text.trim();
  },
};

/** A crawl's name (--crawl): a folder's on a server (crawls/NAME), a row's in PostgreSQL. */
export const crawlName: OptionKind = {
  expected: `a name of ${CRAWL_NAME_RULE}`,
  check: (v) => typeof v === 'string' && CRAWL_NAME.test(v),
  parse(text) {
    if (!crawlName.check(text)) refuse(crawlName, text);
    return text;
  },
};

export const callback: OptionKind = { expected: 'a function', check: (v) => typeof v === 'function' };

export const abortSignal: OptionKind = {
  expected: 'an AbortSignal',
  check: (v) => v instanceof AbortSignal,
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
