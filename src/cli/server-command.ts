import { Command, InvalidArgumentError, Option } from 'commander';
import { serve } from '../assembly/serve.js';
import { consoleLine } from '../console/access.js';
import { type BackoffStep, parseBackoff } from '../server/backoff.js';
import { DEFAULT_LIMITS } from '../server/server.js';
import { LOG_OPTIONS, stderrLog } from './command-log.js';
import { EXIT, type StopSignal } from './exit-codes.js';
import { addConfigFlags, gatherOptions } from './gathered-options.js';
import { summaryJson } from './progress.js';
import { QUIET_HELP, SERVER_JSON_HELP } from './quiet.js';
import { addRuleOptions } from './rule-options.js';
import { parseHostPort, QUEUE_OPTIONS } from './server-flags.js';

const SERVER_DEFAULTS = { data: './cobweb-server' };

const SERVER_CRAWL_HELP =
  "the server's own crawl: its seeds go there, and a bunny or a show that names no crawl works on it; crawl NAME lives in crawls/NAME in --data (default: --data itself), its queue and seen set in its row with --store";

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
  const read = addRuleOptions(command, [...QUEUE_OPTIONS, ...LOG_OPTIONS], SERVER_DEFAULTS);
  // The table's words for --crawl are a crawling command's (a folder, a row, --server).
  const crawlFlag = command.options.find((o) => o.long === '--crawl');
  if (crawlFlag !== undefined) crawlFlag.description = SERVER_CRAWL_HELP;
  addConfigFlags(command);
  command
    .addOption(
      new Option('--listen <host:port>', 'where bunnies and control commands connect')
        .argParser(parseHostPort)
        .default({ host: '127.0.0.1', port: 7070 }, '127.0.0.1:7070'),
    )
    .addOption(
      new Option(
        '--frontier <kind>',
        "the store in --data: sqlite (frontier.db) or workbench (the hosts in the server's memory, the URLs in files, journaled in workbench/; faster)",
      )
        .choices(['sqlite', 'workbench'])
        .default('sqlite'),
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
        .default(DEFAULT_LIMITS.idleMs, '300000 (5 minutes)'),
    )
    .option('--quiet', QUIET_HELP)
    .option('--json', SERVER_JSON_HELP);
  return command.action(async (seedArgs: string[], flags: Record<string, unknown>) => {
    const gathered = await gatherOptions(command, read, seedArgs, SERVER_DEFAULTS);
    const caller = new AbortController();
    const server = await serve({
      ...gathered.options,
      seeds: gathered.seeds,
      listen: flags.listen as { host: string; port: number },
      token: flags.token as string | undefined,
      modulesDir: flags.modules as string | undefined,
      backoff: flags.backoff as BackoffStep[],
      skipSubstrings: flags.skipSubstring as string[],
      frontier: flags.frontier as 'sqlite' | 'workbench',
      maxConnections: flags.maxConnections as number,
      idleTimeoutMs: flags.idleTimeout as number,
      onLog: stderrLog(flags.quiet === true),
      onListening: ({ listen, token, generatedToken, tokenFile }) => {
        process.stdout.write(`cobweb: server listening on ${listen}\n`);
        if (generatedToken) process.stdout.write(`cobweb: token (also in ${tokenFile}): ${token}\n`);
      },
      // On stdout whatever --quiet says: with port 0 nothing else tells the port.
      onConsole: (url, access) =>
        process.stdout.write(`cobweb: ${consoleLine(url, access.tokenOnEveryRequest, 'server')}\n`),
      signal: caller.signal,
    });
    let signal: StopSignal | null = null;
    const onSignal = (received: StopSignal) => {
      if (signal !== null) return;
      signal = received;
      // Said even under --quiet, as by cobweb crawl.
      process.stderr.write('cobweb: stopping: the bunnies are told, their leases go back to the queue\n');
      caller.abort();
    };
    // Once each: a second Ctrl-C ends the process at once.
    const onInt = () => onSignal('SIGINT');
    const onTerm = () => onSignal('SIGTERM');
    process.once('SIGINT', onInt);
    process.once('SIGTERM', onTerm);
    try {
      const summary = await server.done;
      if (flags.json === true) process.stdout.write(`${JSON.stringify(summaryJson(summary))}\n`);
    } finally {
      process.off('SIGINT', onInt);
      process.off('SIGTERM', onTerm);
    }
    outcome.code = signal === null ? EXIT.ok : EXIT[signal];
  });
}
