import { readFileSync } from 'node:fs';
import { CrawlOptionError } from '../errors.js';
import { canonicalize } from '../url/canonicalize.js';
import { seedProblem } from '../url/seed-problem.js';

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
  const name = file === '-' ? 'standard input' : file;
  const seeds: string[] = [];
  for (const [i, line] of text.split(/\r?\n/).entries()) {
    const url = seedOfLine(line);
    if (url === null) continue;
    const c = canonicalize(url);
    if (!c.ok) throw new CrawlOptionError(`${name}:${i + 1}: ${seedProblem(url, c.reason)}`);
    seeds.push(url);
  }
  if (seeds.length === 0) {
    throw new CrawlOptionError(
      `the seeds file ${name} holds no URL: write one http:// or https:// URL a line (# starts a comment)`,
    );
  }
  return seeds;
}

/** The URL of a line, or null for a blank line or a comment. */
function seedOfLine(line: string): string | null {
  const url = line.replace(/(^|\s)#.*$/, '').trim();
  return url === '' ? null : url;
}

async function readStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}
