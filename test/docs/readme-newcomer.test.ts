import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { crawl } from '../../src/assembly/crawl.js';
import { writeReport } from '../../src/console/report.js';
import { layoutOf } from '../../src/data-dir/layout.js';
import { OPTIONS } from '../../src/options/options.js';
import { page } from '../helpers/http.js';
import { folderAndSites } from '../helpers/test-folder.js';

// What a new user reads first: the README's opening, how to get the command, the files
// of a crawl's folder, and where every setting `cobweb config --print` shows is explained.

const REPO = join(import.meta.dirname, '../..');
const read = (file: string) => readFileSync(join(REPO, file), 'utf8');
const README = read('README.md');

/** A section of the README: from its heading to the next heading of its level or above. */
function section(heading: string): string {
  const at = README.indexOf(`\n${heading}\n`);
  expect(at, heading).toBeGreaterThan(-1);
  const level = heading.split(' ')[0] as string;
  const rest = README.slice(at + heading.length + 2);
  const next = rest.search(new RegExp(`\\n#{1,${level.length}} `));
  return next === -1 ? rest : rest.slice(0, next);
}

describe('the README', () => {
  it('opens with its title', () => {
    expect(README.split('\n')[0]).toBe('# cobweb');
  });

  it('says how to install the command, and runs it as `cobweb` outside the checkout', () => {
    const install = section('## Install');
    expect(install).toContain('npm install -g .');
    expect(install).toContain('npm link');
    // npx is for the checkout: the two commands of the opening block, and the line saying so.
    const npx = README.split('\n').filter((l) => /(^|[^`])npx cobweb/.test(l) && !l.includes('`npx'));
    expect(npx).toEqual([
      'npm install && npx cobweb crawl https://example.com   # the main job, embedded store',
    ]);
    for (const doc of readdirSync(join(REPO, 'docs')).filter((f) => f.endsWith('.md'))) {
      expect(read(`docs/${doc}`), doc).not.toMatch(/^npx cobweb/m);
    }
  });

  it('names what a build from source and the type declarations need', () => {
    const install = section('## Install');
    for (const needed of ['python3', 'make', 'g++', '@types/node']) expect(install).toContain(needed);
  });
});

describe("the README's list of a crawl's files", () => {
  const folder = folderAndSites('readme-files');

  it('names every file a crawl with the console and a report leaves, and none that never appears', async () => {
    const site = await folder.site('127.0.0.2', { '/': page('home', ['/a']), '/a': page('a') });
    await crawl({
      seeds: [`${site.origin}/`],
      data: folder.dir,
      delayMs: 0,
      http: '127.0.0.1:0',
      onLog: () => {},
    });
    await writeReport(layoutOf(folder.dir));
    const files = section('## What a crawl writes');
    const made = readdirSync(folder.dir);
    expect(made).toContain('token');
    for (const name of made)
      expect(files, name).toContain(`\`${name === 'warc' || name === 'data' ? `${name}/` : name}`);
    // Beside the store while a crawl runs.
    for (const name of ['frontier.db-wal', 'frontier.db-shm']) expect(files).toContain(`\`${name}\``);
    expect(files).not.toContain('cobweb.lock-journal');
  });
});

describe('docs/options.md', () => {
  it('explains every setting cobweb config --print shows', () => {
    const options = read('docs/options.md');
    for (const [key, spec] of Object.entries(OPTIONS)) {
      if (spec.kind.fromFile === null) continue; // a callback: not a setting a file can give
      expect(options, key).toContain(`\`${key}\``);
    }
  });
});
