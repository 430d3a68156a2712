import type { DocSection, OptionSpec } from '../src/options/option-table.js';
import { OPTIONS } from '../src/options/options.js';

/** The page that holds the option tables, from the repository's root. */
export const OPTIONS_DOC = 'docs/options.md';

/**
 * The sections of the README that option texts link to (`[Cookies](#cookies)` is a
 * section of docs/options.md, these are not): their links lead to the README.
 */
const README_SECTIONS: readonly string[] = [
  'crawling-on-postgresql-bunnies-with-no-server',
  'watching-and-steering---http-and-cobweb-report',
];

/**
 * The option tables of docs/options.md as the option table says they are: one row per
 * option, `| option | default | what it does |`, the option as the command line spells
 * it and by its config key. test/docs/option-tables.test.ts holds the page to these, and
 * scripts/option-tables.ts writes them into it.
 */
export function optionTable(section: DocSection): string {
  const rows = ['| option | default | what it does |', '|---|---|---|'];
  for (const [key, spec] of Object.entries(OPTIONS) as [string, OptionSpec<unknown>][]) {
    if (spec.docs?.section !== section) continue;
    const named = spec.flag === undefined ? `\`${key}\`` : `\`${flagShown(spec)}\`, \`${key}\``;
    const text = linksFromDocs((spec.docs.text ?? spec.help).replace(/\|/g, '\\|'));
    rows.push(`| ${named} | ${defaultShown(spec)} | ${text} |`);
  }
  return rows.join('\n');
}

/** `](#section)` as a link from docs/: to the README when the section is the README's. */
function linksFromDocs(text: string): string {
  return text.replace(/\]\(#([\w-]+)\)/g, (link, anchor: string) =>
    README_SECTIONS.includes(anchor) ? `](../README.md#${anchor})` : link,
  );
}

/** '--max-pages <n>' as `--max-pages N`; a choice as `--scope host\|domain\|any`. */
function flagShown(spec: OptionSpec<unknown>): string {
  const [name, placeholder] = (spec.flag as string).split(' ');
  if (placeholder === undefined) return name as string;
  const value = spec.kind.choices?.join('\\|') ?? placeholder.replace(/^<|>$/g, '').toUpperCase();
  return `${name} ${value}`;
}

function defaultShown(spec: OptionSpec<unknown>): string {
  if (spec.docs?.default !== undefined) return spec.docs.default;
  const value = spec.default;
  if (spec.kind.switch === true)
    return spec.flag?.startsWith('--no-') === true || value !== true ? 'off' : 'on';
  if (value === undefined) return '';
  if (value === Number.POSITIVE_INFINITY) return 'no limit';
  if (typeof value === 'string') return `\`${value}\``;
  return String(value);
}

export const SECTIONS: readonly DocSection[] = [
  'followed',
  'politeness',
  'limits',
  'requests',
  'render',
  'run',
  'seen',
  'passes',
  'file',
];
