import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { cobweb } from '../helpers/cli-process.js';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'cobweb-render-cli-'));
});
afterEach(() => {
  rmSync(dir, { recursive: true, force: true });
});

describe('cobweb crawl --render with no browser', () => {
  it('says what to do and exits 2, with nothing written', async () => {
    const data = join(dir, 'data');
    const run = cobweb(['crawl', 'http://127.0.0.1:9/', '--render', 'always', '--data', data], {
      PATH: join(dir, 'empty'),
      COBWEB_BROWSER: '',
    });
    expect(await run.exit()).toBe(2);
    expect(run.stderr()).toMatch(/--render needs a Chromium, and none was found: give --browser PATH/);
    expect(existsSync(data)).toBe(false);
  });

  it('exits 2 on --screenshot without --render, saying to add it, with nothing written', async () => {
    const data = join(dir, 'shots');
    const run = cobweb(['crawl', 'http://127.0.0.1:9/', '--screenshot', '--data', data]);
    expect(await run.exit()).toBe(2);
    expect(run.stderr()).toMatch(/--screenshot takes a picture of each rendered page.*add --render always/);
    expect(existsSync(data)).toBe(false);
  });

  it('exits 2 on a --render value it does not know', async () => {
    const run = cobweb(['crawl', 'http://127.0.0.1:9/', '--render', 'sometimes', '--data', join(dir, 'd')]);
    expect(await run.exit()).toBe(2);
    expect(run.stderr()).toMatch(/never, auto, always|never\|auto\|always|"sometimes"/);
  });
});
