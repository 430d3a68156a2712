import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { EXIT, EXIT_OF_ERROR, exitCodeOfError } from '../../src/cli/exit-codes.js';
import { main } from '../../src/cli/main.js';
import { ERROR_CODES } from '../../src/errors.js';
import { StoreSpecError } from '../../src/frontier/open-store.js';
import * as library from '../../src/index.js';
import { ErrorCode } from '../../src/protocol/errors.js';

// Every error the library throws carries a code, and the command line's exit code for it
// comes from one table (EXIT_OF_ERROR), which the README's "Exit codes" table agrees with.

/** One of each error class, as the code that throws it makes it. */
const ONE_OF_EACH: Error[] = [
  new library.CrawlOptionError('bad option'),
  new library.ModuleLoadError('bad module'),
  new library.DataDirError('bad folder'),
  new library.DataDirBusyError('busy folder'),
  new library.DiskFullError('disk full'),
  new library.OptionValueError('bad value'),
  new library.NotAStoreError('not a store'),
  new StoreSpecError('bad spec'),
  new library.SeenSetBusyError('busy seen set'),
  new library.PostgresConfigError('bad password'),
  new library.PostgresUnreachableError('no PostgreSQL'),
  new library.ServerUnreachableError('no server'),
  new library.ProtocolError(ErrorCode.BAD_LENGTH, 'short packet'),
  new library.ControlError(ErrorCode.BAD_NAME, 'bad name'),
  new library.LateStartError('too late'),
  new library.FetcherError('too-large', 'body too large'),
];

/** The classes src/index.ts exports that are errors, but the base. */
const exportedErrorClasses = Object.entries(library as Record<string, unknown>).filter(
  (entry): entry is [string, abstract new (...args: never[]) => Error] =>
    typeof entry[1] === 'function' && entry[1].prototype instanceof Error && entry[1] !== library.CobwebError,
);

/** The rows of the README's "Exit codes" table: code → what it says. */
function readmeExitCodes(): Map<number, string> {
  const readme = readFileSync(join(import.meta.dirname, '../../README.md'), 'utf8');
  const section = readme.split(/^### Exit codes$/m)[1]?.split(/^#/m)[0] ?? '';
  const rows = new Map<number, string>();
  for (const match of section.matchAll(/^\| (\d+) \| (.+) \|$/gm))
    rows.set(Number(match[1]), match[2] as string);
  return rows;
}

describe('errors with codes', () => {
  it('every error class the library exports is a CobwebError, and one of each is checked here', () => {
    // All of them but StoreSpecError, which only the tests' and benchmarks' openFrontier throws.
    expect(exportedErrorClasses).toHaveLength(ONE_OF_EACH.length - 1);
    for (const [name, value] of exportedErrorClasses) {
      expect(value.prototype, name).toBeInstanceOf(library.CobwebError);
      expect(
        ONE_OF_EACH.some((e) => e.constructor === value),
        `${name} is in ONE_OF_EACH`,
      ).toBe(true);
    }
  });

  it('each class has a code of its own, a known one, and keeps its name', () => {
    const codes = new Set<string>();
    for (const err of ONE_OF_EACH) {
      expect(err).toBeInstanceOf(library.CobwebError);
      const { code } = err as library.CobwebError;
      expect(Object.keys(ERROR_CODES)).toContain(code);
      expect(codes.has(code), `${code} is used once`).toBe(false);
      codes.add(code);
      expect(err.name).toBe(err.constructor.name);
    }
    // Every code is some class's.
    expect([...codes].sort()).toEqual(Object.keys(ERROR_CODES).sort());
  });

  it('subclasses stay what they were: a ModuleLoadError and a DataDirError are CrawlOptionErrors', () => {
    expect(new library.ModuleLoadError('x')).toBeInstanceOf(library.CrawlOptionError);
    expect(new library.DataDirError('x')).toBeInstanceOf(library.CrawlOptionError);
    expect(new library.DataDirBusyError('x')).not.toBeInstanceOf(library.CrawlOptionError);
  });

  it('the protocol errors keep their wire code beside their code', () => {
    const err = new library.ProtocolError(ErrorCode.TOO_LARGE, 'big');
    expect(err.code).toBe('COBWEB_PROTOCOL');
    expect(err.wireCode).toBe(101);
    expect(err.codeName).toBe('TOO_LARGE');
    expect(new library.ControlError(ErrorCode.BAD_NAME, 'x').wireCode).toBe(204);
  });
});

describe('exit codes of errors come from one table', () => {
  const exits = Object.values(EXIT) as number[];

  it('every code has an entry, and each entry is one of EXIT', () => {
    expect(Object.keys(EXIT_OF_ERROR).sort()).toEqual(Object.keys(ERROR_CODES).sort());
    for (const [code, exit] of Object.entries(EXIT_OF_ERROR)) expect(exits, code).toContain(exit);
  });

  it("the command line's exit code for each error is its code's entry", () => {
    for (const err of ONE_OF_EACH) {
      expect(exitCodeOfError(err)).toBe(EXIT_OF_ERROR[(err as library.CobwebError).code]);
    }
    // Not one of cobweb's: no code of its own, left to the launcher (a bug, exit 1).
    expect(exitCodeOfError(new Error('a bug'))).toBeNull();
  });

  it('main() returns the table entry for an error a command throws', async () => {
    const write = process.stderr.write;
    const said: string[] = [];
    process.stderr.write = ((text: string) => {
      said.push(text);
      return true;
    }) as typeof process.stderr.write;
    try {
      const code = await main(['node', 'cobweb', 'crawl', 'ftp://example.com/', '--data', '/nonexistent-x']);
      expect(code).toBe(EXIT_OF_ERROR.COBWEB_OPTION);
    } finally {
      process.stderr.write = write;
    }
    expect(said.join('')).toMatch(/^cobweb: bad seed URL "ftp:\/\/example.com\/"/);
  });

  it("the README's table lists exactly the codes of EXIT, each error's among them", () => {
    const rows = readmeExitCodes();
    expect([...rows.keys()].sort((a, b) => a - b)).toEqual([...new Set(exits)].sort((a, b) => a - b));
    for (const exit of Object.values(EXIT_OF_ERROR)) expect(rows.has(exit)).toBe(true);
    // The errors the README names are in the rows their codes' entries give.
    expect(rows.get(EXIT_OF_ERROR.COBWEB_DATA_DIR_BUSY)).toMatch(/in use by another crawl/);
    expect(rows.get(EXIT_OF_ERROR.COBWEB_POSTGRES_UNREACHABLE)).toMatch(/PostgreSQL unreachable/);
    expect(rows.get(EXIT_OF_ERROR.COBWEB_OPTION)).toMatch(/a bad option/);
    expect(rows.get(EXIT_OF_ERROR.COBWEB_MODULE_LOAD)).toMatch(/a `--module` that cannot be loaded/);
    expect(rows.get(EXIT_OF_ERROR.COBWEB_DATA_DIR)).toMatch(/a `--data` folder cobweb may not use/);
    expect(rows.get(EXIT_OF_ERROR.COBWEB_POSTGRES_CONFIG)).toMatch(
      /a `--store` whose password or database is wrong/,
    );
  });
});
