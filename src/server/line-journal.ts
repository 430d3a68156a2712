import { closeSync, existsSync, openSync, readFileSync, renameSync, writeFileSync, writeSync } from 'node:fs';

/**
 * A file of lines that grows by appends and is rewritten whole, atomically, when asked.
 * Each append is one write: what was appended is in the OS when append() returns, so a
 * kill -9 loses at most a torn last line, which lines() leaves out.
 */
export class LineJournal {
  private fd: number | null = null;
  /** Lines appended since the file was last rewritten. */
  appended = 0;

  constructor(private readonly file: string) {}

  /** The lines the file holds, without a last one that lacks its newline (a write cut short). */
  lines(): string[] {
    if (!existsSync(this.file)) return [];
    const text = readFileSync(this.file, 'utf8');
    const lines = text.split('\n');
    lines.pop(); // after the last newline: '' or a torn line
    return lines.filter((l) => l.trim() !== '');
  }

  /** Appends lines, each ending in '\n'. */
  append(lines: readonly string[]): void {
    if (lines.length === 0) return;
    this.fd ??= openSync(this.file, 'a');
    writeSync(this.fd, lines.join(''));
    this.appended += lines.length;
  }

  /** Replaces the whole file (a temporary file renamed over it): it holds these lines, or the old ones. */
  rewrite(lines: readonly string[]): void {
    this.close();
    const temp = `${this.file}.tmp`;
    writeFileSync(temp, lines.join(''));
    renameSync(temp, this.file);
    this.appended = 0;
  }

  close(): void {
    if (this.fd !== null) closeSync(this.fd);
    this.fd = null;
  }
}
