import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';

// The README and the docs link to each other's sections (the option tables' texts link
// to the README's, the README to docs/options.md's): a heading renamed, or a page moved,
// must not leave a link that leads nowhere, nor one that leaves the repository.
const REPO = join(import.meta.dirname, '../..');
const PAGES = [
  'README.md',
  ...readdirSync(join(REPO, 'docs'))
    .filter((f) => f.endsWith('.md'))
    .map((f) => `docs/${f}`),
];

/** A Markdown file's text without its fenced code blocks, where a `[x](y)` is not a link. */
function prose(file: string): string {
  return readFileSync(join(REPO, file), 'utf8').replace(/^```[\s\S]*?^```/gm, '');
}

/** The anchors of a page's headings, as GitHub makes them. */
function anchorsOf(file: string): Set<string> {
  const headings = [...prose(file).matchAll(/^#{1,6} (.+)$/gm)].map((m) => m[1] as string);
  return new Set(
    headings.map((h) =>
      h
        .toLowerCase()
        .replace(/[^\p{L}\p{N} _-]/gu, '')
        .replace(/ /g, '-'),
    ),
  );
}

/** Every link of a page to a file or section of the repository: [text](target). */
function localLinks(file: string): string[] {
  return [...prose(file).matchAll(/\]\(([^)\s]+)\)/g)]
    .map((m) => m[1] as string)
    .filter((target) => !/^[a-z]+:/.test(target));
}

describe('the links of the README and docs/', () => {
  it.each(PAGES)('%s: each leads to a file of the repository, and to a heading there', (file) => {
    const broken: string[] = [];
    for (const link of localLinks(file)) {
      const [path = '', anchor] = link.split('#');
      const target = path === '' ? file : relative(REPO, join(REPO, dirname(file), path));
      if (target.startsWith('..') || !existsSync(join(REPO, target)))
        broken.push(`${link}: no file ${target}`);
      else if (anchor !== undefined && !anchorsOf(target).has(anchor))
        broken.push(`${link}: no heading in ${target}`);
    }
    expect(broken).toEqual([]);
  });

  it('finds the links it checks', () => {
    expect(localLinks('README.md')).toContain('docs/options.md#the-data-folder');
    expect(localLinks('docs/options.md')).toContain('#cookies');
    expect(anchorsOf('README.md')).toContain('watching-and-steering---http-and-cobweb-report');
  });
});
