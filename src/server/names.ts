import { closeSync, constants, lstatSync, openSync, realpathSync, writeSync } from 'node:fs';
import { isAbsolute, join } from 'node:path';

/**
 * A file or module name a client sent (LOGDATA, READDATA, NEWMOD): a plain name inside
 * its folder. Anything that could reach outside it (a separator, '..', an absolute path,
 * a symlink) is refused: the answer is null. Every symlink is refused, not only those
 * that lead out: a dangling one cannot be followed to see where it lands, and writing
 * through it would create the file wherever it points.
 */
export function plainNameIn(dir: string, name: string): string | null {
  if (name === '' || name.length > 255 || name === '.' || name === '..') return null;
  if (name.includes('/') || name.includes('\\') || name.includes('\0') || isAbsolute(name)) return null;
  for (let i = 0; i < name.length; i++) if (name.charCodeAt(i) < 0x20) return null;
  const path = join(realFolder(dir), name);
  try {
    return lstatSync(path).isSymbolicLink() ? null : path;
  } catch (err) {
    // Nothing by that name yet: a file LOGDATA may create.
    return (err as NodeJS.ErrnoException).code === 'ENOENT' ? path : null;
  }
}

/** The folder itself may be reached through a symlink (the user chose it); a folder not made yet holds nothing. */
function realFolder(dir: string): string {
  try {
    return realpathSync(dir);
  } catch {
    return dir;
  }
}

/**
 * Appends to a file plainNameIn() accepted, never through a symlink: one made after the
 * check (a race) fails the open instead of being followed.
 */
export function appendNoFollow(path: string, text: string): void {
  const fd = openSync(
    path,
    constants.O_WRONLY | constants.O_APPEND | constants.O_CREAT | constants.O_NOFOLLOW,
    0o644,
  );
  try {
    writeSync(fd, text);
  } finally {
    closeSync(fd);
  }
}
