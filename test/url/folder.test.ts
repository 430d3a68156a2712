import { describe, expect, it } from 'vitest';
import { folderPrefixOf } from '../../src/url/folder.js';

/** What the book needs of a URL: its origin and its directory, as the parser finds them. */
function place(url: string): string | null {
  const u = URL.parse(url);
  if (u === null) return null;
  return `${u.origin} ${u.pathname.slice(0, u.pathname.lastIndexOf('/') + 1)}`;
}

const HEADS = [
  'http://',
  'http:',
  'http://a.test',
  'https://a.test',
  'http://a.test:8080',
  'http://u@a.test',
  'http://A.test',
  'http:///a.test',
  'http:\\\\a.test',
  'http://a.test\\b',
];
const MIDDLES = ['', '/', '/p/', '/p', '/p/q/', '/./', '/../', '/p/%2e%2e/', '/p\\q/', '//'];
const LASTS = [
  '',
  'x',
  'x.html',
  '.',
  '..',
  '%2e',
  '.%2E',
  '%2e%2e',
  'a\\b',
  'a\tb',
  '..\t',
  'x y',
  'é',
  '%2fx',
  ' ',
];
const TAILS = ['', '?q=/a/b', '#/frag/', '?x#y/', '?/..'];

describe('folderPrefixOf', () => {
  it('gives one prefix only to URLs that a parser puts on one origin, in one directory', () => {
    const byPrefix = new Map<string, string>();
    let shared = 0;
    for (const h of HEADS)
      for (const m of MIDDLES)
        for (const l of LASTS)
          for (const t of TAILS) {
            const url = `${h}${m}${l}${t}`;
            const prefix = folderPrefixOf(url);
            if (prefix === null) continue;
            expect(url.startsWith(prefix)).toBe(true);
            const where = place(url);
            expect(where).not.toBeNull();
            const before = byPrefix.get(prefix);
            if (before === undefined) byPrefix.set(prefix, where as string);
            else {
              shared++;
              expect({ url, where }).toEqual({ url, where: before });
            }
          }
    expect(shared).toBeGreaterThan(500); // the check above ran on many pairs
  });

  it('takes the plain URLs a crawl has, and leaves the parser the rest', () => {
    expect(folderPrefixOf('http://h1.bench.test/p/123')).toBe('http://h1.bench.test/p/');
    expect(folderPrefixOf('https://a.test/docs/?q=/x/y#z/')).toBe('https://a.test/docs/');
    expect(folderPrefixOf('https://a.test/')).toBe('https://a.test/');
    expect(folderPrefixOf('http://a.test')).toBeNull(); // the host is last
    expect(folderPrefixOf('http:///a.test/x')).toBeNull(); // the parser skips the third slash
    expect(folderPrefixOf('http://a.test/p/..')).toBeNull();
    expect(folderPrefixOf('http://a.test/p/%2E%2e')).toBeNull();
    expect(folderPrefixOf('http://a.test/p/a\\b')).toBeNull();
    expect(folderPrefixOf('HTTP://a.test/p/x')).toBeNull();
    expect(folderPrefixOf('ftp://a.test/p/x')).toBeNull();
  });
});
