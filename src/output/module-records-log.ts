import { closeSync, mkdirSync, openSync } from 'node:fs';
import { dirname } from 'node:path';
import { writeAll } from '../write-all.js';

/**
 * `data/<module>.jsonl` files held open for appending, one per module, as pages.jsonl
 * is: a server writes its bunnies' module records a batch at a time, and opening the
 * file for each batch (mkdir, open, write, close) cost it as much CPU as its store.
 */
export class ModuleRecordsLog {
  private readonly fds = new Map<string, number>();

  /** `fileOf` names a module's file; the caller decides which modules may write. */
  constructor(private readonly fileOf: (module: string) => string) {}

  append(module: string, lines: readonly string[]): void {
    if (lines.length === 0) return;
    let fd = this.fds.get(module);
    if (fd === undefined) {
      const file = this.fileOf(module);
      mkdirSync(dirname(file), { recursive: true });
      fd = openSync(file, 'a');
      this.fds.set(module, fd);
    }
    writeAll(fd, `${lines.join('\n')}\n`);
  }

  close(): void {
    for (const fd of this.fds.values()) closeSync(fd);
    this.fds.clear();
  }
}
