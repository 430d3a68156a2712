// Writes the README's option tables from the option table (src/options/option-table.ts):
// after adding or changing an option, `npm run docs:options` brings README.md along, and
// test/docs/option-tables.test.ts checks that nobody forgot.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { optionTable, SECTIONS } from './option-table-text.js';

const path = join(import.meta.dirname, '..', 'README.md');
let text = readFileSync(path, 'utf8');
for (const section of SECTIONS) {
  const marker = `<!-- options: ${section} -->\n`;
  const at = text.indexOf(marker);
  if (at === -1) throw new Error(`README.md has no "${marker.trim()}" before the ${section} table`);
  const start = at + marker.length;
  const lines = text.slice(start).split('\n');
  const rows = lines.findIndex((line) => !line.startsWith('|'));
  const end = start + lines.slice(0, rows === -1 ? lines.length : rows).join('\n').length;
  text = text.slice(0, start) + optionTable(section) + text.slice(end);
}
writeFileSync(path, text);
