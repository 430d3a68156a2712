import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ModuleRecordsLog } from '../../src/output/module-records-log.js';

describe('ModuleRecordsLog', () => {
  const dirs: string[] = [];
  afterEach(() => {
    for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
  });
  const folder = () => {
    const d = mkdtempSync(join(tmpdir(), 'cobweb-module-records-'));
    dirs.push(d);
    return d;
  };

  it('appends each module its own lines, batch after batch, making data/ on the way', () => {
    const root = folder();
    const log = new ModuleRecordsLog((m) => join(root, 'data', `${m}.jsonl`));
    log.append('forms', ['{"n":1}', '{"n":2}']);
    log.append('meta', ['{"m":1}']);
    log.append('forms', ['{"n":3}']);
    log.append('forms', []);
    expect(readFileSync(join(root, 'data', 'forms.jsonl'), 'utf8')).toBe('{"n":1}\n{"n":2}\n{"n":3}\n');
    expect(readFileSync(join(root, 'data', 'meta.jsonl'), 'utf8')).toBe('{"m":1}\n');
    log.close();
  });

  it('keeps what a file held before: a restarted server appends to it', () => {
    const root = folder();
    const fileOf = (m: string) => join(root, 'data', `${m}.jsonl`);
    const first = new ModuleRecordsLog(fileOf);
    first.append('forms', ['{"run":1}']);
    first.close();
    const second = new ModuleRecordsLog(fileOf);
    second.append('forms', ['{"run":2}']);
    second.close();
    expect(readFileSync(fileOf('forms'), 'utf8')).toBe('{"run":1}\n{"run":2}\n');
  });
});
