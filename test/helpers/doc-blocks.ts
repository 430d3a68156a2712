import { readFileSync } from 'node:fs';
import { join } from 'node:path';

/** The first fenced code block after `marker` in a Markdown file of the repository. */
export function codeBlockAfter(file: string, marker: string): string {
  const text = readFileSync(join(import.meta.dirname, '../..', file), 'utf8');
  const at = text.indexOf(marker);
  if (at === -1) throw new Error(`${file} has no "${marker}"`);
  const match = /```[a-z]*\n([\s\S]*?)```/.exec(text.slice(at));
  if (match?.[1] === undefined) throw new Error(`${file} has no code block after "${marker}"`);
  return match[1];
}
