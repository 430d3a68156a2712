// Writes the option tables of docs/options.md from the option table
// (src/options/option-table.ts): after adding or changing an option, `npm run docs:options`
// brings the page along, and test/docs/option-tables.test.ts checks that nobody forgot.
// Each table follows its `<!-- options: SECTION -->` marker; the text around the tables is
// the page's own and stays as it is.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { OPTIONS_DOC, optionTable, SECTIONS } from './option-table-text.js';

const path = join(import.meta.dirname, '..', OPTIONS_DOC);
let text = readFileSync(path, 'utf8');
for (const section of SECTIONS) {
  const marker = `<!-- options: ${section} -->\n`;
  const at = text.indexOf(marker);
  if (at === -1) throw new Error(`${OPTIONS_DOC} has no "${marker.trim()}" before the ${section} table`);
  const start = at + marker.length;
  const lines = text.slice(start).split('\n');
  const rows = lines.findIndex((line) => !line.startsWith('|'));
  const end = start + lines.slice(0, rows === -1 ? lines.length : rows).join('\n').length;
  text = text.slice(0, start) + optionTable(section) + text.slice(end);
}
writeFileSync(path, text);
