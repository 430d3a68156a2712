import { Command } from 'commander';
import { CrawlOptionError } from '../errors.js';
import { OPTIONS } from '../options/options.js';
import { EXIT } from './exit-codes.js';
import { addConfigFlags, type Gathered, gatherOptions } from './gathered-options.js';
import { addRuleOptions } from './rule-options.js';

/**
 * `cobweb config --print`: the settings `cobweb crawl` would run with, given the same
 * flags and --config, and where each came from. Nothing is crawled or touched.
 */
export function configCommand(outcome: { code: number }): Command {
  const command = new Command('config')
    .description(
      'show the settings cobweb crawl would run with (the same flags and --config), and where each comes from',
    )
    .argument('[seed...]', 'seed URLs, as cobweb crawl takes them')
    .option('--print', 'print the effective settings, one a line: key, value, source');
  const read = addRuleOptions(command);
  addConfigFlags(command);
  return command.action(async (args: string[], flags: Record<string, unknown>) => {
    if (flags.print !== true)
      throw new CrawlOptionError('cobweb config needs --print (see cobweb config --help)');
    const gathered = await gatherOptions(command, read, args);
    process.stdout.write(`${settingsLines(gathered, process.env).join('\n')}\n`);
    outcome.code = EXIT.ok;
  });
}

/** Proxies the fetcher takes from the environment when no proxy option is given. */
const PROXY_ENV = ['HTTPS_PROXY', 'https_proxy', 'HTTP_PROXY', 'http_proxy', 'NO_PROXY', 'no_proxy'];

/** One line per setting: every option the table has (set or not), then the seeds. */
export function settingsLines(g: Gathered, env: NodeJS.ProcessEnv): string[] {
  const rows: [string, string, string][] = [];
  for (const [key, spec] of Object.entries(OPTIONS)) {
    if (spec.kind.fromFile === null) continue; // callbacks: only crawl() can be given one
    const value = (g.options as Record<string, unknown>)[key];
    rows.push([key, value === undefined ? '-' : printed(value), g.sources[key] ?? 'not set']);
  }
  rows.push(['seeds', printed(g.seeds), g.sources.seeds ?? 'none given']);
  if (g.options.proxy === undefined) {
    for (const name of PROXY_ENV) {
      const v = env[name];
      if (v !== undefined && v !== '') rows.push([name, JSON.stringify(v), 'environment (no proxy option)']);
    }
  }
  const width = Math.max(...rows.map(([k]) => k.length));
  const valueWidth = Math.min(40, Math.max(...rows.map(([, v]) => v.length)));
  return rows.map(([k, v, s]) => `${k.padEnd(width)}  ${v.padEnd(valueWidth)}  (${s})`);
}

/** A setting as a config file would write it: JSON, with regular expressions by source and no limit as such. */
function printed(value: unknown): string {
  return JSON.stringify(value, (_key, v: unknown) => {
    if (v instanceof RegExp) return v.source;
    if (v instanceof Map) return [...v].map(([host, addr]) => `${host}:${addr}`);
    if (v === Number.POSITIVE_INFINITY) return 'no limit';
    return v;
  });
}
