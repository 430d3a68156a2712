import { existsSync, readFileSync } from 'node:fs';
import { connect } from 'node:net';
import { join } from 'node:path';
import { Command, Option } from 'commander';
import { count } from '../english.js';
import type { OriginalPacket, TextAnswer } from '../protocol/index.js';
import { EXIT } from './exit-codes.js';
import { parseCrawlName, parseHostPort } from './server-flags.js';

const ANSWER_TIMEOUT_MS = 60_000;

/** Commands about one crawl: its sites, queue and folder (modstat, loadmod and quit are about the server). */
const PER_CRAWL = new Set(['show', 'log', 'read']);

/** The token: --token, else COBWEB_TOKEN, else the server's DATA/token when --data names its folder. */
function tokenOf(flags: Record<string, unknown>): string | undefined {
  if (typeof flags.token === 'string') return flags.token;
  if (process.env.COBWEB_TOKEN !== undefined && process.env.COBWEB_TOKEN !== '')
    return process.env.COBWEB_TOKEN;
  if (typeof flags.data === 'string') {
    const file = join(flags.data, 'token');
    if (existsSync(file)) return readFileSync(file, 'utf8').trim();
  }
  return undefined;
}

/**
 * Sends one control packet (after AUTH, when there is a token) and reads everything
 * the server writes until it closes: a text answer, an ERROR, or nothing (done).
 */
export async function sendControl(
  server: { host: string; port: number },
  packet: OriginalPacket,
  token: string | undefined,
  crawl?: string,
): Promise<TextAnswer> {
  // The codec loads only for a control command, not for every command line.
  const { encode, readTextAnswer } = await import('../protocol/index.js');
  return new Promise((resolve, reject) => {
    const socket = connect({ host: server.host, port: server.port });
    const chunks: Buffer[] = [];
    const timer = setTimeout(() => {
      socket.destroy();
      reject(
        new Error(
          `the server at ${server.host}:${server.port} did not answer within ${ANSWER_TIMEOUT_MS / 1000} s`,
        ),
      );
    }, ANSWER_TIMEOUT_MS);
    socket.on('connect', () => {
      if (token !== undefined) {
        socket.write(encode({ type: 'AUTH', requestId: 0, more: false, body: { token } }));
      }
      // No --crawl, no CRAWL: the server's own crawl, what a server of one crawl (or an older one) expects.
      if (crawl !== undefined) {
        socket.write(encode({ type: 'CRAWL', requestId: 0, more: false, body: { crawl } }));
      }
      socket.write(encode(packet));
    });
    socket.on('data', (c) => chunks.push(c));
    socket.on('error', (err) => {
      clearTimeout(timer);
      reject(new Error(`cannot reach the cobweb server at ${server.host}:${server.port}: ${err.message}`));
    });
    socket.on('close', () => {
      clearTimeout(timer);
      resolve(readTextAnswer(Buffer.concat(chunks)));
    });
  });
}

/** What a command prints of the server's answer; `refused`: the server said no, in text (NEWMOD). */
type Printed = string | { refused: string };

/** A text answer's first line when it was not done (NEWMOD answers a refusal in text, as the original did). */
function loadmodAnswer(a: { text: string }): Printed {
  return /^module \S+ loaded /.test(a.text) ? a.text : { refused: a.text.trim() };
}

/** The sites the server's book holds for the connection's crawl: SHOWDATA's first line. */
async function sitesOf(flags: Record<string, unknown>, token: string | undefined): Promise<number | null> {
  const answer = await sendControl(
    flags.server as { host: string; port: number },
    { type: 'SHOWDATA' },
    token,
    typeof flags.crawl === 'string' ? flags.crawl : undefined,
  );
  const m = answer.kind === 'text' ? /^sites: (\d+)/.exec(answer.text) : null;
  return m === null ? null : Number(m[1]);
}

/** What a refusal for want of the token tells a user of the command line (the server speaks of AUTH). */
const NEEDS_TOKEN = (name: string) =>
  `cobweb ${name} needs the server's token: pass --token TOKEN, set COBWEB_TOKEN, or give --data the server's folder (its token file); the server printed the token when it first started`;

