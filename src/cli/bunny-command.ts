import { Command } from 'commander';
import type { CrawlOptions } from '../bunny/options.js';
import { addRuleOptions } from './rule-options.js';
import { parseHostPort } from './server-command.js';

/** The crawl options that are each bunny's own: how it fetches. The rest comes from its server. */
const FETCH_OPTIONS = [
  'data',
  'concurrency',
  'parseThreads',
  'userAgent',
  'resolve',
  'allowPrivate',
  'maxBodyBytes',
  'totalTimeoutMs',
  'connectTimeoutMs',
  'firstByteTimeoutMs',
  'warcMaxBytes',
  'modules',
  'moduleTimeoutMs',
  'builtinModules',
] as const;

/**
 * `cobweb bunny`: the crawl loop of `cobweb crawl`, on a server's queue. It adds the
 * URLs it is given, fetches what the server leases it (WARC files in its own --data,
 * named with its crawler id), hands back what it found, and exits when the server says
 * the crawl is over (or waits for more with --wait).
 */
export function bunnyCommand(outcome: { code: number }): Command {
  const command = new Command('bunny')
    .description('crawl for a cobweb server: lease URLs from it, fetch them, hand back what was found')
    .argument('[url...]', 'URLs to add to the crawl first (seeds)');
  const read = addRuleOptions(command, FETCH_OPTIONS, { data: './cobweb-bunny' });
  command
    .requiredOption('--server <host:port>', 'the cobweb server', parseHostPort)
    .option('--token <token>', "the server's token (else COBWEB_TOKEN)")
    .option('--wait', 'when the crawl is over, keep asking for more instead of exiting')
    .option('--quiet', 'print nothing but errors and warnings');
  return command.action(async (urlArgs: string[], flags: Record<string, unknown>) => {
    const given = { ...read(flags), seeds: urlArgs } as CrawlOptions;
    const { runBunny } = await import('./bunny-run.js');
    await runBunny(given, urlArgs, flags, outcome);
  });
}
