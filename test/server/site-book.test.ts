import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { formatSiteLine } from '../../src/protocol/index.js';
import { SiteBook } from '../../src/server/site-book.js';
import { takeInOldJournal } from '../../src/server/site-book-journal.js';

/**
 * The book of sites is kept in its own database as it changes: a server killed with
 * kill -9 (the book never closed) starts again with every count, directory, host name
 * and module info.
 */

let dir: string;
let file: string;

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'cobweb-site-book-'));
  file = join(dir, 'sites.db');
});

afterEach(() => {
  rmSync(dir, { recursive: true, force: true });
});

/** A book with a bit of everything in it, never closed: what a kill -9 leaves. */
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
  it('starts again from its file as it was, never closed (a server killed with kill -9)', () => {
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
    again.writeCounts(); // as a second after the visit does
    expect(new SiteBook(file).all().find((s) => s.port === 8080)?.count).toBe(4);
  });

  it('writes visit counts within a second, host names and directories at once', () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    try {
      const book = new SiteBook(file);
      book.visited([{ url: 'http://a.test/docs/x', address: null }]);
      const killed = () => new SiteBook(file).all(); // what a kill -9 now would leave
      expect(killed()).toMatchObject([{ hosts: ['a.test'], directories: ['/docs/'], count: 0 }]);
      vi.advanceTimersByTime(1000);
      expect(killed()).toMatchObject([{ count: 1 }]);
    } finally {
      vi.useRealTimers();
    }
  });

  it('counts every visit of a folder it has written, and still writes a new directory and an address learned later', () => {
    const book = new SiteBook(file);
    book.visited([
      { url: 'http://a.test/docs/1', address: null },
      { url: 'http://a.test/docs/2', address: null },
    ]);
    book.visited([
      { url: 'http://a.test/docs/3', address: '127.0.0.7' }, // now the book learns where it is
      { url: 'http://a.test/docs/4?x=/y/', address: '127.0.0.7' },
      { url: 'http://a.test/docs/more/5', address: '127.0.0.7' },
      { url: 'http://a.test/docs/6', address: null },
      { url: 'http://a.test/docs/..', address: null }, // the parser's "/"
    ]);
    const sites = book.all();
    expect(sites).toHaveLength(1);
    expect(sites[0]).toMatchObject({
      origin: 'http://a.test',
      address: '127.0.0.7',
      hosts: ['a.test'],
      count: 7,
      directories: ['/docs/', '/docs/more/', '/'],
    });
  });

  it('takes in the sites.jsonl a server before sites.db journaled, once, without its torn last line', () => {
    const old = join(dir, 'sites.jsonl');
    const site = {
      origin: 'http://a.test:8080',
      address: '127.0.0.9',
      port: 8080,
      hosts: ['a.test'],
      count: 2,
    };
    writeFileSync(
      old,
      [
        formatSiteLine({ ...site, directories: ['/'], info: { m: 1 } }),
        `${JSON.stringify({
          visits: [
            ['http://b.test:8080/docs/x', '127.0.0.9'],
            ['http://c.test/', null],
          ],
        })}\n`,
        '{"visits":[["http://a.test:8080/torn","127.0',
      ].join(''),
    );
    const book = new SiteBook(file);
    takeInOldJournal(old, book);
    expect(existsSync(old)).toBe(false);
    expect(book.all()).toEqual([
      { ...site, hosts: ['a.test', 'b.test'], count: 3, directories: ['/', '/docs/'], info: { m: 1 } },
      {
        origin: 'http://c.test',
        address: null,
        port: 80,
        hosts: ['c.test'],
        count: 1,
        directories: ['/'],
        info: {},
      },
    ]);
    takeInOldJournal(old, book); // gone: nothing counted twice
    expect(book.all()[0]?.count).toBe(3);
  });

  it('keeps a site in its place when a later line of the old journal replaces it', () => {
    const old = join(dir, 'sites.jsonl');
    const line = (origin: string, count: number) =>
      formatSiteLine({
        origin,
        address: null,
        port: 80,
        hosts: [new URL(origin).hostname],
        count,
        directories: ['/'],
        info: {},
      });
    writeFileSync(
      old,
      [line('http://a.test', 1), line('http://b.test', 1), line('http://a.test', 5)].join(''),
    );
    const book = new SiteBook(file);
    takeInOldJournal(old, book);
    expect(book.all().map((s) => [s.origin, s.count])).toEqual([
      ['http://a.test', 5],
      ['http://b.test', 1],
    ]);
  });

  it('keeps every host name of a web server with thousands of them (a CDN address), first one first', () => {
    const book = new SiteBook(file);
    book.addInfo('http://h0.test', '10.1.1.1', { server: 'cdn' });
    const visits = Array.from({ length: 20_000 }, (_, i) => ({
      url: `http://h${i % 5000}.test/p/${i}`,
      address: '10.1.1.1',
    }));
    book.visited(visits);
    const [cdn, ...others] = book.all();
    expect(others).toEqual([]);
    expect(cdn?.hosts.length).toBe(5000);
    expect(cdn?.hosts.slice(0, 3)).toEqual(['h0.test', 'h1.test', 'h2.test']);
    expect(cdn?.count).toBe(20_000);
    expect(cdn?.directories).toEqual(['/p/']);
    expect(book.claimKey('http://h4999.test', null)).toBe('10.1.1.1:80');
  });
});
