import { existsSync, realpathSync } from 'node:fs';
import { isAbsolute, join, relative, sep } from 'node:path';

/**
 * A file or module name a client sent (LOGDATA, READDATA, NEWMOD): a plain name inside
 * its folder. Anything that could reach outside it (a separator, '..', an absolute path,
 * a symlink that leads out) is refused: the answer is null.
 */
export function plainNameIn(dir: string, name: string): string | null {
  if (name === '' || name.length > 255 || name === '.' || name === '..') return null;
  if (name.includes('/') || name.includes('\\') || name.includes('\0') || isAbsolute(name)) return null;
  for (let i = 0; i < name.length; i++) if (name.charCodeAt(i) < 0x20) return null;
  const path = join(dir, name);
  if (!existsSync(path)) return insideOf(dir, path) ? path : null;
  try {
    // A symlink in the folder may point anywhere: follow it and look where it lands.
    return insideOf(realpathSync(dir), realpathSync(path)) ? path : null;
  } catch {
    return null;
  }
}

function insideOf(dir: string, path: string): boolean {
  const rel = relative(dir, path);
  return rel !== '' && !rel.startsWith(`..${sep}`) && rel !== '..' && !isAbsolute(rel);
}
