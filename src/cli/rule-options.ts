import { type Command, InvalidArgumentError, Option } from 'commander';
import { OptionValueError } from '../bunny/option-kinds.js';
import { type CrawlOptions, DEFAULTS, OPTION_RULES, type OptionRule } from '../bunny/options.js';

type Key = Exclude<keyof CrawlOptions, 'seeds'>;
type Flagged = [key: Key, rule: OptionRule & { flag: string }];

/** The options the command line has: every rule with a flag, in the table's order. */
const FLAGGED = Object.entries(OPTION_RULES).filter((e): e is Flagged => e[1].flag !== undefined);

/** commander's Option for a rule: the rule's parser, choices and default, so --help shows them. */
function optionOf([key, rule]: Flagged): Option {
  const option = new Option(rule.flag, rule.help);
  const { kind } = rule;
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
  if (shown && kind.switch === undefined) option.default(fallback);
  return option;
}

/**
 * Adds the flags of the option table to a command (all of them, or those of `only`,
 * in the table's order) and returns what reads their values back as crawl options.
 */
export function addRuleOptions(
  command: Command,
  only?: readonly Key[],
  defaults: Partial<Record<Key, unknown>> = {},
): (flags: Record<string, unknown>) => Partial<CrawlOptions> {
  const chosen = only === undefined ? FLAGGED : FLAGGED.filter(([key]) => only.includes(key));
  const options = chosen.map((flagged) => {
    const option = optionOf(flagged);
    const fallback = defaults[flagged[0]];
    if (fallback !== undefined) option.default(fallback);
    command.addOption(option);
    return [flagged[0], option] as const;
  });
  return (flags) => {
    const given: Record<string, unknown> = {};
    for (const [key, option] of options) given[key] = flags[option.attributeName()];
    return given as Partial<CrawlOptions>;
  };
}

/** --store, else COBWEB_STORE: the shared store a command crawls on (none: the embedded one). */
export function storeFromEnv(given: Partial<CrawlOptions>): Partial<CrawlOptions> {
  const store = given.store ?? process.env.COBWEB_STORE;
  return store === undefined || store === '' ? {} : { store };
}
