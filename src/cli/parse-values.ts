import { isIP } from 'node:net';
import { InvalidArgumentError } from 'commander';

/** Value parsers for command-line options: each throws a one-line reason commander prints. */

export function wholeNumber(min: number): (value: string) => number {
  return (value) => {
    const n = Number(value);
    if (!/^\d+$/.test(value.trim()) || !Number.isSafeInteger(n) || n < min) {
      throw new InvalidArgumentError(`expected a whole number of at least ${min}, got "${value}".`);
    }
    return n;
  };
}

export function nonNegativeNumber(value: string): number {
  const n = Number(value);
  if (value.trim() === '' || !Number.isFinite(n) || n < 0) {
    throw new InvalidArgumentError(`expected a number of at least 0, got "${value}".`);
  }
  return n;
}

export function collectRegex(value: string, previous: RegExp[] = []): RegExp[] {
  try {
    return [...previous, new RegExp(value)];
  } catch (err) {
    throw new InvalidArgumentError(`not a valid regular expression: ${(err as Error).message}.`);
  }
}

export function collectString(value: string, previous: string[] = []): string[] {
  return [...previous, value];
}

/** --resolve HOST:PORT:ADDR, like curl's; ADDR may be an IPv6 address, bracketed or not. */
export function collectResolve(
  value: string,
  previous: Map<string, string> = new Map(),
): Map<string, string> {
  const first = value.indexOf(':');
  const second = first === -1 ? -1 : value.indexOf(':', first + 1);
  const host = value.slice(0, first).toLowerCase();
  const port = value.slice(first + 1, second);
  let addr = value.slice(second + 1);
  if (addr.startsWith('[') && addr.endsWith(']')) addr = addr.slice(1, -1);
  if (first <= 0 || second === -1 || !/^\d{1,5}$/.test(port) || Number(port) > 65535 || isIP(addr) === 0) {
    throw new InvalidArgumentError(
      `expected HOST:PORT:ADDR with an IP address, like example.com:443:127.0.0.2, got "${value}".`,
    );
  }
  const next = new Map(previous);
  next.set(`${host}:${port}`, addr);
  return next;
}

/** --skip-ext "jpg,png,zip": lowercase, dots and spaces dropped; "" turns the filter off. */
export function extensionList(value: string): string[] {
  return value
    .split(',')
    .map((e) => e.trim().replace(/^\./, '').toLowerCase())
    .filter((e) => e !== '');
}
