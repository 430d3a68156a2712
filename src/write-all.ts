import { writeSync } from 'node:fs';

/**
 * Writes all of `data` at the fd's position. writeSync may write less than asked without
 * an error (a disk with room for part of it): the rest is written by the next call,
 * which throws (ENOSPC) if there is no room, so nothing is ever left out silently.
 */
export function writeAll(fd: number, data: string | Uint8Array): void {
  const bytes = typeof data === 'string' ? Buffer.from(data) : data;
  let done = 0;
  while (done < bytes.length) done += writeSync(fd, bytes, done, bytes.length - done);
}
