import { appendFileSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { parseSiteLine } from '../../src/protocol/index.js';
import { SiteBook } from '../../src/server/site-book.js';

/**
 * The book of sites is journaled as it changes: a server killed with kill -9 (the book
 * never saved) starts again with every count, directory, host name and module info.
 */

let dir: string;
let file: string;

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'cobweb-site-book-'));
  file = join(dir, 'sites.jsonl');
});

afterEach(() => {
  rmSync(dir, { recursive: true, force: true });
});

/** A book with a bit of everything in it, never saved: what a kill -9 leaves. */
function filled(): SiteBook {
  const book = new SiteBook(file);
  book.visited([
    { url: 'http://a.test:8080/', address: '127.0.0.9' },
    { url: 'http://a.test:8080/docs/x', address: '127.0.0.9' },
  ]);
  book.visited([{ url: 'http://b.test:8080/docs/y', address: '127.0.0.9' }]);
  book.addInfo('http://a.test:8080', '127.0.0.9', { tagger: { tagged: true } });
  book.visited([{ url: 'http://c.test/', address: null }]);
  book.addInfoAt('127.0.0.9', 8080, 'server', { software: 'nginx' });
  book.read(
    `${JSON.stringify({ origin: 'http://old.test', address: '10.0.0.2', port: 80, hosts: ['old.test'], count: 9, directories: ['/x/'], info: { m: 1 } })}\n`,
  );
  return book;
}

describe('SiteBook', () => {
  it('starts again from its journal as it was, without a save (a server killed with kill -9)', () => {
    const before = filled().all();
    expect(before).toContainEqual({
      origin: 'http://a.test:8080',
      address: '127.0.0.9',
      port: 8080,
      hosts: ['a.test', 'b.test'],
      count: 3,
      directories: ['/', '/docs/'],
      info: { tagger: { tagged: true }, server: { software: 'nginx' } },
    });
    const again = new SiteBook(file);
    expect(again.all()).toEqual(before);
    // and it goes on from there: b.test is still a name of the site on 127.0.0.9:8080
    again.visited([{ url: 'http://b.test:8080/z', address: '127.0.0.9' }]);
    expect(again.claimKey('http://b.test:8080', null)).toBe('127.0.0.9:8080');
    expect(new SiteBook(file).all().find((s) => s.port === 8080)?.count).toBe(4);
  });

  it('leaves out a torn last line (a write cut short) and keeps the rest', () => {
    const before = filled().all();
    appendFileSync(file, '{"visits":[["http://a.test:8080/torn","127.0');
    expect(new SiteBook(file).all()).toEqual(before);
  });

  it('rewrites its file at start as one log line per site, which READDATA takes', () => {
    const before = filled().all();
    new SiteBook(file);
    const lines = readFileSync(file, 'utf8').trim().split('\n');
    expect(lines.map((l) => parseSiteLine(l))).toEqual(before);
  });
});
