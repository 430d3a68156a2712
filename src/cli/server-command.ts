import { Command, InvalidArgumentError, Option } from 'commander';
import type { CrawlOptions } from '../bunny/options.js';
import { parseBackoff } from '../server/backoff.js';
import { DEFAULT_IDLE_MS } from '../server/defaults.js';
import { addRuleOptions } from './rule-options.js';

/** The crawl options that belong to the queue (the server's), not to fetching (each bunny's). */
const QUEUE_OPTIONS = [
  'data',
  'fresh',
  'retryFailed',
  'maxPages',
  'maxDepth',
  'scope',
  'include',
  'exclude',
  'perHost',
  'delayMs',
  'delayFactor',
  'maxDelayMs',
  'politenessKey',
  'retries',
  'retryDelayMs',
  'hostBackoffMs',
  'retireAfter',
  'maxPagesPerHost',
  'maxPathSegments',
  'maxSegmentRepeats',
  'maxQueryParams',
  'ignoreRobots',
  'sitemaps',
  'skipExtensions',
  'followNofollow',
  'maxRedirects',
  'moduleTimeoutMs',
  'builtinModules',
  'seen',
  'seenCapacity',
  'seenFpRate',
  'http',
] as const;

/** --listen HOST:PORT; an IPv6 host in brackets. */
export function parseHostPort(text: string): { host: string; port: number } {
  const m = /^(\[[^\]]+\]|[^:]+):(\d{1,5})$/.exec(text.trim());
  if (m === null || Number(m[2]) > 65535) {
    throw new InvalidArgumentError(`expected HOST:PORT, like 127.0.0.1:7070, got "${text}".`);
  }
  return { host: (m[1] as string).replace(/^\[|\]$/g, ''), port: Number(m[2]) };
}

function atLeastOne(text: string): number {
  const n = Number(text);
  if (!Number.isInteger(n) || n < 1)
    throw new InvalidArgumentError(`expected a whole number of at least 1, got "${text}".`);
  return n;
}

function collect(value: string, previous: string[] = []): string[] {
  return [...previous, value];
}

/** `cobweb server`: holds a crawl for bunnies; stops on QUIT (`cobweb quit`), Ctrl-C or SIGTERM. */
export function serverCommand(outcome: { code: number }): Command {
  const command = new Command('server')
    .description(
      'hold a crawl (queue, seen set, outputs) for bunnies; steered by show, quit, modstat, log, read, loadmod',
    )
    .argument('[seed...]', 'http(s) URLs to start from (depth 0); bunnies may add more');
  const read = addRuleOptions(command, QUEUE_OPTIONS, { data: './cobweb-server' });
  command
    .addOption(
      new Option('--listen <host:port>', 'where bunnies and control commands connect')
        .argParser(parseHostPort)
        .default({ host: '127.0.0.1', port: 7070 }, '127.0.0.1:7070'),
    )
    .option('--modules <dir>', 'where loadmod finds NAME.mjs or NAME.js')
    .option(
      '--token <token>',
      'the secret clients send (else COBWEB_TOKEN, else DATA/token, made and printed once)',
    )
    .addOption(
      new Option(
        '--backoff <steps>',
        'per-server back-off: after AFTER URLs of one server, hand out only every EVERY-th (AFTER:EVERY,...)',
      )
        .argParser((text: string) => {
          try {
            return parseBackoff(text);
          } catch (err) {
            throw new InvalidArgumentError(`${(err as Error).message}.`);
          }
        })
        .default([], 'none'),
    )
    .addOption(
      new Option('--skip-substring <text>', 'refuse URLs containing this (like cgi-bin or /~); repeatable')
        .argParser(collect)
        .default([], 'none'),
    )
    .option('--max-connections <n>', 'connections at once, bunnies and commands', atLeastOne, 256)
    .addOption(
      new Option(
        '--idle-timeout <ms>',
        'close a connection that sent half a packet, or nothing and waits for nothing, this long',
      )
        .argParser(atLeastOne)
        .default(DEFAULT_IDLE_MS, '300000 (5 minutes)'),
    )
    .option('--quiet', 'print nothing but errors and warnings');
  return command.action(async (seedArgs: string[], flags: Record<string, unknown>) => {
    const given = { ...read(flags), seeds: seedArgs } as CrawlOptions;
    const { runServer } = await import('./server-run.js');
    await runServer(given, seedArgs, flags, outcome);
  });
}