function controlCommand(
  name: string,
  description: string,
  packetOf: (arg: string | undefined) => OriginalPacket,
  print: (
    answer: TextAnswer & { kind: 'text' },
    flags: Record<string, unknown>,
    token: string | undefined,
    arg: string | undefined,
  ) => Printed | Promise<Printed>,
  outcome: { code: number },
  argument?: string,
): Command {
  const command = new Command(name).description(description);
  if (argument !== undefined) command.argument(argument);
  command
    .addOption(
      new Option('--server <host:port>', 'the cobweb server')
        .argParser(parseHostPort)
        .default({ host: '127.0.0.1', port: 7070 }, '127.0.0.1:7070'),
    )
    .option('--token <token>', "the server's token (else COBWEB_TOKEN, else DATA/token with --data)")
    .option('--data <dir>', "the server's data folder, to read its token from");
  if (name === 'show')
    command.option('--limit <n>', 'show at most N lines of sites and of the queue', Number);
  if (PER_CRAWL.has(name)) {
    command.addOption(
      new Option(
        '--crawl <name>',
        "the server's crawl (its sites, queue and folder; default: the one the server was started with)",
      ).argParser(parseCrawlName),
    );
  }
  return command.action(async (...args: unknown[]) => {
    const flags = (argument === undefined ? args[0] : args[1]) as Record<string, unknown>;
    const arg = argument === undefined ? undefined : (args[0] as string);
    try {
      const token = tokenOf(flags);
      const answer = await sendControl(
        flags.server as { host: string; port: number },
        packetOf(arg),
        token,
        typeof flags.crawl === 'string' ? flags.crawl : undefined,
      );
      if (answer.kind === 'error') {
        const message =
          answer.code === 200 ? NEEDS_TOKEN(name) : `the server refused ${name}: ${answer.message}`;
        process.stderr.write(`cobweb: ${message}\n`);
        outcome.code =
          answer.code === 200 || answer.code === 201 || answer.code === 204 || answer.code === 207
            ? EXIT.usage
            : EXIT.failed;
        return;
      }
      const text = await print(answer, flags, token, arg);
      if (typeof text !== 'string') {
        process.stderr.write(`cobweb: ${text.refused}\n`);
        outcome.code = EXIT.failed;
        return;
      }
      if (text !== '') process.stdout.write(text.endsWith('\n') ? text : `${text}\n`);
    } catch (err) {
      process.stderr.write(`cobweb: ${(err as Error).message}\n`);
      outcome.code = EXIT.failed;
    }
  });
}

/** `show --limit N`: the first N lines of each list (sites, hosts in the queue). */
function limited(text: string, limit: unknown): string {
  if (typeof limit !== 'number' || !Number.isInteger(limit) || limit < 0) return text;
  const out: string[] = [];
  let inList = 0;
  let cut = 0;
  for (const line of text.split('\n')) {
    if (!line.startsWith(' ')) {
      if (cut > 0) out.push(`  ... and ${cut} more`);
      inList = 0;
      cut = 0;
      out.push(line);
    } else if (line.startsWith('  ') && !line.startsWith('    ')) {
      inList++;
      if (inList <= limit) out.push(line);
      else cut++;
    } else if (inList <= limit) {
      out.push(line);
    }
  }
  if (cut > 0) out.push(`  ... and ${cut} more`);
  return out.join('\n');
}

/** The control commands: show, quit, modstat, log FILE, read FILE, loadmod NAME. */
export function controlCommands(outcome: { code: number }): Command[] {
  const text = (a: { text: string }) => a.text;
  const done = (what: string) => () => `cobweb: ${what}`;
  return [
    controlCommand(
      'show',
      'the sites with their directories and counts, then the queue',
      () => ({ type: 'SHOWDATA' }),
      (a, f) => limited(a.text, f.limit),
      outcome,
    ),
    controlCommand(
      'quit',
      'write cobweb.log and stop the server',
      () => ({ type: 'QUIT' }),
      done('the server stopped'),
      outcome,
    ),
    controlCommand(
      'modstat',
      'the modules loaded, with their calls and errors',
      () => ({ type: 'MODSTAT' }),
      text,
      outcome,
    ),
    controlCommand(
      'log',
      "append the sites and their module info to FILE in the server's data folder",
      (file) => ({ type: 'LOGDATA', file: file ?? '' }),
      async (_a, f, token, file) => {
        const sites = await sitesOf(f, token);
        const what = sites === null ? 'the sites' : count(sites, 'site');
        return `cobweb: wrote ${what} (one JSON line each) to ${file ?? ''} in the server's data folder`;
      },
      outcome,
      '<file>',
    ),
    controlCommand(
      'read',
      "count the sites of FILE (a log in the server's data folder) as visited",
      (file) => ({ type: 'READDATA', file: file ?? '' }),
      async (_a, f, token, file) => {
        const sites = await sitesOf(f, token);
        const book = sites === null ? '' : `; the server now knows ${count(sites, 'site')}`;
        return `cobweb: read ${file ?? ''}: its sites count as visited${book}`;
      },
      outcome,
      '<file>',
    ),
    controlCommand(
      'loadmod',
      "load module NAME (NAME.mjs or NAME.js in the server's --modules folder) while the crawl runs",
      (name) => ({ type: 'NEWMOD', name: name ?? '' }),
      loadmodAnswer,
      outcome,
      '<name>',
    ),
  ];
}
