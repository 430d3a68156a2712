import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { OPTIONS_DOC, optionTable, SECTIONS } from '../../scripts/option-table-text.js';
import { configOptions } from '../../src/options/config-file.js';
import type { OptionSpec } from '../../src/options/option-table.js';
import { OPTIONS } from '../../src/options/options.js';
import { codeBlockAfter } from '../helpers/doc-blocks.js';

const DOC = readFileSync(join(import.meta.dirname, '../..', OPTIONS_DOC), 'utf8');

/** The table after `<!-- options: SECTION -->` in docs/options.md: its lines up to the first that is not a row. */
function docTable(section: string): string | null {
  const at = DOC.indexOf(`<!-- options: ${section} -->\n`);
  if (at === -1) return null;
  const lines = DOC.slice(at).split('\n').slice(1);
  const end = lines.findIndex((l) => !l.startsWith('|'));
  return lines.slice(0, end === -1 ? lines.length : end).join('\n');
}

describe(`the option tables of ${OPTIONS_DOC}`, () => {
  it.each(SECTIONS)('the %s table is the option table', (section) => {
    expect(
      docTable(section),
      `${OPTIONS_DOC} needs <!-- options: ${section} --> before its table; npm run docs:options writes the table`,
    ).toBe(optionTable(section));
  });

  it('has every option of the command line in one of them', () => {
    const missing = Object.entries(OPTIONS)
      .filter(([, spec]) => (spec as OptionSpec<unknown>).flag !== undefined)
      .filter(([, spec]) => (spec as OptionSpec<unknown>).docs === undefined)
      .map(([key]) => key);
    expect(missing).toEqual([]);
  });
});

describe(`the example config of ${OPTIONS_DOC}`, () => {
  it('is read without a complaint, every key and host section in it', () => {
    const text = codeBlockAfter(OPTIONS_DOC, '<!-- config example');
    const options = configOptions(OPTIONS_DOC, parse(text));
    expect(Object.keys(options)).toContain('hosts');
    expect(options.maxTimeMs).toBe(6 * 3_600_000);
    expect(options.hosts?.['blog.example.com']).toEqual({
      delayMs: 200,
      perHost: 4,
      headers: { 'X-Crawl-Token': 's3cret' },
    });
  });
});
