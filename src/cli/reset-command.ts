import { createInterface } from 'node:readline';
import { Command } from 'commander';
import { count } from '../english.js';
import { CrawlOptionError } from '../errors.js';
import { EXIT } from './exit-codes.js';

/** One line from standard input (null at its end), the question on stderr. */
async function answer(question: string): Promise<string | null> {
  const lines = createInterface({ input: process.stdin, output: process.stderr, terminal: false });
  process.stderr.write(question);
  try {
    for await (const line of lines) return line.trim();
    return null;
  } finally {
    lines.close();
  }
}

/**
 * `cobweb reset --store URL --crawl NAME`: deletes a PostgreSQL crawl so that it can be
 * started over, once the crawl's name is typed again (or --yes, for scripts).
 */
export function resetCommand(outcome: { code: number }): Command {
  return new Command('reset')
    .description(
      'delete a crawl in PostgreSQL (its queue, seen set, sites, counts) to start it over; asks for its name again',
    )
    .option('--store <url>', 'the PostgreSQL database (postgres://USER@HOST/DB; else COBWEB_STORE)')
    .option('--crawl <name>', 'the crawl to delete (the one a bunny or a crawl named with --crawl)')
    .option('--yes', 'do not ask: delete it (for scripts)')
    .action(async (flags: { store?: string; crawl?: string; yes?: boolean }) => {
      const store = flags.store ?? (process.env.COBWEB_STORE || undefined);
      if (store === undefined) {
        throw new CrawlOptionError(
          'cobweb reset needs --store postgres://USER@HOST/DB (or COBWEB_STORE); a folder crawl starts over with cobweb crawl --fresh',
        );
      }
      if (flags.crawl === undefined) {
        throw new CrawlOptionError(
          'cobweb reset needs --crawl NAME: the crawl to delete (default is "default")',
        );
      }
      const name = flags.crawl;
      const { resetCrawl } = await import('../assembly/reset.js');
      const ended = await resetCrawl({
        store,
        crawl: name,
        confirm: async (c) => {
          process.stderr.write(
            `cobweb: crawl "${name}" holds ${count(c.urls, 'URL')} and ${count(c.sites, 'site')}; reset deletes them all (the files in the crawlers' --data folders stay)\n`,
          );
          if (flags.yes === true) return true;
          const typed = await answer(`cobweb: type the crawl's name (${name}) to delete it: `);
          return typed === name;
        },
      });
      if (ended.kind === 'running') {
        process.stderr.write(
          `cobweb: crawl "${name}" is being crawled (${count(ended.crawlers, 'crawler')} heard from in the last 5 minutes): stop its processes first; nothing was deleted\n`,
        );
        outcome.code = EXIT.failed;
      } else if (ended.kind === 'kept') {
        process.stderr.write("cobweb: not the crawl's name: nothing was deleted\n");
        outcome.code = EXIT.usage;
      } else {
        process.stdout.write(
          `cobweb: crawl "${name}" deleted (${count(ended.urls, 'URL')}, ${count(ended.sites, 'site')}); the next process naming it starts it over\n`,
        );
        outcome.code = EXIT.ok;
      }
    });
}
