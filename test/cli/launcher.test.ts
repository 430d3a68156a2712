import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

// bin/cobweb.js run as a file, as `cobweb` and `npx cobweb` run it: its first lines start
// node through sh with the memory settings (docs/architecture.md, "Memory of a crawling
// process"). A formatter that "fixed" the second line would leave it starting node with
// an error line first, or not at all.
const BIN = join(import.meta.dirname, '../../bin/cobweb.js');
let dir: string;

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'cobweb-launcher-'));
});

afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
});

/**
 * Runs the file itself, in this environment less any MALLOC_ARENA_MAX, plus `env`; a
 * preload given through NODE_OPTIONS writes down how node was started.
 */
function runAsFile(args: string[], env: NodeJS.ProcessEnv = {}) {
  const { MALLOC_ARENA_MAX: _ours, ...base } = process.env;
  const seen = join(dir, `seen-${Math.random().toString(36).slice(2)}.json`);
  const preload = join(dir, 'report-start.cjs');
  writeFileSync(
    preload,
    `require('node:fs').writeFileSync(${JSON.stringify(seen)}, JSON.stringify({ execArgv: process.execArgv, arenas: process.env.MALLOC_ARENA_MAX ?? null }));\n`,
  );
  const r = spawnSync(BIN, args, {
    encoding: 'utf8',
    timeout: 60_000,
    env: { ...base, ...env, NODE_OPTIONS: `--require ${preload}` },
  });
  const started = JSON.parse(readFileSync(seen, 'utf8')) as { execArgv: string[]; arenas: string | null };
  return { code: r.status, stdout: r.stdout, stderr: r.stderr, started };
}

describe('bin/cobweb.js run as a file', () => {
  it('starts node with the memory settings and says nothing else', () => {
    const r = runAsFile(['--version']);

    expect(r.code).toBe(0);
    expect(r.stdout.trim()).toMatch(/^\d+\.\d+\.\d+$/);
    expect(r.stderr).toBe('');
    expect(r.started.execArgv).toContain('--max-semi-space-size=8');
    expect(r.started.arenas).toBe('2');
  });

  it("keeps the user's own MALLOC_ARENA_MAX", () => {
    const r = runAsFile(['--version'], { MALLOC_ARENA_MAX: '8' });

    expect(r.code).toBe(0);
    expect(r.started.arenas).toBe('8');
  });
});
