import { type ChildProcess, spawn } from 'node:child_process';
import { dirname, join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import type { SiteMode } from './site.js';

const here = dirname(fileURLToPath(import.meta.url));

/** The fixture site in its own process; resolves with its origin. */
export async function startSite(
  mode: SiteMode,
  pages: number,
  host: string,
): Promise<{ origin: string; child: ChildProcess }> {
  const child = spawn(
    process.execPath,
    ['--import', 'tsx', join(here, 'serve.ts'), JSON.stringify({ mode, pages, host })],
    { cwd: here, stdio: ['pipe', 'pipe', 'inherit'] },
  );
  const lines = createInterface({ input: child.stdout as NodeJS.ReadableStream });
  const origin = await new Promise<string>((resolveOrigin, reject) => {
    lines.once('line', (line) => resolveOrigin((JSON.parse(line) as { origin: string }).origin));
    child.once('exit', () => reject(new Error('the fixture site did not start')));
  });
  return { origin, child };
}

export function stopSite(site: { child: ChildProcess }): void {
  site.child.stdin?.end();
}
