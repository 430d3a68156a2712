import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { CommanderError } from 'commander';
import { describe, expect, it } from 'vitest';
import { crawl } from '../../src/assembly/crawl.js';
import { crawlCommand } from '../../src/cli/crawl-command.js';
import { CrawlOptionError } from '../../src/errors.js';
import { type CrawlOptions, OPTIONS, withDefaults } from '../../src/options/options.js';
import { crawlHarness } from '../helpers/crawl-harness.js';
import { page } from '../helpers/http.js';

const h = crawlHarness('options', { builtinModules: false });
const SEED = 'http://127.0.0.2:9/';

/** What the command line says of `args` (it never gets to crawl: every case is refused). */
async function cliError(args: string[]): Promise<string> {
  let said = '';
  const command = crawlCommand({ code: 0 })
    .exitOverride()
    .configureOutput({
      outputError: (s) => {
        said += s;
      },
    });
  try {
    await command.parseAsync([SEED, '--data', join(h.dir, 'never'), ...args], { from: 'user' });
  } catch (err) {
    if (!(err instanceof CommanderError)) throw err;
    return said;
  }
  throw new Error(`the command line accepted ${args.join(' ')}`);
}

/** [option, a bad value for crawl(), the same on the command line]. */
const BAD: [keyof CrawlOptions, unknown, string[]][] = [
  ['maxPages', 'abc', ['--max-pages', 'abc']],
  ['maxPages', -1, ['--max-pages', '-1']],
  ['maxDepth', -1, ['--max-depth', '-1']],
  ['maxDepth', 1.5, ['--max-depth', '1.5']],
  ['concurrency', 0, ['--concurrency', '0']],
  ['delayFactor', -2, ['--delay-factor', '-2']],
  ['userAgent', '', ['--user-agent', '']],
  ['userAgent', '(compatible)', ['--user-agent', '(compatible)']],
  ['data', '', ['--data', '']],
  ['modules', [''], ['--module', '']],
  ['resolve', new Map([['a.test:80', 'nowhere']]), ['--resolve', 'a.test:80:nowhere']],
  // a wildcard is `*.` and a suffix: not a bare `*.`, nor a `*` inside a name
  ['resolve', new Map([['*.:80', '127.0.0.2']]), ['--resolve', '*.:80:127.0.0.2']],
  ['resolve', new Map([['a.*.test:80', '127.0.0.2']]), ['--resolve', 'a.*.test:80:127.0.0.2']],
  ['http', 'localhost', ['--http', 'localhost']],
  ['http', '127.0.0.1:70000', ['--http', '127.0.0.1:70000']],
];

describe('options: one set of rules for crawl() and the command line', () => {
  it.each(BAD)(
    '%s = %j is refused by both, naming the option, before anything is touched',
    async (key, value, args) => {
      const expected = OPTIONS[key as Exclude<keyof CrawlOptions, 'seeds'>].kind.expected;
      const attempt = crawl({ seeds: [SEED], data: join(h.dir, 'never'), [key]: value });
      await expect(attempt).rejects.toThrow(CrawlOptionError);
      await expect(attempt).rejects.toThrow(`${key} must be ${expected}, got `);
      expect(await cliError(args)).toContain(`expected ${expected}`);
      expect(existsSync(join(h.dir, 'never'))).toBe(false);
    },
  );

  it('refuses a choice not on the list, in both', async () => {
    await expect(crawl({ seeds: [SEED], scope: 'planet' as 'host' })).rejects.toThrow(
      'scope must be one of host, domain, any, got "planet"',
    );
    expect(await cliError(['--scope', 'planet'])).toContain('Allowed choices are host, domain, any');
    await expect(crawl({ seeds: [SEED], politenessKey: 'dns' as 'ip' })).rejects.toThrow(
      'politenessKey must be one of host, ip, got "dns"',
    );
  });

  it('refuses an unknown option, with the nearest known one', async () => {
    const attempt = crawl({ seeds: [SEED], maxPage: 3 } as CrawlOptions);
    await expect(attempt).rejects.toThrow(CrawlOptionError);
    await expect(attempt).rejects.toThrow('unknown option "maxPage"; did you mean "maxPages"?');
    await expect(crawl({ seeds: [SEED], colour: 'red' } as CrawlOptions)).rejects.toThrow(
      'unknown option "colour" (see CrawlOptions)',
    );
  });

  it('refuses values of the wrong type that TypeScript would have caught', async () => {
    const cases: [Partial<Record<string, unknown>>, string][] = [
      [{ include: ['/a/'] }, 'include must be a list of regular expressions, got an array'],
      [{ onPage: 'print' }, 'onPage must be a function, got "print"'],
      [{ fresh: 'yes' }, 'fresh must be true or false, got "yes"'],
      [{ signal: {} }, 'signal must be an AbortSignal, got a Object'],
      [{ seeds: 'http://a.test/' }, 'seeds must be a list of URLs, got "http://a.test/"'],
    ];
    for (const [given, message] of cases) {
      await expect(crawl({ seeds: [SEED], ...given } as CrawlOptions)).rejects.toThrow(message);
    }
  });

  it('takes undefined as "not given", as the command line does', async () => {
    const attempt = crawl({ seeds: ['ftp://x/'], maxPages: undefined, scope: undefined });
    await expect(attempt).rejects.toThrow('bad seed URL "ftp://x/"');
  });

  it('every option of the command line is in the rules table, with its help', () => {
    const help = crawlCommand({ code: 0 }).helpInformation();
    for (const rule of Object.values(OPTIONS) as { flag?: string; help?: string }[]) {
      if (rule.flag === undefined) continue;
      expect(help).toContain(rule.flag);
      expect(rule.help).toBeTruthy();
    }
  });
});

describe('the default seen set', () => {
  const seeds = ['http://a.test/'];
  it('is memory for a crawl of unknown or moderate size', () => {
    expect(withDefaults({ seeds }).seen).toBe('memory');
    expect(withDefaults({ seeds, maxPages: 10_000_000 }).seen).toBe('memory'); // about 6·10^7 URLs
    expect(withDefaults({ seeds, seenCapacity: 100_000_000 }).seen).toBe('memory');
  });

  it('is drum for a crawl expected past 10^8 URLs, by --max-pages or --seen-capacity', () => {
    expect(withDefaults({ seeds, maxPages: 20_000_000 }).seen).toBe('drum');
    expect(withDefaults({ seeds, seenCapacity: 100_000_001 }).seen).toBe('drum');
  });

  it('gives way to the one asked for', () => {
    expect(withDefaults({ seeds, maxPages: 1e9, seen: 'lmdb' }).seen).toBe('lmdb');
    expect(withDefaults({ seeds, seen: 'bloom' }).seen).toBe('bloom');
  });

  it('reaches the store: a crawl that names none is checked by memory', async () => {
    const site = await h.site('127.0.0.2', { '/': page('home', ['/a']), '/a': page('a') });
    const summary = await h.run([`${site.origin}/`], { delayMs: 0 });
    expect(summary.seen).toMatchObject({ kind: 'memory', size: 2 });
  });
});
