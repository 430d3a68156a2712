import { describe, expect, it } from 'vitest';
import { BIN } from '../helpers/cli-process.js';
import { runNode } from '../helpers/run-node.js';

/** The lines of `cobweb ARGS --help` that describe `flag` (its entry may wrap). */
async function entryOf(args: string[], flag: string): Promise<string> {
  const r = await runNode([BIN, ...args, '--help']);
  expect(r.code).toBe(0);
  const lines = r.stdout.split('\n');
  const at = lines.findIndex((l) => l.trimStart().startsWith(flag));
  expect(at, `${flag} in ${args.join(' ')} --help`).toBeGreaterThan(-1);
  const entry = [lines[at] as string];
  for (const l of lines.slice(at + 1)) {
    if (/^\s+-/.test(l) || l.trim() === '') break;
    entry.push(l);
  }
  return entry.join(' ').replace(/\s+/g, ' ');
}

describe('--help', () => {
  it('gives --parse-threads its default once, in words', async () => {
    const entry = await entryOf(['crawl'], '--parse-threads');
    expect(entry.match(/default/g)).toHaveLength(1);
    expect(entry).toContain('(default: the cores but one, at least 1)');
  });

  it("speaks of the server's own crawl in cobweb server's --crawl, not of a --server it has not", async () => {
    const entry = await entryOf(['server'], '--crawl');
    expect(entry).not.toContain('--server');
    expect(entry).toContain("the server's own crawl");
  });

  it('says a crawl given no seeds goes on with the one in --data', async () => {
    const r = await runNode([BIN, 'crawl', '--help']);
    expect(r.stdout.replace(/\s+/g, ' ')).toContain('none to go on with the crawl in --data');
  });
});
