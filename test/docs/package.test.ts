import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const REPO = join(import.meta.dirname, '../..');

/** The files `npm pack` would put in the package (without running the build again). */
function packedFiles(): string[] {
  const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
  const r = spawnSync(npm, ['pack', '--dry-run', '--json', '--ignore-scripts'], {
    cwd: REPO,
    encoding: 'utf8',
    timeout: 60_000,
  });
  expect(r.status, r.stderr).toBe(0);
  const [pack] = JSON.parse(r.stdout) as { files: { path: string }[] }[];
  return (pack?.files ?? []).map((f) => f.path);
}

describe('the npm package', () => {
  it('carries the docs that --help points to, the licence and the compiled command, and no code cache', () => {
    const files = packedFiles();
    for (const f of ['LICENSE', 'README.md', 'docs/modules.md', 'docs/robots.md', 'bin/cobweb.js']) {
      expect(files).toContain(f);
    }
    expect(files).toContain('dist/index.js');
    expect(files.some((f) => f.startsWith('src/') || f.startsWith('test/'))).toBe(false);
    // The code V8 kept for this machine's starts (src/cli/code-cache.ts) is not the package's.
    expect(files.some((f) => f.startsWith('dist/cli-bundle/cache/'))).toBe(false);
  });
});
