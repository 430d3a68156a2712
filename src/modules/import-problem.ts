import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

/**
 * Why a module could not be imported, with where in its file when that can be known: a
 * user fixes a syntax error by its line. An error its top-level code threw names the
 * line in its stack. A syntax error does not: Node keeps the place for its own report of
 * an uncaught error, so it is asked again of `node --check` (only on this error path).
 */
export function importProblem(err: unknown, url: string): string {
  const message = err instanceof Error ? err.message : String(err);
  if (!(err instanceof Error)) return message;
  const line = err.name === 'SyntaxError' ? syntaxErrorLine(url) : thrownAtLine(err, url);
  return line === null ? message : `${message} (line ${line})`;
}

/** The line of the module's own file its top-level code threw at, from the stack. */
function thrownAtLine(err: Error, url: string): number | null {
  for (const frame of (err.stack ?? '').split('\n')) {
    const at = frame.indexOf(`${url}:`);
    if (at === -1) continue;
    const line = Number(/^:(\d+)/.exec(frame.slice(at + url.length))?.[1]);
    if (Number.isSafeInteger(line) && line > 0) return line;
  }
  return null;
}

/** The line `node --check` names for the file's syntax error, if it names one. */
function syntaxErrorLine(url: string): number | null {
  if (!url.startsWith('file:')) return null;
  const file = fileURLToPath(url);
  const checked = spawnSync(process.execPath, ['--check', file], { encoding: 'utf8', timeout: 10_000 });
  const first = checked.stderr?.split('\n')[0] ?? '';
  if (!first.startsWith(`${file}:`)) return null;
  const line = Number(first.slice(file.length + 1));
  return Number.isSafeInteger(line) && line > 0 ? line : null;
}
