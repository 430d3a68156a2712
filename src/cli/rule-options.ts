import { type Command, InvalidArgumentError, Option } from 'commander';
import { OptionValueError } from '../options/option-kinds.js';
import type { OptionSpec } from '../options/option-table.js';
import { type CrawlOptions, DEFAULTS, OPTIONS } from '../options/options.js';

export type Key = Exclude<keyof CrawlOptions, 'seeds'>;
type Flagged = [key: Key, spec: OptionSpec<unknown> & { flag: string }];

/** The options the command line has: every one with a flag, in the table's order. */
export const FLAGGED = (Object.entries(OPTIONS) as [Key, OptionSpec<unknown>][]).filter(
  (e): e is Flagged => e[1].flag !== undefined,
);

/** The long flag of an option ('--max-pages'), or null when it has none. */
export function longFlagOf(key: Key): string | null {
  const flag = (OPTIONS[key] as OptionSpec<unknown>).flag;
  return flag === undefined ? null : (flag.split(/[ ,]/)[0] as string);
}

/** commander's Option for an option: its parser, choices and default, so --help shows them. */
function optionOf([key, spec]: Flagged): Option {
  const option = new Option(spec.flag, spec.help);
  const { kind } = spec;
  if (kind.choices !== undefined) option.choices(kind.choices);
  else if (kind.parse !== undefined) {
    const parse = kind.parse;
    option.argParser((text: string, previous: unknown) => {
      try {
        return parse(text, previous);
      } catch (err) {
        if (err instanceof OptionValueError) throw new InvalidArgumentError(`${err.message}.`);
        throw err;
      }
    });
  }
  const fallback = (DEFAULTS as Record<string, unknown>)[key];
  const shown = typeof fallback === 'string' || (typeof fallback === 'number' && Number.isFinite(fallback));
  if (shown && kind.switch === undefined) option.default(fallback, spec.helpDefault);
  return option;
}

/** Options given on the command line, each with the flag that gave it. */
export interface FlagValues {
  values: Partial<CrawlOptions>;
  /** Per option: the flag it came from ('--max-pages'). */
  flags: Partial<Record<Key, string>>;
}

/**
 * Adds the flags of the option table to a command (all of them, or those of `only`, in
 * the table's order; `defaults` shows a command's own defaults in --help) and returns
 * what reads back the options the command line gave: only those typed, not defaults,
 * so that a config file's values hold where no flag was given.
 */
export function addRuleOptions(
  command: Command,
  only?: readonly Key[],
  defaults: Partial<Record<Key, unknown>> = {},
): () => FlagValues {
  const chosen = only === undefined ? FLAGGED : FLAGGED.filter(([key]) => only.includes(key));
  const options = chosen.map((flagged) => {
    const option = optionOf(flagged);
    const fallback = defaults[flagged[0]];
    if (fallback !== undefined) option.default(fallback);
    command.addOption(option);
    return [flagged[0], option] as const;
  });
  return () => {
    const values: Record<string, unknown> = {};
    const flags: Partial<Record<Key, string>> = {};
    for (const [key, option] of options) {
      const name = option.attributeName();
      if (command.getOptionValueSource(name) !== 'cli') continue;
      values[key] = command.getOptionValue(name);
      flags[key] = option.long ?? option.flags;
    }
    return { values: values as Partial<CrawlOptions>, flags };
  };
}
