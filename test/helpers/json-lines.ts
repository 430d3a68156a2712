import { readFileSync } from 'node:fs';

/** A JSON-lines file (pages.jsonl, a --log-file, data/<module>.jsonl), each line parsed. */
export function readJsonLines<T>(file: string): T[] {
  return readFileSync(file, 'utf8')
    .split('\n')
    .filter((l) => l !== '')
    .map((l) => JSON.parse(l) as T);
}
