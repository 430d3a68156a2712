import { type Command, Option } from 'commander';
import { type ConfigFile, readConfigFile } from '../options/config-file.js';
import { type CrawlOptions, OPTION_DEFAULTS } from '../options/options.js';
import type { FlagValues, Key } from './rule-options.js';
import { readSeedsFile } from './seeds-file.js';

/** Where an option's value came from, as `cobweb config --print` says it. */
export type Source = string;

/** The options a command runs with, and where each came from. */
export interface Gathered {
  /** Every option given or defaulted, without the seeds. */
  options: Partial<CrawlOptions>;
  seeds: string[];
  /** Per option (and 'seeds'): "--max-pages", "config ./crawl.yaml", "COBWEB_STORE", "default". */
  sources: Record<string, Source>;
  config: ConfigFile | null;
}

/** --config and --seeds, which crawl, server and bunny share. */
export function addConfigFlags(command: Command): void {
  command
    .addOption(
      new Option(
        '--config <file>',
        "read options from this JSON or YAML file (crawl()'s option names as keys); flags override it",
      ),
    )
    .addOption(
      new Option(
        '--seeds <file>',
        'read seed URLs from this file, one a line (# comments allowed); - reads them from stdin',
      ),
    );
}

type Headers = Readonly<Record<string, string>>;

/** `over`'s headers on top of `under`'s, names compared as HTTP does (case-insensitively). */
export function mergeHeaders(under: Headers, over: Headers): Headers {
  const replaced = new Set(Object.keys(over).map((name) => name.toLowerCase()));
  const kept = Object.entries(under).filter(([name]) => !replaced.has(name.toLowerCase()));
  return { ...Object.fromEntries(kept), ...over };
}

/** The environment's say: COBWEB_STORE for --store. */
function fromEnvironment(env: NodeJS.ProcessEnv): {
  values: Partial<CrawlOptions>;
  names: Record<string, string>;
} {
  const store = env.COBWEB_STORE;
  return store === undefined || store === ''
    ? { values: {}, names: {} }
    : { values: { store }, names: { store: 'COBWEB_STORE' } };
}

/**
 * The options as a command runs with them, layered: the table's defaults, the command's
 * own defaults, the environment, the config file, then the flags (each over the one
 * before). Seeds come from the arguments and --seeds, else from the config file.
 */
export async function gatherOptions(
  command: Command,
  read: () => FlagValues,
  args: readonly string[],
  commandDefaults: Partial<Record<Key, unknown>> = {},
  env: NodeJS.ProcessEnv = process.env,
): Promise<Gathered> {
  const flags = read();
  const configFile = command.getOptionValue('config') as string | undefined;
  const seedsFile = command.getOptionValue('seeds') as string | undefined;
  const config = configFile === undefined ? null : readConfigFile(configFile);
  const options: Record<string, unknown> = {};
  const sources: Record<string, Source> = {};
  const layer = (values: Partial<CrawlOptions>, source: (key: string) => Source) => {
    for (const [key, value] of Object.entries(values)) {
      if (value === undefined || key === 'seeds') continue;
      const below = options[key];
      if (key === 'headers' && below !== undefined) {
        // A repeatable option adds to the layer below it; a header of the same name is replaced.
        options[key] = mergeHeaders(below as Headers, value as Headers);
        sources[key] = `${sources[key]} and ${source(key)}`;
        continue;
      }
      options[key] = value;
      sources[key] = source(key);
    }
  };
  layer(OPTION_DEFAULTS as Partial<CrawlOptions>, () => 'default');
  layer(commandDefaults as Partial<CrawlOptions>, () => `default of cobweb ${command.name()}`);
  const environment = fromEnvironment(env);
  layer(environment.values, (key) => environment.names[key] ?? 'environment');
  if (config !== null) layer(config.options, () => `config ${config.file}`);
  layer(flags.values, (key) => flags.flags[key as Key] ?? 'flag');
  const given = [...args, ...(seedsFile === undefined ? [] : await readSeedsFile(seedsFile))];
  let seeds = given;
  if (given.length > 0) {
    sources.seeds =
      seedsFile === undefined ? 'arguments' : args.length > 0 ? 'arguments and --seeds' : '--seeds';
  } else if (config?.options.seeds !== undefined) {
    seeds = [...config.options.seeds];
    sources.seeds = `config ${config.file}`;
  }
  return { options: options as Partial<CrawlOptions>, seeds, sources, config };
}
