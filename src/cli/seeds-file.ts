import { readFileSync } from 'node:fs';
import { CrawlOptionError } from '../errors.js';

/**
 * The seed URLs of a --seeds file: one a line; blank lines, lines starting with `#` and
 * a ` # comment` after a URL are skipped. `-` reads them from standard input.
 */
export async function readSeedsFile(file: string): Promise<string[]> {
  let text: string;
  try {
    text = file === '-' ? await readStdin() : readFileSync(file, 'utf8');
  } catch (err) {
    throw new CrawlOptionError(`cannot read the seeds file ${file}: ${(err as Error).message}`);
  }
  return seedLinesOf(text);
}

export function seedLinesOf(text: string): string[] {
  const seeds: string[] = [];
  for (const line of text.split(/\r?\n/)) {
    const url = line.replace(/(^|\s)#.*$/, '').trim();
    if (url !== '') seeds.push(url);
  }
  return seeds;
}

async function readStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}
